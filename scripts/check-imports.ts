/**
 * The import graph's rules, checked in CI (`npm run check:imports`, or `tsx scripts/check-imports.ts <root>`):
 * 1. no cycle, type-only imports included;
 * 2. imports run downward only: a file imports files of its own layer or of a lower one;
 * 3. no cycle among the folders of server/ (each server/<folder>/, and each file at its top);
 * 4. a domain imports only the domains DOMAINS lists for it.
 *
 * Layers, lowest first (the first matching prefix decides a file's layer):
 *   packages   the published packages (browser SDK, webhook verifier): they import nothing of the service
 *   db         schema, migrations, the database handle
 *   kit        what every domain shares: server/kit/, and errors, ids, clock, config
 *   platform   the machinery domains run on: gateway adapters, auth, audit, rate limits,
 *              the tRPC context and procedures, the background scheduler, the API adapters
 *              (server/http/: REST and tRPC handlers, body, error envelopes), logs and metrics
 *   domains    server/<domain>/: checkout, payments, subscriptions, billing, webhooks, …
 *   app        what assembles the domains: the router, the service container, the job list,
 *              the OpenAPI document, bootstrap and admin, and the process host (server/host/:
 *              the node:http front of `npm start`, its routing to Next, the published app)
 *   entry      Next.js pages and routes, scripts, proxy.ts, instrumentation.ts
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const LAYERS: readonly { name: string; paths: readonly string[] }[] = [
  { name: 'packages', paths: ['packages/'] },
  { name: 'db', paths: ['db/'] },
  { name: 'kit', paths: ['server/kit/', 'server/errors.ts', 'server/ids.ts', 'server/clock.ts', 'server/config.ts'] },
  {
    name: 'platform',
    paths: [
      'server/gateway/',
      'server/auth/',
      'server/audit/',
      'server/rate-limit/',
      'server/context.ts',
      'server/trpc.ts',
      'server/background.ts',
      'server/due-jobs.ts',
      'server/http/',
      'server/observability/',
    ],
  },
  { name: 'domains', paths: ['server/'] },
  {
    name: 'app',
    paths: ['server/router.ts', 'server/app.ts', 'server/app-singleton.ts', 'server/background-tasks.ts', 'server/openapi/', 'server/bootstrap.ts', 'server/admin/', 'server/host/'],
  },
  { name: 'entry', paths: ['app/', 'scripts/', 'proxy.ts', 'instrumentation.ts'] },
];

/**
 * The domain folders of server/, lowest first, each with the domains it may import: only domains
 * above it in this table, so domains form no cycle. A new domain, or a new import from one domain
 * to another, is a change here.
 */
export const DOMAINS: Readonly<Record<string, readonly string[]>> = {
  downloads: [],
  keys: [],
  licenses: [],
  vat: [],
  webhooks: [],
  stores: ['keys'],
  invoices: ['vat', 'webhooks'],
  products: ['webhooks'],
  coupons: ['products', 'webhooks'],
  mail: ['invoices'],
  'bank-accounts': ['mail'],
  balance: ['bank-accounts'],
  payouts: ['balance', 'bank-accounts', 'invoices', 'mail', 'webhooks'],
  users: ['mail'],
  orders: ['balance', 'invoices', 'licenses', 'mail', 'vat', 'webhooks'],
  disputes: ['balance', 'invoices', 'licenses', 'mail', 'orders', 'webhooks'],
  portal: ['downloads', 'invoices', 'stores', 'webhooks'],
  customers: ['portal', 'webhooks'],
  checkout: ['coupons', 'downloads', 'orders', 'stores', 'vat', 'webhooks'],
  payments: ['balance', 'checkout', 'coupons', 'customers', 'disputes', 'invoices', 'mail', 'orders', 'vat', 'webhooks'],
  subscriptions: ['checkout', 'coupons', 'customers', 'disputes', 'invoices', 'mail', 'payments', 'products', 'stores', 'vat', 'webhooks'],
  billing: ['checkout', 'coupons', 'invoices', 'mail', 'orders', 'payments', 'subscriptions', 'webhooks'],
  dashboard: ['balance', 'coupons', 'customers', 'disputes', 'downloads', 'orders', 'portal', 'products', 'stores', 'subscriptions', 'users', 'webhooks'],
  events: ['checkout', 'coupons', 'customers', 'disputes', 'invoices', 'orders', 'payouts', 'portal', 'products', 'subscriptions', 'webhooks'],
  'test-clock': ['billing', 'checkout', 'disputes', 'mail', 'payouts', 'subscriptions', 'webhooks'],
};

