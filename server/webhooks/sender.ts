/**
 * One HTTP attempt of a webhook (CONTRACT 3): a POST of the exact signed bytes, redirects not
 * followed (node:http never follows them), given up after the timeout. In live mode the host is
 * resolved and checked here, at the moment of sending, and the connection goes to the very
 * address that was checked: a DNS answer that changes between the check and the connect
 * (rebinding) cannot reach a private address.
 */
import http, { type RequestOptions } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { publicAddresses, resolveHost, urlHost, type HostResolver } from './destinations';

export interface WebhookRequest {
  url: string;
  livemode: boolean;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

/** A status when the receiver answered in time; otherwise why not. */
export interface WebhookResponse {
  status: number | null;
  error: string | null;
  durationMs: number;
}

const USER_AGENT = 'payments-service-webhooks/1 (+https://www.standardwebhooks.com)';

/** A lookup that answers with the one address already checked, whatever the DNS says now. */
function pinnedLookup(address: string): LookupFunction {
  const family = isIP(address);
  return (_hostname, options, callback) => {
    if (options.all) (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
}

/** Where a live request may connect, or the refusal to log as the attempt's error. */
async function liveConnectAddress(url: URL, resolve: HostResolver): Promise<{ address: string } | { refused: string }> {
  if (url.protocol !== 'https:') return { refused: 'Live webhooks are sent over https only.' };
  try {
    const checked = await publicAddresses(urlHost(url), resolve);
    return 'refused' in checked ? { refused: `Refused: ${checked.refused}` } : { address: checked.addresses[0]! };
  } catch (error) {
    return { refused: `DNS lookup failed: ${describeError(error)}` };
  }
}

function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

export async function sendWebhook(webhook: WebhookRequest, resolve: HostResolver = resolveHost): Promise<WebhookResponse> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const url = new URL(webhook.url);
  const options: RequestOptions = {
    method: 'POST',
    headers: { ...webhook.headers, 'content-type': 'application/json', 'user-agent': USER_AGENT, 'content-length': String(Buffer.byteLength(webhook.body)) },
    // A fresh connection per attempt: no pooled socket outlives the address check it was made under.
    agent: false,
    signal: AbortSignal.timeout(webhook.timeoutMs),
  };
  if (webhook.livemode) {
    const target = await liveConnectAddress(url, resolve);
    if ('refused' in target) return { status: null, error: target.refused, durationMs: elapsed() };
    options.lookup = pinnedLookup(target.address);
  }
  // Looked up on the module at call time, so request instrumentation (msw in tests) sees it.
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise<WebhookResponse>((settle) => {
    const request = send(url, options, (response) => {
      // The status is the answer; the body is not read (a receiver cannot make us buffer it).
      settle({ status: response.statusCode ?? null, error: null, durationMs: elapsed() });
      response.destroy();
    });
    request.on('error', (error) => {
      const timedOut = error.name === 'AbortError' || error.name === 'TimeoutError';
      settle({ status: null, error: timedOut ? `No response within ${webhook.timeoutMs} ms.` : describeError(error), durationMs: elapsed() });
    });
    request.end(webhook.body);
  });
}
