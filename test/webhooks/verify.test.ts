import { execFile } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { verifyWebhook, WebhookVerificationError, type Event, type EventType } from '@payments-service/webhooks';
import { epochSeconds } from '@/server/clock';
import { DELIVERY_TIMEOUT_MS, deliverDueWebhooks } from '@/server/webhooks/delivery';
import type { EventType as RecordedEventType } from '@/server/webhooks/events';
import { signPayload } from '@/server/webhooks/secrets';
import { createStore } from '../support/factories';
import { ROOT, serviceEnv } from '../support/production-server';
import { createTestClock, useTestApi } from '../support/server';
import { createEndpoint, startReceiver, subscriptionLike, writeEvent } from './support';

const NOW = 1_800_000_000;
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const OTHER_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
const EVENT = {
  id: 'evt_test_0123456789abcdefghijABCD',
  object: 'event',
  type: 'product.created',
  created: NOW - 2,
  livemode: false,
  sequence: 1,
  data: { object: { id: 'prod_test_0123456789abcdefghijABCD', object: 'product', name: 'Ebook ✓' } },
};
const BODY = JSON.stringify(EVENT);

/** The headers the service sends for `body` signed with `secrets` at `timestamp`. */
function signed(body = BODY, { timestamp = NOW, secrets = [SECRET], id = EVENT.id } = {}) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => signPayload(secret, id, timestamp, body)).join(' '),
  };
}

/** What verifyWebhook threw (fails the test when it returned). */
function failure(...args: Parameters<typeof verifyWebhook>): WebhookVerificationError {
  try {
    verifyWebhook(...args);
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return error as WebhookVerificationError;
  }
  throw new Error('verifyWebhook accepted the message');
}

/** Both verifiers read Date.now(): a fixed clock keeps the tolerance edges exact. */
function atFixedTime() {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], now: NOW * 1000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
}