/** The roots whose files make up the graph. */
const ROOTS = ['server', 'db', 'app', 'scripts', 'packages', 'proxy.ts', 'instrumentation.ts'];
const SOURCE = /\.(ts|tsx|mts|js|mjs)$/;
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.next']);

/** Repository-relative path → the repository-relative paths it imports. */
export type ImportGraph = Map<string, string[]>;

/** The layer of a file: the most specific (longest) matching path wins, so server/kit/ beats server/. */
export function layerOf(file: string): number {
  let best = -1;
  let bestLength = -1;
  LAYERS.forEach((layer, rank) => {
    for (const prefix of layer.paths) {
      const matches = prefix.endsWith('/') ? file.startsWith(prefix) : file === prefix;
      if (matches && prefix.length > bestLength) {
        best = rank;
        bestLength = prefix.length;
      }
    }
  });
  return best;
}

function listSources(root: string, entry: string): string[] {
  const full = path.join(root, entry);
  if (!existsSync(full)) return [];
  if (statSync(full).isFile()) return SOURCE.test(entry) ? [entry] : [];
  return readdirSync(full).flatMap((name) => (SKIPPED_DIRS.has(name) ? [] : listSources(root, path.posix.join(entry, name))));
}

function resolveSpecifier(root: string, from: string, specifier: string): string | undefined {
  let base: string;
  if (specifier.startsWith('@/')) base = specifier.slice(2);
  else if (specifier.startsWith('.')) base = path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier));
  else return undefined; // a package
  const candidates = [base, ...['.ts', '.tsx', '.mts', '.js', '.mjs'].map((ext) => base + ext), `${base}/index.ts`, `${base}/index.tsx`];
  return candidates.find((candidate) => SOURCE.test(candidate) && existsSync(path.join(root, candidate)) && statSync(path.join(root, candidate)).isFile());
}

