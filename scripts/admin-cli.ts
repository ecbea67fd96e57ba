/**
 * The operator CLI behind `npm run admin -- <command> [--flag value]` (scripts/admin.ts runs it
 * as the process). Calls the running service's admin router over tRPC and prints exactly one JSON
 * object on stdout (or, asked for, a CSV). Exit codes: 0 success, 1 the call failed, 2 the
 * command line is wrong. What it reads and writes of its process comes in `AdminIo`, so its tests
 * can run many command lines in one process and keep a few as real processes.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { PAYOUT_FAILURE_REASONS, type PayoutFailureReason } from '../db/schema/balance';
import { DOCUMENT_LANGUAGES, TAX_MODES, type DocumentLanguage, type TaxMode } from '../db/schema/columns';
import { DISPUTE_REASONS, DISPUTE_STATUSES, type DisputeReason, type DisputeStatus } from '../db/schema/disputes';
import type { MemberRole } from '../db/schema/users';
import type { AdminRouter } from '../server/admin/router';
import { isEmailAddress } from '../server/kit/fields';
import { ossReportCsv, QUARTER_PATTERN, type OssReport } from '../server/vat/oss-report-format';
import { ADMIN_ENDPOINT, ADMIN_TOKEN_FILE } from '../server/admin/constants';

type AdminClient = ReturnType<typeof createTRPCClient<AdminRouter>>;

class UsageError extends Error {}

/** The process the CLI runs in: its environment, working directory and output streams. */
export interface AdminIo {
  env: Record<string, string | undefined>;
  cwd: string;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** `url`: a string that may be `""` (which removes what it sets). */
type FlagKind = 'string' | 'url' | 'boolean';
type FlagValues = Record<string, string | boolean | undefined>;

interface Command {
  usage: string;
  flags: Record<string, { kind: FlagKind; required?: boolean }>;
  run(client: AdminClient, flags: FlagValues, io: AdminIo): Promise<unknown>;
  /** An answer that is itself a failure (printed, then exit 1), with a line per problem for stderr. */
  problems?(result: unknown): string[];
  /** The answer as stdout shows it, where that is not its JSON. */
  print?(result: unknown, flags: FlagValues): string | undefined;
}

const KEY_TYPE_NAMES = ['sk_test', 'pk_test', 'sk_live', 'pk_live'];

const bool = (value: FlagValues[string]) => value as boolean | undefined;
const text = (value: FlagValues[string]) => value as string;

/** `--tax-mode`, refused with the API's code for a value it does not take. */
function taxMode(value: FlagValues[string]): TaxMode | undefined {
  const mode = value as string | undefined;
  if (mode !== undefined && !TAX_MODES.includes(mode as TaxMode)) throw new UsageError(`parameter_invalid: --tax-mode takes ${TAX_MODES.join(' or ')}, not "${mode}".`);
  return mode as TaxMode | undefined;
}

const COMMANDS: Record<string, Command> = {
  'store:create': {
    usage: 'store:create --name NAME [--amount-mode] [--tax-calculation] [--subscriptions] [--tax-mode product_rate|buyer_country]',
    flags: {
      name: { kind: 'string', required: true },
      'amount-mode': { kind: 'boolean' },
      'tax-calculation': { kind: 'boolean' },
      subscriptions: { kind: 'boolean' },
      'tax-mode': { kind: 'string' },
    },
    run: (client, flags) =>
      client.store.create.mutate({
        name: text(flags.name),
        amountMode: bool(flags['amount-mode']),
        taxCalculation: bool(flags['tax-calculation']),
        subscriptions: bool(flags.subscriptions),
        taxMode: taxMode(flags['tax-mode']),
      }),
  },
  'store:update': {
    usage:
      'store:update --id ID [--suspended true|false] [--live-api true|false] [--amount-mode true|false] [--tax-calculation true|false] [--subscriptions true|false] [--tax-mode product_rate|buyer_country] [--fee-percent PERCENT] [--fee-fixed CENTS] [--name NAME] [--logo-url URL] [--terms-url URL] [--privacy-url URL] [--language en|de] ("" removes a URL)',
    flags: {
      id: { kind: 'string', required: true },
      suspended: { kind: 'boolean' },
      'live-api': { kind: 'boolean' },
      'amount-mode': { kind: 'boolean' },
      'tax-calculation': { kind: 'boolean' },
      subscriptions: { kind: 'boolean' },
      'tax-mode': { kind: 'string' },
      'fee-percent': { kind: 'string' },
      'fee-fixed': { kind: 'string' },
      name: { kind: 'string' },
      'logo-url': { kind: 'url' },
      'terms-url': { kind: 'url' },
      'privacy-url': { kind: 'url' },
      language: { kind: 'string' },
    },
    run: (client, flags) => {
      if (Object.keys(flags).length === 1) throw new UsageError('store:update needs at least one flag to change.');
      const language = flags.language as DocumentLanguage | undefined;
      if (language !== undefined && !DOCUMENT_LANGUAGES.includes(language)) throw new UsageError(`--language takes ${DOCUMENT_LANGUAGES.join(' or ')}, not "${language}".`);
      return client.store.update.mutate({
        id: text(flags.id),
        suspended: bool(flags.suspended),
        liveApi: bool(flags['live-api']),
        amountMode: bool(flags['amount-mode']),
        taxCalculation: bool(flags['tax-calculation']),
        subscriptions: bool(flags.subscriptions),
        taxMode: taxMode(flags['tax-mode']),
        // As typed: the service reads them exactly and says what is wrong with one.
        feePercent: flags['fee-percent'] as string | undefined,
        feeFixed: flags['fee-fixed'] as string | undefined,
        name: flags.name as string | undefined,
        logoUrl: flags['logo-url'] as string | undefined,
        termsUrl: flags['terms-url'] as string | undefined,
        privacyUrl: flags['privacy-url'] as string | undefined,
        language,
      });
    },
  },
  'store:list': {
    usage: 'store:list',
    flags: {},
    run: (client) => client.store.list.query(),
  },
  'keys:roll': {
    usage: 'keys:roll --store ID [--type sk_test|pk_test|sk_live|pk_live] [--expires-in SECONDS]',
    flags: { store: { kind: 'string', required: true }, type: { kind: 'string' }, 'expires-in': { kind: 'string' } },
    run: (client, flags) => {
      const type = flags.type as string | undefined;
      if (type !== undefined && !KEY_TYPE_NAMES.includes(type)) throw new UsageError(`--type takes ${KEY_TYPE_NAMES.join(', ')}, not "${type}".`);
      const expiresIn = flags['expires-in'] as string | undefined;
      if (expiresIn !== undefined && !/^[1-9]\d{0,9}$/.test(expiresIn)) throw new UsageError(`--expires-in takes a whole number of seconds, not "${expiresIn}".`);
      return client.keys.roll.mutate({
        store: text(flags.store),
        type: type as 'sk_test' | 'pk_test' | 'sk_live' | 'pk_live' | undefined,
        expiresIn: expiresIn === undefined ? undefined : Number(expiresIn),
      });
    },
  },
  'product:attach-license': {
    usage: 'product:attach-license --id PRODUCT_ID',
    flags: { id: { kind: 'string', required: true } },
    run: (client, flags) => client.product.attachLicense.mutate({ id: text(flags.id) }),
  },
  'product:attach-file': {
    usage: 'product:attach-file --id PRODUCT_ID --url URL',
    flags: { id: { kind: 'string', required: true }, url: { kind: 'string', required: true } },
    run: (client, flags) => client.product.attachFile.mutate({ id: text(flags.id), url: text(flags.url) }),
  },
  'ledger:adjust': {
    usage: 'ledger:adjust --store ID --env live|test --amount CENTS --reason TEXT [--idempotency-key KEY]',
    flags: {
      store: { kind: 'string', required: true },
      env: { kind: 'string', required: true },
      amount: { kind: 'string', required: true },
      reason: { kind: 'string', required: true },
      'idempotency-key': { kind: 'string' },
    },
    run: (client, flags) => {
      const env = text(flags.env);
      if (env !== 'live' && env !== 'test') throw new UsageError(`--env takes live or test, not "${env}".`);
      const amount = text(flags.amount);
      if (!/^-?\d{1,10}$/.test(amount)) throw new UsageError(`--amount takes whole cents, negative to take money from the store, not "${amount}".`);
      return client.ledger.adjust.mutate({
        store: text(flags.store),
        env,
        amount: Number(amount),
        reason: text(flags.reason),
        idempotencyKey: flags['idempotency-key'] as string | undefined,
      });
    },
  },
  'ledger:verify': {
    usage: 'ledger:verify [--store ID]   (exit 1 when anything does not add up)',
    flags: { store: { kind: 'string' } },
    run: (client, flags) => client.ledger.verify.query({ store: flags.store as string | undefined }),
    problems: (result) => {
      const verification = result as Awaited<ReturnType<AdminClient['ledger']['verify']['query']>>;
      if (verification.ok) return [];
      return verification.mismatches.map(
        (mismatch) =>
          `Mismatch ${mismatch.check}: ${mismatch.object_id} (store ${mismatch.store}, ${mismatch.livemode ? 'live' : 'test'}): expected ${JSON.stringify(mismatch.expected)}, actual ${JSON.stringify(mismatch.actual)}`,
      );
    },
  },
  'payouts:mark-paid': {
    usage: 'payouts:mark-paid --id PAYOUT_ID   (in_transit → paid)',
    flags: { id: { kind: 'string', required: true } },
    run: (client, flags) => client.payout.markPaid.mutate({ id: text(flags.id) }),
  },
  'payouts:mark-failed': {
    usage: 'payouts:mark-failed --id PAYOUT_ID --reason account_closed|invalid_account|name_mismatch|bank_rejected   (in_transit or paid → failed)',
    flags: { id: { kind: 'string', required: true }, reason: { kind: 'string', required: true } },
    run: (client, flags) => {
      const reason = text(flags.reason);
      if (!PAYOUT_FAILURE_REASONS.includes(reason as PayoutFailureReason)) throw new UsageError(`--reason takes ${PAYOUT_FAILURE_REASONS.join(', ')}, not "${reason}".`);
      return client.payout.markFailed.mutate({ id: text(flags.id), reason: reason as PayoutFailureReason });
    },
  },
  'payouts:cancel': {
    usage: 'payouts:cancel --id PAYOUT_ID   (pending → canceled)',
    flags: { id: { kind: 'string', required: true } },
    run: (client, flags) => client.payout.cancel.mutate({ id: text(flags.id) }),
  },
  'payouts:export': {
    usage:
      'payouts:export --date YYYY-MM-DD [--out FILE]   (every live pending payout in one SEPA file, default ./<message id>.xml; they turn in_transit)\n  payouts:export --message-id ID [--out FILE]   (a file made before, again byte for byte)',
    flags: { date: { kind: 'string' }, 'message-id': { kind: 'string' }, out: { kind: 'string' } },
    run: async (client, flags, io) => {
      const date = flags.date as string | undefined;
      const messageId = flags['message-id'] as string | undefined;
      if ((date === undefined) === (messageId === undefined)) throw new UsageError('payouts:export takes either --date YYYY-MM-DD (a new file) or --message-id ID (a file made before).');
      const { document, ...exported } = date !== undefined ? await client.payout.export.mutate({ date }) : await client.payout.readExport.query({ messageId: messageId! });
      if (document === null) return { file: null, ...exported };
      const file = path.resolve(io.cwd, (flags.out as string | undefined) ?? `${exported.message_id}.xml`);
      try {
        await writeFile(file, document);
      } catch (error) {
        throw new Error(
          `${exported.message_id} is recorded, but ${file} could not be written (${(error as Error).message}): write it with payouts:export --message-id ${exported.message_id} --out FILE.`,
        );
      }
      return { file, ...exported };
    },
  },
  'disputes:create': {
    usage:
      'disputes:create --order ORDER_ID --reason fraudulent|product_not_received|duplicate|subscription_canceled|unrecognized|general [--amount CENTS] [--evidence-due-by EPOCH_SECONDS]   (amount: what remains unrefunded; deadline: 7 days)',
    flags: { order: { kind: 'string', required: true }, reason: { kind: 'string', required: true }, amount: { kind: 'string' }, 'evidence-due-by': { kind: 'string' } },
    run: (client, flags) => {
      const reason = text(flags.reason);
      if (!DISPUTE_REASONS.includes(reason as DisputeReason)) throw new UsageError(`--reason takes ${DISPUTE_REASONS.join(', ')}, not "${reason}".`);
      const amount = flags.amount as string | undefined;
      if (amount !== undefined && !/^\d{1,10}$/.test(amount)) throw new UsageError(`--amount takes whole cents, not "${amount}".`);
      const dueBy = flags['evidence-due-by'] as string | undefined;
      if (dueBy !== undefined && !/^\d{1,12}$/.test(dueBy)) throw new UsageError(`--evidence-due-by takes a time in epoch seconds, not "${dueBy}".`);
      return client.dispute.create.mutate({
        order: text(flags.order),
        reason: reason as DisputeReason,
        amount: amount === undefined ? undefined : Number(amount),
        evidenceDueBy: dueBy === undefined ? undefined : Number(dueBy),
      });
    },
  },
  'disputes:close': {
    usage: 'disputes:close --id DISPUTE_ID --outcome won|lost',
    flags: { id: { kind: 'string', required: true }, outcome: { kind: 'string', required: true } },
    run: (client, flags) => {
      const outcome = text(flags.outcome);
      if (outcome !== 'won' && outcome !== 'lost') throw new UsageError(`--outcome takes won or lost, not "${outcome}".`);
      return client.dispute.close.mutate({ id: text(flags.id), outcome });
    },
  },
  'disputes:list': {
    usage: 'disputes:list [--status needs_response|under_review|won|lost]   (every store, both modes, newest first)',
    flags: { status: { kind: 'string' } },
    run: (client, flags) => {
      const status = flags.status as string | undefined;
      if (status !== undefined && !DISPUTE_STATUSES.includes(status as DisputeStatus)) throw new UsageError(`--status takes ${DISPUTE_STATUSES.join(', ')}, not "${status}".`);
      return client.dispute.list.query({ status: status as DisputeStatus | undefined });
    },
  },
  'disputes:evidence': {
    usage: 'disputes:evidence --id DISPUTE_ID --out FILE   (the evidence pack, a PDF)',
    flags: { id: { kind: 'string', required: true }, out: { kind: 'string', required: true } },
    run: async (client, flags, io) => {
      const pack = await client.dispute.evidence.query({ id: text(flags.id) });
      const content = Buffer.from(pack.content_base64, 'base64');
      const file = path.resolve(io.cwd, text(flags.out));
      await writeFile(file, content);
      return { file, size: content.length };
    },
  },
  'cancellation:list': {
    usage: 'cancellation:list [--email EMAIL]   (the declarations of the cancel page, matched or not, newest first)',
    flags: { email: { kind: 'string' } },
    run: (client, flags) => {
      const email = flags.email as string | undefined;
      if (email !== undefined && !isEmailAddress(email.trim())) throw new UsageError(`parameter_invalid: --email takes an e-mail address, not "${email}".`);
      return client.cancellation.list.query({ email });
    },
  },
  'tax:oss-report': {
    usage: 'tax:oss-report --quarter YYYY-Qn [--livemode true|false] [--store ID] [--format json|csv]   (the One-Stop-Shop return data of a quarter; default: live, every store, JSON)',
    flags: { quarter: { kind: 'string', required: true }, livemode: { kind: 'boolean' }, store: { kind: 'string' }, format: { kind: 'string' } },
    run: (client, flags) => {
      const quarter = text(flags.quarter);
      if (!QUARTER_PATTERN.test(quarter)) throw new UsageError(`parameter_invalid: --quarter takes a quarter as YYYY-Qn, n from 1 to 4, such as 2026-Q3, not "${quarter}".`);
      const format = flags.format as string | undefined;
      if (format !== undefined && format !== 'json' && format !== 'csv') throw new UsageError(`parameter_invalid: --format takes json or csv, not "${format}".`);
      return client.tax.ossReport.query({ quarter, livemode: bool(flags.livemode), store: flags.store as string | undefined });
    },
    print: (result, flags) => (flags.format === 'csv' ? ossReportCsv(result as OssReport) : undefined),
  },
  'user:invite': {
    usage: 'user:invite --store ID --email EMAIL --role owner|admin|developer|support|viewer',
    flags: { store: { kind: 'string', required: true }, email: { kind: 'string', required: true }, role: { kind: 'string', required: true } },
    run: (client, flags) => client.user.invite.mutate({ store: text(flags.store), email: text(flags.email), role: text(flags.role) as MemberRole }),
  },
  'user:reset': {
    usage: 'user:reset --email EMAIL [--clear-two-factor]',
    flags: { email: { kind: 'string', required: true }, 'clear-two-factor': { kind: 'boolean' } },
    run: (client, flags) => client.user.reset.mutate({ email: text(flags.email), clearTwoFactor: bool(flags['clear-two-factor']) }),
  },
};

function usage(): string {
  return ['Usage: npm run admin -- <command> [--flag value]', '', 'Commands:', ...Object.values(COMMANDS).map((c) => `  ${c.usage}`)].join('\n');
}

/** `--flag value` or `--flag=value`; a boolean flag alone means true. */
function parseFlags(command: string, spec: Command, args: string[]): FlagValues {
  const values: FlagValues = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const match = /^--([a-z][a-z-]*)(?:=(.*))?$/s.exec(arg);
    if (!match) throw new UsageError(`Unexpected argument "${arg}". Usage: ${spec.usage}`);
    const name = match[1]!;
    const flag = spec.flags[name];
    if (!flag) throw new UsageError(`Unknown flag --${name} for ${command}. Usage: ${spec.usage}`);
    if (name in values) throw new UsageError(`--${name} is given twice.`);
    let value = match[2];
    const next = args[i + 1];
    if (value === undefined && next !== undefined && !next.startsWith('--')) {
      value = next;
      i++;
    }
    if (flag.kind === 'boolean') {
      if (value === undefined || value === 'true') values[name] = true;
      else if (value === 'false') values[name] = false;
      else throw new UsageError(`--${name} takes true or false, not "${value}".`);
    } else {
      if (value === undefined || (value === '' && flag.kind !== 'url')) throw new UsageError(`--${name} needs a value. Usage: ${spec.usage}`);
      values[name] = value;
    }
  }
  for (const [name, flag] of Object.entries(spec.flags)) {
    if (flag.required && values[name] === undefined) throw new UsageError(`--${name} is required. Usage: ${spec.usage}`);
  }
  return values;
}

