import { recordAudit } from '../audit/service';
import { keyHint } from '../auth/service';
import type { Services, RequestState } from '../context';
import { ApiError } from '../errors';

const QUERY_KEY_NAMES = new Set(['api_key', 'apikey', 'key']);
/** The form of a key; shorter values such as `sk_blue` are ordinary (a SKU filter). */
const KEY_SHAPED_VALUE = /^(sk|pk)_(test|live)_[0-9A-Za-z]{16,}$/;

/**
 * A key among the parameters of a URL (a parameter named like one, or a key-shaped value): URLs
 * end up in logs, so such a request is refused even beside a valid header.
 */
export function keyInParams(params: Iterable<[string, unknown]>): string | undefined {
  for (const [name, value] of params) {
    if (typeof value !== 'string') continue;
    if (QUERY_KEY_NAMES.has(name.toLowerCase()) || KEY_SHAPED_VALUE.test(value)) return value;
  }
  return undefined;
}

/** Audits the refusal (by the key's hint only) and throws 401 `invalid_api_key`. */
export async function refuseKeyInQuery(services: Pick<Services, 'db'>, state: RequestState, key: string): Promise<never> {
  await recordAudit(services.db, { action: 'auth.failed', code: 'invalid_api_key', keyHint: keyHint(key), ip: state.ip, method: state.method, path: state.path });
  throw new ApiError('invalid_api_key', 'API keys must be sent in the Authorization header, never in the query string. Roll this key: it may have been logged.');
}