/** Every static, dynamic and type-only import of the roots' source files. */
function readImportGraph(root: string): ImportGraph {
  const graph: ImportGraph = new Map();
  for (const file of ROOTS.flatMap((entry) => listSources(root, entry))) {
    const { importedFiles } = ts.preProcessFile(readFileSync(path.join(root, file), 'utf8'), true, true);
    const targets = importedFiles.map((imported) => resolveSpecifier(root, file, imported.fileName)).filter((target) => target !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Each cycle once, as a path that starts and ends with the same file (Tarjan's strongly connected components). */
export function findCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let counter = 0;

  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) components.push(component);
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return components.map((component) => cycleThrough(graph, new Set(component), component.sort()[0]!));
}

/** A shortest import path from `start` back to itself inside one component. */
function cycleThrough(graph: ImportGraph, members: Set<string>, start: string): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const cycle = [start];
        for (let step: string | undefined = node; step !== undefined && step !== start; step = previous.get(step)) cycle.splice(1, 0, step);
        return [...cycle, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

interface LayerViolation {
  from: string;
  to: string;
  fromLayer: string;
  toLayer: string;
}

/** Imports from a file to a file of a higher layer; files outside every layer are reported too. */
export function findLayerViolations(graph: ImportGraph): { violations: LayerViolation[]; unlayered: string[] } {
  const violations: LayerViolation[] = [];
  const unlayered = new Set<string>();
  for (const [from, targets] of graph) {
    const fromRank = layerOf(from);
    if (fromRank < 0) unlayered.add(from);
    for (const to of targets) {
      const toRank = layerOf(to);
      if (toRank < 0) unlayered.add(to);
      else if (fromRank >= 0 && toRank > fromRank) violations.push({ from, to, fromLayer: LAYERS[fromRank]!.name, toLayer: LAYERS[toRank]!.name });
    }
  }
  return { violations, unlayered: [...unlayered].sort() };
}

/** A file's folder in the folder graph: `server/<folder>/` below server/, the file itself at its top; none outside server/. */
export function folderOf(file: string): string | undefined {
  const match = /^server\/[^/]+\//.exec(file);
  if (match) return match[0];
  return file.startsWith('server/') ? file : undefined;
}

/** The name of a domain folder (`server/orders/` → `orders`); undefined for a folder of another layer or a file. */
function domainOf(folder: string): string | undefined {
  return folder.endsWith('/') && LAYERS[layerOf(folder)]?.name === 'domains' ? folder.slice('server/'.length, -1) : undefined;
}

/** The folder graph of server/, and for each of its edges one file import that makes it (`from → to` keyed). */
export function folderGraph(graph: ImportGraph): { folders: ImportGraph; through: Map<string, string> } {
  const folders: ImportGraph = new Map();
  const through = new Map<string, string>();
  for (const [from, targets] of graph) {
    const fromFolder = folderOf(from);
    if (fromFolder === undefined) continue;
    if (!folders.has(fromFolder)) folders.set(fromFolder, []);
    for (const to of targets) {
      const toFolder = folderOf(to);
      if (toFolder === undefined || toFolder === fromFolder || through.has(`${fromFolder} → ${toFolder}`)) continue;
      folders.get(fromFolder)!.push(toFolder);
      through.set(`${fromFolder} → ${toFolder}`, `${from} imports ${to}`);
    }
  }
  return { folders, through };
}

/**
 * Imports from one domain folder to another that `domains` does not list, and entries of
 * `domains` that list a domain not above them (which would let domains import in a circle).
 */
export function findUndeclaredDomainImports(folders: ImportGraph, through: Map<string, string>, domains: Readonly<Record<string, readonly string[]>>): string[] {
  const lines: string[] = [];
  const order = Object.keys(domains);
  for (const [domain, allowed] of Object.entries(domains)) {
    for (const lower of allowed) {
      if (!(order.indexOf(lower) >= 0 && order.indexOf(lower) < order.indexOf(domain))) lines.push(`domain map: ${domain} lists ${lower}, which is not a domain above it in DOMAINS`);
    }
  }
  const unknown = new Set<string>();
  for (const [from, targets] of folders) {
    const fromDomain = domainOf(from);
    if (fromDomain === undefined) continue;
    for (const to of targets) {
      const toDomain = domainOf(to);
      if (toDomain === undefined) continue;
      const allowed = domains[fromDomain];
      if (allowed === undefined) unknown.add(fromDomain);
      else if (!allowed.includes(toDomain)) {
        lines.push(`undeclared domain import: ${from} imports ${to} (${through.get(`${from} → ${to}`)}); ${fromDomain} may import ${allowed.join(', ') || 'no domain'}`);
      }
    }
  }
  for (const domain of [...unknown].sort()) lines.push(`domain without an entry: server/${domain}/ (add it to DOMAINS in scripts/check-imports.ts)`);
  return lines;
}

/** The report for one repository; `ok` false when any rule is broken. */
export function checkImports(root: string, domains: Readonly<Record<string, readonly string[]>> = DOMAINS): { ok: boolean; report: string } {
  const graph = readImportGraph(root);
  const cycles = findCycles(graph);
  const { violations, unlayered } = findLayerViolations(graph);
  const { folders, through } = folderGraph(graph);
  const folderCycles = findCycles(folders);
  const undeclared = findUndeclaredDomainImports(folders, through, domains);
  const lines: string[] = [];
  for (const cycle of cycles) lines.push(`cycle: ${cycle.join(' → ')}`);
  for (const v of violations) lines.push(`upward import: ${v.from} (${v.fromLayer}) imports ${v.to} (${v.toLayer})`);
  for (const file of unlayered) lines.push(`no layer: ${file} (add its path to LAYERS in scripts/check-imports.ts)`);
  for (const cycle of folderCycles) {
    const steps = cycle.slice(1).map((to, step) => through.get(`${cycle[step]} → ${to}`));
    lines.push(`folder cycle: ${cycle.join(' → ')} (${steps.join('; ')})`);
  }
  lines.push(...undeclared);
  const edges = [...graph.values()].reduce((sum, targets) => sum + targets.length, 0);
  if (lines.length === 0) {
    return { ok: true, report: `import graph: ${graph.size} files, ${edges} imports, no cycle, no upward import; ${folders.size} folders of server/, no folder cycle, no undeclared domain import` };
  }
  lines.push(
    '',
    `import graph: ${cycles.length} cycle(s), ${violations.length} upward import(s), ${unlayered.length} file(s) without a layer, ${folderCycles.length} folder cycle(s), ${undeclared.length} domain map problem(s).`,
    `Layers, lowest first: ${LAYERS.map((layer) => layer.name).join(' < ')}. A file may import its own layer and those below it.`,
    'A domain folder may import the domains DOMAINS in scripts/check-imports.ts lists for it; no folder of server/ imports one that imports it back.',
  );
  return { ok: false, report: lines.join('\n') };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { ok, report } = checkImports(path.resolve(process.argv[2] ?? path.join(import.meta.dirname, '..')));
  (ok ? console.log : console.error)(report);
  process.exitCode = ok ? 0 : 1;
}
