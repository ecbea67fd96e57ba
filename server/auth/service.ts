import { and, eq, gt, isNull, or, sql } from 'drizzle-orm';
import { preparedOnce } from '@/db/client';
import { apiKeys, stores, type TaxMode } from '@/db/schema';
import type { Context } from '../context';
import { ApiError, type ErrorCode } from '../errors';
import { digestsEqual, sha256Hex } from '../ids';
import { recordAudit } from '../audit/service';
import type { Scope } from '../kit/scope';

export type KeyKind = 'secret' | 'publishable';

export interface StoreFlags {
  suspended: boolean;
  liveApi: boolean;
  amountMode: boolean;
  taxCalculation: boolean;
  subscriptions: boolean;
}

/** Who is calling: one store in one environment. Every query is scoped by it. */
export interface Subject extends Scope {
  storeName: string;
  keyId: string;
  /** The key's public hint (`sk_test_…abcd`): how the audit trail names it. */
  keyHint: string;
  keyKind: KeyKind;
  /** The store's test clock offset; read with storeClock() (server/clock.ts). */
  testClockOffsetSeconds: number;
  flags: StoreFlags;
  /** Whose VAT rate the store's sales take: the product's, or the buyer's member state's. */
  taxMode: TaxMode;
}

export interface KeyAcceptance {
  kinds: KeyKind[];
  allowXApiKey: boolean;
}

const KEY_PATTERN = /^(sk|pk)_(test|live)_[0-9A-Za-z]{24,128}$/;

/** `sk_test_…abcd`: enough to tell keys apart in an audit line, never enough to use one. */
export function keyHint(key: string): string {
  const match = /^((?:sk|pk)_(?:test|live)_)/.exec(key);
  return match ? `${match[1]}…${key.slice(-4)}` : 'malformed';
}

/** HTTP Basic as `curl -u "$KEY:"` sends it: the key as user name, an empty password. */
function basicCredentialsKey(credentials: string): string | undefined {
  const decoded = Buffer.from(credentials, 'base64').toString('utf8');
  return decoded.endsWith(':') && decoded.indexOf(':') === decoded.length - 1 ? decoded.slice(0, -1) : undefined;
}

function presentedKey(headers: Headers, allowXApiKey: boolean): string | undefined {
  const authorization = headers.get('authorization');
  if (authorization !== null) {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    const basic = /^Basic\s+([A-Za-z0-9+/]+={0,2})\s*$/i.exec(authorization);
    // A malformed Authorization header is a wrong key, not a missing one.
    return bearer?.[1] ?? (basic ? basicCredentialsKey(basic[1]!) : undefined) ?? authorization;
  }
  if (allowXApiKey) return headers.get('x-api-key') ?? undefined;
  return undefined;
}

async function fail(ctx: Context, code: ErrorCode, message: string, key?: string, subject?: Scope): Promise<never> {
  await recordAudit(ctx.db, {
    action: 'auth.failed',
    code,
    storeId: subject?.storeId,
    livemode: subject?.livemode,
    keyHint: key === undefined ? undefined : keyHint(key),
    ip: ctx.request.ip,
    method: ctx.request.method,
    path: ctx.request.path,
  });
  throw new ApiError(code, message);
}

/**
 * The key lookup runs on every authenticated request: prepared once, so Drizzle does not rebuild
 * its SQL each time.
 */
const keyLookup = preparedOnce((db) =>
  db
    .select({
      keyId: apiKeys.id,
      keyHash: apiKeys.keyHash,
      kind: apiKeys.kind,
      livemode: apiKeys.livemode,
      storeId: stores.id,
      storeName: stores.name,
      suspended: stores.suspended,
      liveApi: stores.liveApi,
      amountMode: stores.amountMode,
      taxCalculation: stores.taxCalculation,
      subscriptions: stores.subscriptions,
      taxMode: stores.taxMode,
      testClockOffsetSeconds: stores.testClockOffsetSeconds,
    })
    .from(apiKeys)
    .innerJoin(stores, eq(stores.id, apiKeys.storeId))
    // A rolled key works until its expiry, then reads as revoked (the instant goes as text: both drivers take it).
    .where(and(eq(apiKeys.keyHash, sql.placeholder('hash')), isNull(apiKeys.revokedAt), or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, sql`${sql.placeholder('nowText')}::timestamptz`))))
    .limit(1)
    .prepare('auth_key_lookup'),
);

/** Resolves the key to its store and environment, or fails with the right 401/403. */
export async function authenticateRequest(ctx: Context, accept: KeyAcceptance): Promise<Subject> {
  const key = presentedKey(ctx.request.headers, accept.allowXApiKey);
  if (key === undefined || key === '') {
    const where = accept.allowXApiKey ? 'an `Authorization: Bearer` or `X-Api-Key` header' : 'an `Authorization: Bearer <API_KEY>` header';
    return fail(ctx, 'missing_api_key', `No API key provided. Send your secret key in ${where}.`);
  }
  if (!KEY_PATTERN.test(key)) return fail(ctx, 'invalid_api_key', 'Invalid API key provided.', key);

  const hash = sha256Hex(key);
  const [row] = await keyLookup(ctx.db).execute({ hash, nowText: ctx.clock.now().toISOString() });
  // The index finds the row by hash; the constant-time compare keeps the final check timing-flat.
  if (!row || !digestsEqual(row.keyHash, hash)) return fail(ctx, 'invalid_api_key', 'Invalid API key provided.', key);

  const subject: Subject = {
    storeId: row.storeId,
    storeName: row.storeName,
    livemode: row.livemode,
    keyId: row.keyId,
    keyHint: keyHint(key),
    keyKind: row.kind,
    testClockOffsetSeconds: row.testClockOffsetSeconds,
    flags: {
      suspended: row.suspended,
      liveApi: row.liveApi,
      amountMode: row.amountMode,
      taxCalculation: row.taxCalculation,
      subscriptions: row.subscriptions,
    },
    taxMode: row.taxMode,
  };

  if (!accept.kinds.includes(row.kind)) {
    const message =
      row.kind === 'publishable'
        ? 'This endpoint requires a secret key (sk_test_… or sk_live_…); publishable keys are for the browser only.'
        : 'This endpoint requires a publishable key (pk_test_… or pk_live_…).';
    return fail(ctx, 'wrong_key_type', message, key, subject);
  }
  if (row.livemode && row.kind === 'secret' && row.suspended) {
    return fail(ctx, 'account_suspended', 'This account is suspended; live mode requests are refused. Test mode keeps working.', key, subject);
  }
  if (row.livemode && !row.liveApi) {
    return fail(ctx, 'capability_disabled', 'The Payments API channel is disabled for live mode on this account.', key, subject);
  }
  return subject;
}
