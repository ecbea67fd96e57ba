import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { callService, freePort, groupAlive, ROOT, serviceEnv, serviceStorage, START_TIMEOUT_MS, startService, stopService, type Service } from '../support/production-server';

/**
 * The README and its pages in docs/, followed as a newcomer would, against the real `npm start`:
 * each code block run as written, with only the printed key and the ports filled in. The quick
 * start, the four checkout steps (paid on the hosted page as a customer would), the webhook
 * endpoint, the receiver with nothing but Node fed by `npm run listen`, and the customer portal
 * link for the buyer.
 */
const PAGES = ['README.md', 'docs/webhooks.md', 'docs/customer-portal.md'] as const;
const pages = {} as Record<(typeof PAGES)[number], string>;
let port = 0;
let receiverPort = 0;
let service: Service;
let cleanupStorage: () => Promise<void> = async () => {};
let listenState = '';
let sk = '';
const processes: { child: ChildProcess; output: () => string }[] = [];
/** What the four steps made, for the sections after them. */
const checkout = { sessionId: '', orderId: '' };

/** The first fenced block of `lang` after `marker` (a heading, a line) in `page`, as written. */
function codeBlock(page: (typeof PAGES)[number], marker: string, lang: string): string {
  const text = pages[page];
  const at = text.indexOf(marker);
  expect(at, `${page}: ${marker}`).toBeGreaterThanOrEqual(0);
  const fence = '```';
  return new RegExp(`${fence}${lang}\\n([\\s\\S]*?)${fence}`).exec(text.slice(at))![1]!;
}

/** A block of the docs with the printed key and this run's ports in place of the documented ones. */
const filled = (block: string) => block.replaceAll('sk_test_...', sk).replaceAll('localhost:3000', `127.0.0.1:${port}`).replaceAll('localhost:4000', `localhost:${receiverPort}`);