describe('verifyWebhook accepts exactly what the standardwebhooks library accepts', () => {
  atFixedTime();

  /** Seeded PRNG (mulberry32), so a failing case can be replayed. */
  function prng(seed: number) {
    let state = seed;
    const next = () => {
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    return {
      chance: (p: number) => next() < p,
      pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
      int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
      bytes: (length: number) => Buffer.from(Array.from({ length }, () => Math.floor(next() * 256))),
    };
  }

  type Case = { payload: string | Buffer; headers: Record<string, string>; secrets: string[]; label: string };

  /** A message as the service sends it, then on each part, now and then, one of the ways it goes wrong (or differs harmlessly). */
  function generate(random: ReturnType<typeof prng>): Case {
    const often = <T>(usual: T, others: readonly T[]): T => (random.chance(0.85) ? usual : random.pick(others));
    const key = random.bytes(random.int(1, 40)).toString('base64');
    const secret = often(`whsec_${key}`, [key, `whsec_${key.replace(/=+$/, '')}`, `whsec_${key}!`, `whsec_${key.slice(0, 3)}`, `whsec_${key}===`, `whsec_${key.replace(/[+/]/g, '-')}`, 'whsec_']);
    const signingKey = often(key, [random.bytes(32).toString('base64')]);
    const body = JSON.stringify({ ...EVENT, sequence: random.int(1, 99), data: { object: { id: `prod_test_${random.int(0, 1e9)}`, note: random.pick(['', 'é', '✓ "quoted"', '\\n']) } } });
    const sentBody = often(body, [body.replace('"sequence":', '"sequence": ')]);
    const payload = often<string | Buffer>(sentBody, [Buffer.from(sentBody), sentBody.replace('prod_test_', 'prod_test_1'), JSON.stringify(JSON.parse(sentBody), null, 2)]);
    const timestamp = NOW + often(random.int(-5, 5), [299, 300, 301, -299, -300, -301, random.int(-4000, 4000)]);
    const timestampText = often(String(timestamp), [` ${timestamp}`, `${timestamp}abc`, `0${timestamp}`, `${timestamp}.9`, 'soon', '']);
    // A signer that signs the header's text, or the number the library reads from it.
    const signedTimestamp = random.chance(0.5) ? timestampText : String(Number.parseInt(timestampText, 10));
    const id = often(EVENT.id, ['msg_2KWPBgLlAfxdpx2AI54pPJ85f4W', '']);
    const v1 = createHmac('sha256', Buffer.from(signingKey, 'base64')).update(`${id}.${signedTimestamp}.${sentBody}`).digest('base64');
    const signatureHeader = often(`v1,${v1}`, [
      `v1,${random.bytes(32).toString('base64')} v1,${v1}`,
      `v2,${v1}`,
      `v1,${v1},extra`,
      `v1,${v1.replace(/=+$/, '')}`,
      `v1,${v1}  v1,x`,
      `v1a,${v1}`,
      'v1',
      '',
    ]);
    const casing = (name: string) => random.pick([name, name.toUpperCase(), name.replace(/(^|-)w/g, (m) => m.toUpperCase())]);
    const headers: Record<string, string> = {};
    if (random.chance(0.97)) headers[casing('webhook-id')] = id;
    if (random.chance(0.97)) headers[casing('webhook-timestamp')] = timestampText;
    if (random.chance(0.97)) headers[casing('webhook-signature')] = signatureHeader;
    const secrets = random.chance(0.2) ? [`whsec_${random.bytes(24).toString('base64')}`, secret] : [secret];
    const label = JSON.stringify({ secret, signingKey, timestampText, signedTimestamp, signatureHeader, headers: Object.keys(headers), bytes: Buffer.isBuffer(payload), secrets: secrets.length });
    return { payload, headers, secrets, label };
  }

  it('on 3000 generated messages, accepting the same ones and returning the same event', () => {
    const random = prng(20240611);
    let accepted = 0;
    for (let i = 0; i < 3000; i++) {
      const { payload, headers, secrets, label } = generate(random);
      const library = (() => {
        for (const secret of secrets) {
          try {
            return { event: new Webhook(secret).verify(payload, headers) };
          } catch {
            // Try the next secret.
          }
        }
        return undefined;
      })();
      let ours: { event: unknown } | undefined;
      try {
        ours = { event: verifyWebhook(payload, headers, secrets) };
      } catch (error) {
        expect(error, label).toBeInstanceOf(WebhookVerificationError);
      }
      expect(ours, `case ${i}: ${label}`).toEqual(library);
      if (ours) accepted++;
    }
    // Both outcomes are well represented, so the comparison means something.
    expect(accepted).toBeGreaterThan(600);
    expect(accepted).toBeLessThan(2400);
  });
});

describe('verifyWebhook', () => {
  atFixedTime();

  it('returns the parsed event, from a string, bytes, a Headers object, any header case, a secret without its prefix', () => {
    expect(verifyWebhook(BODY, signed(), SECRET)).toEqual(EVENT);
    expect(verifyWebhook(Buffer.from(BODY), signed(), SECRET)).toEqual(EVENT);
    expect(verifyWebhook(new TextEncoder().encode(BODY), new Headers(signed()), SECRET)).toEqual(EVENT);
    const shouted = Object.fromEntries(Object.entries(signed()).map(([name, value]) => [name.toUpperCase(), value]));
    expect(verifyWebhook(BODY, shouted, SECRET.slice('whsec_'.length))).toEqual(EVENT);
  });

  it('while a secret is rolled: either of two secrets, and a header with both signatures', () => {
    expect(verifyWebhook(BODY, signed(BODY, { secrets: [OTHER_SECRET] }), [SECRET, OTHER_SECRET])).toEqual(EVENT);
    expect(verifyWebhook(BODY, signed(BODY, { secrets: [OTHER_SECRET, SECRET] }), SECRET)).toEqual(EVENT);
  });

  it('types the event by its type', () => {
    const event = verifyWebhook(BODY, signed(), SECRET);
    if (event.type === 'product.created') expectTypeOf(event).toEqualTypeOf<Event<'product.created'>>();
    expectTypeOf(event.data.object.id).toEqualTypeOf<string>();
    // data.object is the object of its type, as the API answers it.
    if (event.type === 'order.paid') expectTypeOf(event.data.object.license_keys).toEqualTypeOf<string[]>();
    if (event.type === 'product.deleted') expectTypeOf(event.data.object.deleted).toEqualTypeOf<true>();
    // The package's list of types is the service's.
    expectTypeOf<EventType>().toEqualTypeOf<RecordedEventType>();
  });

  it('payload_not_raw: a parsed body', () => {
    const error = failure(EVENT as never, signed(), SECRET);
    expect(error).toMatchObject({ name: 'WebhookVerificationError', reason: 'payload_not_raw' });
    expect(error.message).toMatch(/not the raw body.*before any JSON parsing/);
  });

  it('missing_header: names the header, also when it is empty', () => {
    for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [header]: _omitted, ...rest } = signed();
      expect(failure(BODY, rest, SECRET)).toMatchObject({ reason: 'missing_header', header, message: expect.stringContaining(`The ${header} header is missing`) });
      expect(failure(BODY, { ...signed(), [header]: '' }, SECRET)).toMatchObject({ reason: 'missing_header', header });
    }
  });

  it('invalid_timestamp: not a number', () => {
    const error = failure(BODY, { ...signed(), 'webhook-timestamp': 'yesterday' }, SECRET);
    expect(error).toMatchObject({ reason: 'invalid_timestamp', message: expect.stringContaining('"yesterday" is not a number of seconds') });
  });

  it('timestamp_outside_tolerance: 300 s either way by default, skewSeconds = now − timestamp; toleranceSeconds widens it', () => {
    expect(verifyWebhook(BODY, signed(BODY, { timestamp: NOW - 300 }), SECRET)).toEqual(EVENT);
    expect(verifyWebhook(BODY, signed(BODY, { timestamp: NOW + 300 }), SECRET)).toEqual(EVENT);
    const old = failure(BODY, signed(BODY, { timestamp: NOW - 301 }), SECRET);
    expect(old).toMatchObject({ reason: 'timestamp_outside_tolerance', skewSeconds: 301, message: expect.stringContaining('301 s old, beyond the tolerance of 300 s') });
    const future = failure(BODY, signed(BODY, { timestamp: NOW + 400 }), SECRET);
    expect(future).toMatchObject({ reason: 'timestamp_outside_tolerance', skewSeconds: -400, message: expect.stringContaining('400 s in the future') });
    expect(verifyWebhook(BODY, signed(BODY, { timestamp: NOW - 600 }), SECRET, { toleranceSeconds: 900 })).toEqual(EVENT);
    expect(failure(BODY, signed(BODY, { timestamp: NOW - 60 }), SECRET, { toleranceSeconds: 30 })).toMatchObject({ skewSeconds: 60 });
  });

  it('malformed_secret: not base64, empty, none at all', () => {
    for (const secret of ['whsec_not base64!', 'whsec_', 'whsec_ab', '']) {
      expect(failure(BODY, signed(), secret)).toMatchObject({ reason: 'malformed_secret', message: expect.stringContaining('exactly as the API returned it') });
    }
    expect(failure(BODY, signed(), [])).toMatchObject({ reason: 'malformed_secret' });
    expect(failure(BODY, signed(), [SECRET, 'whsec_%%%%'])).toMatchObject({ reason: 'malformed_secret' });
  });

  it('no_matching_signature: another secret, a changed body or id, only other versions', () => {
    const cases: [string, Record<string, string>, string][] = [
      [BODY, signed(), OTHER_SECRET],
      [BODY.replace('Ebook', 'Ebooc'), signed(), SECRET],
      [BODY, { ...signed(), 'webhook-id': 'evt_test_other' }, SECRET],
      [BODY, { ...signed(), 'webhook-signature': signed()['webhook-signature'].replace('v1,', 'v2,') }, SECRET],
    ];
    for (const [body, headers, secret] of cases) {
      const error = failure(body, headers, secret);
      expect(error).toMatchObject({ reason: 'no_matching_signature', message: expect.stringContaining('check that the secret is the one of this endpoint') });
      expect(error.bodyReformatted).toBeUndefined();
    }
  });

  it('bodyReformatted: the body was pretty-printed or re-spaced after it arrived', () => {
    for (const reformatted of [JSON.stringify(EVENT, null, 2), BODY.replaceAll(',"', ', "'), `${BODY}\n`]) {
      const error = failure(reformatted, signed(), SECRET);
      expect(error).toMatchObject({ reason: 'no_matching_signature', bodyReformatted: true, message: expect.stringContaining('re-formatted after it arrived') });
    }
    // Re-formatted and signed with another secret: nothing to say about the formatting.
    expect(failure(JSON.stringify(EVENT, null, 2), signed(), OTHER_SECRET).bodyReformatted).toBeUndefined();
  });
});

