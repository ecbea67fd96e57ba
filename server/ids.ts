import { createHash, randomFillSync, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/**
 * CSPRNG bytes drawn 4 KiB at a time (as Node's randomUUID caches its entropy): one call into
 * OpenSSL per ~80 ids instead of one per id, on every request's hot path. Each byte is used once.
 */
const randomPool = Buffer.alloc(4096);
let randomPoolOffset = randomPool.length;

function randomByte(): number {
  if (randomPoolOffset === randomPool.length) {
    randomFillSync(randomPool);
    randomPoolOffset = 0;
  }
  return randomPool[randomPoolOffset++]!;
}

/** Uniform base62 from a CSPRNG (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

export type IdPrefix =
  | 'cpn'
  | 'promo'
  | 'pch'
  | 'btx'
  | 'po'
  | 'pmu'
  | 'prod'
  | 'price'
  | 'cs'
  | 'subchk'
  | 'sub'
  | 'portal'
  | 'cus'
  | 'ord'
  | 'evt'
  | 'we'
  | 're'
  | 'lic'
  | 'in'
  | 'cn'
  | 'em'
  | 'dl'
  | 'dp'
  | 'lv';

/** `<prefix>_<test|live>_<24 base62>`. */
export function newId(prefix: IdPrefix, livemode: boolean): string {
  return `${prefix}_${livemode ? 'live' : 'test'}_${randomBase62(24)}`;
}

/** `test_…` and `price_test_…` name the same price. */
export function normalizePriceId(id: string): string {
  return id.startsWith('price_') ? id : `price_${id}`;
}

/** A checkout session id, `cs_<env>_<base62>`; anything else is never looked up. */
export function isCheckoutSessionId(value: string): boolean {
  return /^cs_(test|live)_[0-9A-Za-z]{1,64}$/.test(value);
}

/** A subscription checkout id, `subchk_<env>_<base62>`; anything else is never looked up. */
export function isSubscriptionCheckoutId(value: string): boolean {
  return /^subchk_(test|live)_[0-9A-Za-z]{1,64}$/.test(value);
}

/** Ids of objects that belong to no environment (stores, API key records). */
export function newPlatformId(prefix: 'acct' | 'key' | 'user' | 'link' | 'bkc'): string {
  return `${prefix}_${randomBase62(24)}`;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Constant-time equality of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
