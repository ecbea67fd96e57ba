/**
 * `@payments-service/webhooks`: checks a webhook of the service (Standard Webhooks) and returns its
 * event. Plain JavaScript on `node:crypto` alone, with a hand-written `index.d.ts` (the event
 * objects' types in `events.d.ts`, generated from the router): no build step, no dependency. It
 * accepts exactly what the `standardwebhooks` library accepts, quirks included (lenient `parseInt`
 * timestamps, its base64 rules for secrets), and says which check failed.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

const DEFAULT_TOLERANCE_SECONDS = 5 * 60;
const SECRET_PREFIX = 'whsec_';
const BASE64_CHAR = /^[A-Za-z0-9+/]$/;

export class WebhookVerificationError extends Error {
  constructor(reason, message, details = {}) {
    super(message);
    this.name = 'WebhookVerificationError';
    this.reason = reason;
    Object.assign(this, details);
  }
}

/**
 * The HMAC key of a `whsec_<base64>` secret (the prefix is optional). The library's base64 decoder
 * wants 4 characters at least and 2 `=` at most, ignores a lone last character, and refuses any
 * other character outside the alphabet.
 */
function decodeSecret(secret) {
  const fix = 'Use the endpoint secret exactly as the API returned it (`whsec_` followed by base64).';
  if (typeof secret !== 'string') throw new WebhookVerificationError('malformed_secret', `The secret must be a string, not ${typeof secret}. ${fix}`);
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (encoded === '') throw new WebhookVerificationError('malformed_secret', `The secret is empty. ${fix}`);
  const padding = encoded.length - encoded.replace(/=+$/, '').length;
  const length = encoded.length - padding;
  const used = encoded.slice(0, length % 4 === 1 ? length - 1 : length);
  if (encoded.length < 4 || padding > 2 || ![...used].every((char) => BASE64_CHAR.test(char))) {
    throw new WebhookVerificationError('malformed_secret', `The secret is not valid base64. ${fix}`);
  }
  return Buffer.from(used, 'base64');
}

/** Header names in any case; from a plain object the last of several spellings wins. */
function readHeaders(headers) {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) {
    return (name) => headers.get(name) ?? undefined;
  }
  const normalized = {};
  for (const name of Object.keys(headers ?? {})) normalized[name.toLowerCase()] = headers[name];
  return (name) => {
    const value = normalized[name];
    return value == null ? undefined : Array.isArray(value) ? value.join(', ') : String(value);
  };
}

function requireHeader(read, name) {
  const value = read(name);
  if (!value) {
    throw new WebhookVerificationError('missing_header', `The ${name} header is missing or empty. Pass the request's headers as they arrived (a Headers object or a plain object).`, {
      header: name,
    });
  }
  return value;
}

function rawPayload(payload) {
  if (typeof payload === 'string') return payload;
  // As the library reads a Buffer: UTF-8, a leading BOM kept, invalid sequences replaced.
  if (payload instanceof Uint8Array || payload instanceof ArrayBuffer) return Buffer.from(payload).toString('utf8');
  throw new WebhookVerificationError(
    'payload_not_raw',
    `The payload is ${payload === null ? 'null' : typeof payload}, not the raw body: the signature covers the exact bytes received. Read the body as text or bytes (e.g. \`await request.text()\`, \`express.raw({ type: 'application/json' })\`) before any JSON parsing.`,
  );
}

const sign = (key, content) => createHmac('sha256', key).update(content).digest('base64');

/** Whether any `v1,<signature>` of the header is the HMAC of `content` under one of the keys (other versions are ignored). */
function signedWith(keys, signatures, content) {
  const expected = keys.map((key) => Buffer.from(sign(key, content)));
  return signatures.some((entry) => {
    const [version, signature = ''] = entry.split(',');
    if (version !== 'v1') return false;
    const presented = Buffer.from(signature);
    return expected.some((candidate) => candidate.length === presented.length && timingSafeEqual(candidate, presented));
  });
}

/** The body a JSON parser and `JSON.stringify` would turn `payload` into, when that differs from it. */
function compactForm(payload) {
  try {
    const compact = JSON.stringify(JSON.parse(payload));
    return compact === payload ? undefined : compact;
  } catch {
    return undefined;
  }
}

export function verifyWebhook(payload, headers, secret, options = {}) {
  const body = rawPayload(payload);
  const secrets = Array.isArray(secret) ? secret : [secret];
  if (secrets.length === 0) throw new WebhookVerificationError('malformed_secret', 'No secret was given: pass the endpoint secret, or a list of secrets while one is being rolled.');
  const keys = secrets.map(decodeSecret);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(tolerance >= 0)) throw new TypeError(`options.toleranceSeconds must be a number of seconds (0 or more), not ${tolerance}.`);

  const read = readHeaders(headers);
  const id = requireHeader(read, 'webhook-id');
  const timestampHeader = requireHeader(read, 'webhook-timestamp');
  const signatureHeader = requireHeader(read, 'webhook-signature');

  const timestamp = parseInt(timestampHeader, 10);
  if (Number.isNaN(timestamp)) {
    throw new WebhookVerificationError('invalid_timestamp', `The webhook-timestamp header "${timestampHeader}" is not a number of seconds since the epoch.`);
  }
  const skewSeconds = Math.floor(Date.now() / 1000) - timestamp;
  if (skewSeconds > tolerance || -skewSeconds > tolerance) {
    throw new WebhookVerificationError(
      'timestamp_outside_tolerance',
      `The webhook-timestamp is ${Math.abs(skewSeconds)} s ${skewSeconds > 0 ? 'old' : 'in the future'}, beyond the tolerance of ${tolerance} s: a replayed message, or a clock that is off (synchronize it with NTP).`,
      { skewSeconds },
    );
  }

  const signatures = signatureHeader.split(' ');
  if (signedWith(keys, signatures, `${id}.${timestamp}.${body}`)) return JSON.parse(body);
  const compact = compactForm(body);
  const bodyReformatted = compact !== undefined && signedWith(keys, signatures, `${id}.${timestamp}.${compact}`);
  throw new WebhookVerificationError(
    'no_matching_signature',
    bodyReformatted
      ? 'No signature matches this body, but one matches its compact JSON form: the body was re-formatted after it arrived. Verify the raw body exactly as received, before any JSON parsing.'
      : 'No signature matches: check that the secret is the one of this endpoint (after a secret roll, pass both) and that the body is the raw body exactly as received.',
    bodyReformatted ? { bodyReformatted: true } : {},
  );
}