function bash(script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('bash', ['-euo', 'pipefail', '-c', script], { timeout: 30_000, env: { ...process.env, SK: sk } }, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

/** A long-running command of the docs, in a process group of its own. */
function start(command: string, args: string[], env: Record<string, string>) {
  const child = spawn(command, args, { cwd: ROOT, env: serviceEnv(env), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const started = { child, output: () => output };
  processes.push(started);
  return started;
}

beforeAll(async () => {
  for (const page of PAGES) pages[page] = await readFile(path.join(ROOT, page), 'utf8');
  [port, receiverPort] = [await freePort(), await freePort()];
  listenState = await mkdtemp(path.join(tmpdir(), 'readme-listen-'));
  const storage = await serviceStorage('readme', { fresh: true });
  cleanupStorage = storage.cleanup;
  service = await startService(serviceEnv({ ...storage.env, PORT: String(port) }));
  sk = /^ {2}sk_test {2}(\S+)$/m.exec(service.output())![1]!;
}, START_TIMEOUT_MS + 30_000);

afterAll(async () => {
  for (const { child } of processes) {
    if (child.pid && groupAlive(child.pid)) process.kill(-child.pid, 'SIGTERM');
  }
  if (service) await stopService(service);
  await cleanupStorage();
  await rm(listenState, { recursive: true, force: true });
}, 60_000);

describe('the README and its pages, as written', () => {
  it('Quick start: creates and lists a product', async () => {
    const script = codeBlock('README.md', '## Quick start\n', 'sh');
    expect(script.trim().split('\n')).toHaveLength(5);
    const output = await bash(filled(script));
    const [created, listed] = output.split(/(?<=\})(?=\{"object":"list")/).map((part) => JSON.parse(part));
    expect(created).toMatchObject({ object: 'product', name: 'Ebook: Payments in practice', amount: 1999, amount_decimal: '19.99', tax_rate: 19 });
    expect(listed.object).toBe('list');
    expect(listed.data.map((product: { id: string }) => product.id)[0]).toBe(created.id);
  });

  it('Webhooks: the endpoint is answered as the comment shows, field for field', async () => {
    const block = codeBlock('docs/webhooks.md', '## Webhooks\n', 'sh');
    const [command, comment] = block.split(/\n(?=# →)/);
    const created = JSON.parse(await bash(filled(command!)));
    const documented = [...comment!.matchAll(/"(\w+)":/g)].map((match) => match[1]);
    expect(Object.keys(created)).toEqual(documented);
    expect(created).toMatchObject({
      id: expect.stringMatching(/^we_test_/),
      object: 'webhook_endpoint',
      url: 'https://shop.example.com/webhooks',
      events: ['subscription.created', 'subscription.canceled'],
      livemode: false,
      disabled: false,
      previous_secret_expires_at: null,
      secret: expect.stringMatching(/^whsec_/),
    });
  });

  it('Receiving events on your laptop: `npm run listen` forwards to the receiver with nothing but Node, which verifies with its secret', async () => {
    const listenCommand = filled(codeBlock('docs/webhooks.md', '### Receiving events on your laptop', 'sh')).split('\n')[0]!;
    expect(listenCommand).toBe(`npm run listen -- --forward-to http://localhost:${receiverPort}/webhooks --api-key "$SK"`);
    const listen = start('bash', ['-c', listenCommand], { SK: sk, SERVICE_URL: `http://127.0.0.1:${port}`, LISTEN_STATE_DIR: listenState });
    await vi.waitFor(() => expect(listen.output()).toMatch(/Ready.*whsec_/), { timeout: 60_000, interval: 100 });
    const secret = /(whsec_[A-Za-z0-9+/=]+)/.exec(listen.output())![1]!;

    // The receiver as docs/webhooks.md writes it, on this run's port; handling an event prints it.
    const receiver = codeBlock('docs/webhooks.md', 'A receiver with nothing but Node:', 'js').replace('.listen(4000)', `.listen(${receiverPort})`);
    const handlers = `
const handled = new Set();
function alreadyHandled(id) { return handled.has(id); }
function handle(event) { handled.add(event.id); console.log(JSON.stringify({ type: event.type, object: event.data.object.id })); }
`;
    const node = start(process.execPath, ['--input-type=module', '-e', `${receiver}\n${handlers}`], { WEBHOOK_SECRET: secret });
    // Listening: a request without a signature is refused (400), not a connection error.
    await vi.waitFor(async () => expect((await fetch(`http://127.0.0.1:${receiverPort}/webhooks`, { method: 'POST', body: '{}' })).status, node.output()).toBe(400), {
      timeout: 30_000,
      interval: 200,
    });
  }, 120_000);

  it('Selling: checkout in four steps, the customer paying on the hosted page; a repeat with the same Idempotency-Key replays the session', async () => {
    const script = filled(codeBlock('README.md', '## Selling: checkout in four steps\n', 'sh'));
    // 1. Your server creates a session and sends the customer to its url.
    const session = JSON.parse(await bash(script));
    expect(session).toMatchObject({ object: 'checkout.session', status: 'open', payment_status: 'unpaid', success_url: 'https://example.com/thanks', cancel_url: 'https://example.com/cart' });
    const replay = JSON.parse(await bash(script));
    expect(replay).toEqual(session);
    // 2. The customer pays on the hosted page with the approved test card.
    const link = new URL(session.url);
    const paid = await fetch(`http://127.0.0.1:${port}${link.pathname}/pay${link.search}`, {
      method: 'POST',
      body: new URLSearchParams({ email: 'ada@example.com', card_number: '4242 4242 4242 4242', expiry: '12/34', cvc: '123' }),
      redirect: 'manual',
    });
    // 3. …and lands on the success_url with session_id appended.
    expect(paid.status).toBe(303);
    expect(paid.headers.get('location')).toBe(`https://example.com/thanks?session_id=${session.id}`);
    // 4. Your server fetches the session and fulfils when complete and paid.
    const read = await callService(`http://127.0.0.1:${port}`, sk, 'GET', `/api/v1/checkout/sessions/${session.id}`);
    expect(read.body).toMatchObject({ id: session.id, status: 'complete', payment_status: 'paid', amount_total: 2379, amount_tax: 380 });
    Object.assign(checkout, { sessionId: session.id, orderId: session.order_id });
  });

  it('…and the receiver handled the payment’s events, each forwarded once by npm run listen and answered 200', async () => {
    const [listen, node] = processes.slice(-2);
    await vi.waitFor(
      () => {
        expect(node!.output()).toContain(JSON.stringify({ type: 'checkout.session.completed', object: checkout.sessionId }));
        expect(node!.output()).toContain(JSON.stringify({ type: 'order.paid', object: checkout.orderId }));
      },
      { timeout: 30_000, interval: 200 },
    );
    const forwarded = listen!
      .output()
      .split('\n')
      .filter((line) => /evt_test_\w+ {2}→/.test(line));
    expect(forwarded.filter((line) => /order\.paid/.test(line))).toHaveLength(1);
    for (const line of forwarded) expect(line).toMatch(/→ 200$/);
  }, 60_000);

  it('Customer portal: a link for the buyer’s e-mail, opened, shows their order and counts the view', async () => {
    const created = JSON.parse(await bash(filled(codeBlock('docs/customer-portal.md', '# Customer portal\n', 'sh'))));
    expect(created).toMatchObject({ object: 'portal.session', status: 'active', scope: 'customer', metadata: { ticket: 'T-1042' }, url: expect.stringMatching(/\/portal\/[\w-]{43}$/) });
    const page = await fetch(created.url.replace(/^https?:\/\/[^/]+/, `http://127.0.0.1:${port}`));
    expect(page.status).toBe(200);
    expect(page.headers.get('x-robots-tag')).toBe('noindex, noarchive');
    const html = await page.text();
    expect(html).toContain('Ebook: Payments in practice');
    expect(html).toContain(checkout.orderId);
    const read = await callService(`http://127.0.0.1:${port}`, sk, 'GET', `/api/v1/portal/sessions/${created.id}`);
    expect(read.body).toMatchObject({ id: created.id, access_count: 1, status: 'active' });
    expect(read.body.url).toBeUndefined();
  });
});
