/**
 * One HTTP attempt of a webhook: a POST of the exact signed bytes, redirects not
 * followed (node:http never follows them: a 3xx is a failed attempt), given up after the
 * timeout. The host is resolved and checked here, at the moment of sending, under the rules of
 * the endpoint's mode (server/webhooks/destinations.ts), and the connection goes to the very address that was
 * checked: a DNS answer that changes between the check and the connect (rebinding) cannot reach
 * a refused address.
 */
import http, { type RequestOptions } from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { allowedAddresses, resolveHost, urlHost, type HostResolver, type DestinationRules } from './destinations';

export interface WebhookRequest extends DestinationRules {
  url: string;
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

/** A lookup that answers with the addresses already checked, whatever the DNS says now. */
function pinnedLookup(addresses: string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: isIP(address) }));
  return (_hostname, options, callback) => {
    // With `all` (Node's happy eyeballs) every checked address may be tried, IPv6 and IPv4 alike.
    if (options.all) (callback as (error: null, found: typeof entries) => void)(null, entries);
    else callback(null, entries[0]!.address, entries[0]!.family);
  };
}

/** Where the request may connect, or the refusal to log as the attempt's error. */
async function connectAddresses(url: URL, rules: DestinationRules, resolve: HostResolver): Promise<{ addresses: string[] } | { refused: string }> {
  if (rules.livemode && url.protocol !== 'https:') return { refused: 'Live webhooks are sent over https only.' };
  try {
    const checked = await allowedAddresses(urlHost(url), rules, resolve);
    return 'refused' in checked ? { refused: `Not sent: ${checked.refused}.` } : checked;
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
  const target = await connectAddresses(url, webhook, resolve);
  if ('refused' in target) return { status: null, error: target.refused, durationMs: elapsed() };
  const options: RequestOptions = {
    method: 'POST',
    headers: { ...webhook.headers, 'content-type': 'application/json', 'user-agent': USER_AGENT, 'content-length': String(Buffer.byteLength(webhook.body)) },
    // A fresh connection per attempt: no pooled socket outlives the address check it was made under.
    agent: false,
    signal: AbortSignal.timeout(webhook.timeoutMs),
    lookup: pinnedLookup(target.addresses),
  };
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
