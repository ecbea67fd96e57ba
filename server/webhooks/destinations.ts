/**
 * Where webhooks may go: absolute http(s) URLs; in live mode https only,
 * and only to public addresses, so a merchant cannot point the service at its own network
 * (SSRF: loopback, private ranges, the cloud metadata address 169.254.169.254, …). Test mode
 * accepts http, loopback and private addresses so a receiver on a laptop works, but never
 * link-local ones: no key may make the service call its cloud metadata endpoint.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { isAbsoluteHttpUrl } from '../kit/fields';

/** Special-purpose ranges (IANA registries) that are never a merchant's public server. */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", incl. 0.0.0.0
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, incl. cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. broadcast
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, ::1 and IPv4-compatible (::a.b.c.d)
  ['64:ff9b::', 96], // NAT64: embeds an IPv4 address of any kind
  ['100::', 64],
  ['2001::', 32], // Teredo
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4: embeds an IPv4 address of any kind
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10],
  ['ff00::', 8], // multicast
] as const) {
  NON_PUBLIC.addSubnet(network, prefix, 'ipv6');
}

/** Link-local ranges, where cloud metadata services live (169.254.169.254): refused in test mode too. */
const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');

const blockType = (family: number) => (family === 4 ? 'ipv4' : 'ipv6');

/** True for an IP literal outside every special range. IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is judged as IPv4. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  // BlockList also matches the IPv4 rules against IPv4-mapped IPv6 addresses.
  return family !== 0 && !NON_PUBLIC.check(address, blockType(family));
}

/**
 * Why a webhook may not go to this address in this mode, or undefined. Live: public addresses
 * only. Test: loopback and private networks are fine (a receiver on the developer's machine),
 * link-local is not.
 */
function addressRefusal(address: string, livemode: boolean): string | undefined {
  if (livemode) return isPublicAddress(address) ? undefined : 'is not a public address';
  return LINK_LOCAL.check(address, blockType(isIP(address))) ? 'is a link-local address (cloud metadata lives there)' : undefined;
}

/** The URL's host without IPv6 brackets (`new URL` already normalises `0x7f000001` to `127.0.0.1`). */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export type HostResolver = (host: string) => Promise<string[]>;

export const resolveHost: HostResolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Every address of the host if all of them are allowed in this mode, or the reason why not.
 * An IP literal resolves to itself; a failed lookup rejects.
 */
export async function allowedAddresses(host: string, livemode: boolean, resolve: HostResolver = resolveHost): Promise<{ addresses: string[] } | { refused: string }> {
  if (isIP(host)) {
    const refusal = addressRefusal(host, livemode);
    return refusal ? { refused: `${host} ${refusal}.` } : { addresses: [host] };
  }
  const addresses = await resolve(host);
  if (addresses.length === 0) return { refused: `${host} has no address.` };
  for (const address of addresses) {
    const refusal = addressRefusal(address, livemode);
    if (refusal) return { refused: `${host} resolves to ${address}, which ${refusal}.` };
  }
  return { addresses };
}

/**
 * Why `raw` is not an acceptable endpoint URL in this mode, or undefined when it is. A host that
 * does not resolve right now is accepted: DNS may change before any delivery anyway, and every
 * delivery resolves and checks again, connecting only to the address it checked.
 */
export async function endpointUrlProblem(raw: string, livemode: boolean, resolve: HostResolver = resolveHost): Promise<string | undefined> {
  if (!isAbsoluteHttpUrl(raw)) return 'must be an absolute http(s) URL of at most 2000 characters';
  const url = new URL(raw);
  if (url.username !== '' || url.password !== '') return 'must not contain credentials';
  if (livemode && url.protocol !== 'https:') return 'must use https in live mode';
  let checked: Awaited<ReturnType<typeof allowedAddresses>>;
  try {
    checked = await allowedAddresses(urlHost(url), livemode, resolve);
  } catch {
    return undefined;
  }
  if (!('refused' in checked)) return undefined;
  return livemode ? `must point at a public address in live mode: ${checked.refused}` : `must not point at a link-local address: ${checked.refused}`;
}