describe('a webhook the service delivered', () => {
  const api = useTestApi();

  it('verifies with the endpoint secret and returns the event delivered', async () => {
    const receiver = await startReceiver();
    try {
      const store = await createStore(api.services);
      const endpoint = await createEndpoint(api, store.keys.sk_test, { url: receiver.url });
      const wall = createTestClock(new Date(epochSeconds(new Date()) * 1000));
      const event = await writeEvent(api, store, { type: 'subscription.created', object: subscriptionLike(), wallNow: wall.now() });
      expect(await deliverDueWebhooks({ db: api.services.db, clock: wall, config: api.services.config, timeoutMs: DELIVERY_TIMEOUT_MS })).toBe(1);
      const [webhook] = receiver.received;
      expect(verifyWebhook(webhook!.body, webhook!.headers, endpoint.secret)).toEqual(event);
      expect(verifyWebhook(Buffer.from(webhook!.body), new Headers(webhook!.headers), endpoint.secret)).toEqual(event);
      expect(() => verifyWebhook(webhook!.body, webhook!.headers, OTHER_SECRET)).toThrow(WebhookVerificationError);
    } finally {
      await receiver.close();
    }
  });
});

describe('the package export', () => {
  it('plain node imports @payments-service/webhooks from a checkout (its workspace link), without a build, and verifies a message', async () => {
    const timestamp = epochSeconds(new Date());
    const script = `
      import { verifyWebhook, WebhookVerificationError } from '@payments-service/webhooks';
      const { body, headers, secret } = JSON.parse(process.env.MESSAGE);
      const event = verifyWebhook(body, headers, secret);
      let reason;
      try { verifyWebhook(body + ' ', headers, secret); } catch (error) { reason = error instanceof WebhookVerificationError && error.reason; }
      console.log(JSON.stringify({ event, reason }));
    `;
    const message = { body: BODY, headers: signed(BODY, { timestamp }), secret: SECRET };
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, env: serviceEnv({ MESSAGE: JSON.stringify(message) }) });
    expect(JSON.parse(stdout)).toEqual({ event: EVENT, reason: 'no_matching_signature' });
  });
});
