/**
 * Where webhooks may go (issue 5, CONTRACT 3): absolute http(s) URLs; in live mode https only,
 * and only to public addresses, so a merchant cannot point the service at its own network
 * (SSRF: loopback, private ranges, the cloud metadata address 169.254.169.254, …). Test mode
 * accepts http and private addresses so a receiver on a laptop works.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { isAbsoluteHttpUrl } from '../checkout/schemas';

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

/** True for an IP literal outside every special range. IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is judged as IPv4. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  // BlockList also matches the IPv4 rules against IPv4-mapped IPv6 addresses.
  return !NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** The URL's host without IPv6 brackets (`new URL` already normalises `0x7f000001` to `127.0.0.1`). */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export type HostResolver = (host: string) => Promise<string[]>;

export const resolveHost: HostResolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/** Every address of the host, or the reason it may not be used. An IP literal resolves to itself. */
export async function publicAddresses(host: string, resolve: HostResolver = resolveHost): Promise<{ addresses: string[] } | { refused: string }> {
  if (isIP(host)) return isPublicAddress(host) ? { addresses: [host] } : { refused: `${host} is not a public address.` };
  const addresses = await resolve(host);
  if (addresses.length === 0) return { refused: `${host} has no address.` };
  const blocked = addresses.find((address) => !isPublicAddress(address));
  if (blocked !== undefined) return { refused: `${host} resolves to ${blocked}, which is not a public address.` };
  return { addresses };
}

/**
 * Why `raw` is not an acceptable endpoint URL in this mode, or undefined when it is. A live host
 * that does not resolve right now is accepted: DNS may change before any delivery anyway, and
 * every live delivery resolves and checks again, connecting only to the address it checked.
 */
export async function endpointUrlProblem(raw: string, livemode: boolean, resolve: HostResolver = resolveHost): Promise<string | undefined> {
  if (!isAbsoluteHttpUrl(raw)) return 'must be an absolute http(s) URL of at most 2000 characters';
  const url = new URL(raw);
  if (url.username !== '' || url.password !== '') return 'must not contain credentials';
  if (!livemode) return undefined;
  if (url.protocol !== 'https:') return 'must use https in live mode';
  const host = urlHost(url);
  let checked: Awaited<ReturnType<typeof publicAddresses>>;
  try {
    checked = await publicAddresses(host, resolve);
  } catch {
    return undefined;
  }
  return 'refused' in checked ? `must point at a public address in live mode: ${checked.refused}` : undefined;
}
