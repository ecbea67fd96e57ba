/**
 * The webhook verifier as a receiver gets it: `npm pack` of packages/webhooks, the tarball installed
 * offline into a scratch project outside the repository, then used from plain Node on a message
 * signed by the service's signing code, and type-checked there under `moduleResolution: nodenext`
 * with the package's declarations checked too (skipLibCheck off): a file missing from `files`, or a
 * type reaching outside the package, fails here.
 *
 * Packed without its prepack, which is `npm run trpc:types` (half a minute of TypeScript): `npm
 * install` ran it already, and test/trpc/typed-client.test.ts runs it again.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { epochSeconds } from '@/server/clock';
import { signPayload } from '@/server/webhooks/secrets';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

/** A receiver's TypeScript: the event narrowed by `type`; the expected errors fail the check if the types were `any`. */
const RECEIVER_TS = `
import { verifyWebhook, WebhookVerificationError, type WebhookEvent } from '@payments-service/webhooks';

export function handle(rawBody: string, headers: Record<string, string>, secret: string): number | undefined {
  try {
    const event: WebhookEvent = verifyWebhook(rawBody, headers, secret);
    if (event.type === 'order.paid') return event.data.object.amount_total;
    // @ts-expect-error a product has no amount_total
    if (event.type === 'product.created') return event.data.object.amount_total;
    return undefined;
  } catch (error) {
    if (error instanceof WebhookVerificationError && error.reason === 'no_matching_signature') return -1;
    throw error;
  }
}

// @ts-expect-error the payload is the raw body, never a parsed object
verifyWebhook({}, {}, 'whsec_x');
`;

/** A receiver with nothing but Node: verifies the message, then the same message with one byte changed. */
const RECEIVER_JS = `
import { verifyWebhook, WebhookVerificationError } from '@payments-service/webhooks';
const { body, headers, secret } = JSON.parse(process.env.MESSAGE);
const event = verifyWebhook(body, headers, secret);
const tampered = body.replace('"amount_total":1900', '"amount_total":1');
let reason;
try { verifyWebhook(tampered, headers, secret); } catch (error) { reason = error instanceof WebhookVerificationError && error.reason; }
console.log(JSON.stringify({ event, tamperedChanged: tampered !== body, reason }));
`;

let scratch = '';
let tarball = '';
const receiver = () => path.join(scratch, 'receiver');

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'webhook-receiver-'));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('@payments-service/webhooks, packed and installed into a receiver', () => {
  it('npm pack packs the code, both declarations, the README and the manifest, nothing else', async () => {
    const directory = path.join(ROOT, 'packages/webhooks');
    expect(JSON.parse(await readFile(path.join(directory, 'package.json'), 'utf8')).scripts).toEqual({ prepack: 'cd ../.. && npm run --silent trpc:types' });
    const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch], { cwd: directory, maxBuffer: 16 * 1024 * 1024 });
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('[')));
    tarball = path.join(scratch, packed.filename);
    expect(packed.name).toBe('@payments-service/webhooks');
    expect(packed.files.map((file: { path: string }) => file.path).sort()).toEqual(['README.md', 'events.d.ts', 'index.d.ts', 'index.js', 'package.json']);
  }, 60_000);

  it('installs offline with no dependency of its own, outside the repository', async () => {
    await mkdir(receiver());
    await writeFile(
      path.join(receiver(), 'package.json'),
      JSON.stringify({ name: 'webhook-receiver', private: true, type: 'module', dependencies: { '@payments-service/webhooks': `file:${tarball}` } }, null, 2),
    );
    await run('npm', ['install', '--offline', '--no-audit', '--no-fund'], { cwd: receiver() });
    const installed = path.join(receiver(), 'node_modules/@payments-service/webhooks');
    const manifest = JSON.parse(await readFile(path.join(installed, 'package.json'), 'utf8'));
    expect(manifest.dependencies).toBeUndefined();
    expect((await readdir(installed)).sort()).toEqual(['README.md', 'events.d.ts', 'index.d.ts', 'index.js', 'package.json']);
    expect((await readdir(path.join(receiver(), 'node_modules'))).filter((name) => !name.startsWith('.'))).toEqual(['@payments-service']);
  }, 60_000);

  it('plain Node verifies a message signed by the service and rejects it with one byte changed', async () => {
    const event = {
      id: 'evt_test_0123456789abcdefghijABCD',
      object: 'event',
      type: 'order.paid',
      created: epochSeconds(new Date()),
      livemode: false,
      sequence: 1,
      data: { object: { id: 'ord_test_0123456789abcdefghijABCD', object: 'order', status: 'paid', currency: 'eur', amount_total: 1900 } },
    };
    const body = JSON.stringify(event);
    const timestamp = epochSeconds(new Date());
    const headers = { 'webhook-id': event.id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signPayload(SECRET, event.id, timestamp, body) };
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', RECEIVER_JS], {
      cwd: receiver(),
      env: { ...process.env, MESSAGE: JSON.stringify({ body, headers, secret: SECRET }) },
    });
    expect(JSON.parse(stdout)).toEqual({ event, tamperedChanged: true, reason: 'no_matching_signature' });
  });

  it('type-checks a TypeScript receiver under moduleResolution nodenext, the package’s declarations included', async () => {
    await writeFile(path.join(receiver(), 'receiver.ts'), RECEIVER_TS);
    await writeFile(
      path.join(receiver(), 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], strict: true, noEmit: true, skipLibCheck: false, types: [] },
        files: ['receiver.ts'],
      }),
    );
    const checked = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: receiver() }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );
    expect(checked).toBe('');
  }, 60_000);
});