/** ADMIN_TOKEN, else the token the service generated on its first start. */
async function readAdminToken(io: AdminIo): Promise<string> {
  if (io.env.ADMIN_TOKEN) return io.env.ADMIN_TOKEN;
  const file = path.resolve(io.cwd, io.env.DATA_DIR || '.data', ADMIN_TOKEN_FILE);
  try {
    const token = (await readFile(file, 'utf8')).trim();
    if (token) return token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  throw new Error(`No admin token: set ADMIN_TOKEN, or start the service once with \`npm start\` so that it writes ${file}.`);
}

/** Zod issues arrive as a JSON array in the message; one line per issue reads better. */
function describeMessage(message: string): string {
  try {
    const issues: unknown = JSON.parse(message);
    if (Array.isArray(issues)) {
      return issues.map((issue: { path?: unknown[]; message?: string }) => `${issue.path?.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`).join('; ');
    }
  } catch {
    // A plain message.
  }
  return message;
}

function describeFailure(error: unknown, serviceUrl: string): string {
  if (error instanceof TRPCClientError) {
    const data = error.data as { code?: string; httpStatus?: number } | undefined;
    if (data?.code === 'UNAUTHORIZED') {
      return `The service at ${serviceUrl} refused the admin token (401). Use the ADMIN_TOKEN it runs with, or unset ADMIN_TOKEN to use the token file of its data dir.`;
    }
    if (data?.code) return `${data.code} (${data.httpStatus}): ${describeMessage(error.message)}`;
    const cause = (error.cause as { cause?: { code?: string; message?: string } } | undefined)?.cause;
    if (cause?.code) {
      return `Cannot reach the service at ${serviceUrl} (${cause.code}). Is it running? Start it with \`npm start\`, or point SERVICE_URL at it.`;
    }
    return `Unexpected answer from ${serviceUrl}: ${error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}

export async function runAdmin(argv: string[], io: AdminIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stderr(`${usage()}\n`);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.stderr(`Unknown command "${name}".\n\n${usage()}\n`);
    return 2;
  }
  // Defaults to the local `npm start`, on the PORT it was started with.
  const serviceUrl = (io.env.SERVICE_URL || `http://127.0.0.1:${io.env.PORT || 3000}`).replace(/\/+$/, '');
  try {
    const flags = parseFlags(name, command, args);
    const token = await readAdminToken(io);
    const client = createTRPCClient<AdminRouter>({
      links: [httpLink({ url: `${serviceUrl}${ADMIN_ENDPOINT}`, headers: { authorization: `Bearer ${token}` } })],
    });
    const result = await command.run(client, flags, io);
    io.stdout(command.print?.(result, flags) ?? `${JSON.stringify(result, null, 2)}\n`);
    const problems = command.problems?.(result) ?? [];
    for (const problem of problems) io.stderr(`${problem}\n`);
    return problems.length > 0 ? 1 : 0;
  } catch (error) {
    io.stderr(`Error: ${describeFailure(error, serviceUrl)}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}
