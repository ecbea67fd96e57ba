/**
 * Where webhooks may go: absolute http(s) URLs; in live mode https only. Both modes send only to
 * public addresses, so a key cannot point the service at its operator's network (SSRF), except
 * that test mode may reach loopback and private networks when the operator allows it
 * (WEBHOOKS_ALLOW_PRIVATE, on by default for a service on localhost: a receiver on a laptop).
 * Cloud metadata services are never a destination, whatever the configuration.
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

/** Loopback and private networks: a receiver on the operator's own machine or network. */
const PRIVATE = new BlockList();
PRIVATE.addSubnet('127.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('10.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('100.64.0.0', 10, 'ipv4');
PRIVATE.addSubnet('172.16.0.0', 12, 'ipv4');
PRIVATE.addSubnet('192.168.0.0', 16, 'ipv4');
PRIVATE.addAddress('::1', 'ipv6');
PRIVATE.addSubnet('fc00::', 7, 'ipv6');

/**
 * Cloud metadata services, refused in every mode and configuration: link-local (AWS, GCP, Azure
 * at 169.254.169.254, ECS at 169.254.170.2), AWS's IPv6 fd00:ec2::254, Alibaba's 100.100.100.200.
 * BlockList matches IPv4 rules against IPv4-mapped IPv6 (`::ffff:169.254.169.254`) too.
 */
const METADATA = new BlockList();
METADATA.addSubnet('169.254.0.0', 16, 'ipv4');
METADATA.addAddress('100.100.100.200', 'ipv4');
METADATA.addSubnet('fe80::', 10, 'ipv6');
METADATA.addAddress('fd00:ec2::254', 'ipv6');
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata']);

const blockType = (family: number) => (family === 4 ? 'ipv4' : 'ipv6');

/** True for an IP literal outside every special range. IPv4-mapped IPv6 (`::ffff:127.0.0.1`) is judged as IPv4. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  // BlockList also matches the IPv4 rules against IPv4-mapped IPv6 addresses.
  return family !== 0 && !NON_PUBLIC.check(address, blockType(family));
}

/** Who decides where a webhook may go: the endpoint's mode and the operator's WEBHOOKS_ALLOW_PRIVATE. */
export interface DestinationRules {
  livemode: boolean;
  allowPrivate: boolean;
}

/** Whether a webhook may go to this address: public, or in test mode private when allowed; never metadata. */
function addressAllowed(address: string, rules: DestinationRules): boolean {
  const type = blockType(isIP(address));
  if (METADATA.check(address, type)) return false;
  if (isPublicAddress(address)) return true;
  return !rules.livemode && rules.allowPrivate && PRIVATE.check(address, type);
}

/** The URL's host without IPv6 brackets (`new URL` already normalises `0x7f000001` to `127.0.0.1`). */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

export type HostResolver = (host: string) => Promise<string[]>;

export const resolveHost: HostResolver = async (host) => (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/**
 * Every address of the host if all of them are allowed, or why not. The reason names the host
 * only, never what it resolves to: the answer must not map the operator's network. An IP literal
 * resolves to itself; a failed lookup rejects.
 */
export async function allowedAddresses(host: string, rules: DestinationRules, resolve: HostResolver = resolveHost): Promise<{ addresses: string[] } | { refused: string }> {
  if (METADATA_HOSTS.has(host.toLowerCase().replace(/\.$/, ''))) return { refused: `${host} is a cloud metadata service` };
  if (isIP(host)) return addressAllowed(host, rules) ? { addresses: [host] } : { refused: `${host} is not a public address` };
  const addresses = await resolve(host);
  if (addresses.length === 0) return { refused: `${host} has no address` };
  if (!addresses.every((address) => addressAllowed(address, rules))) return { refused: `${host} resolves to an address that is not public` };
  return { addresses };
}

/**
 * Why `raw` is not an acceptable endpoint URL, or undefined when it is. A host that does not
 * resolve right now is accepted: DNS may change before any delivery anyway, and every delivery
 * resolves and checks again, connecting only to the address it checked.
 */
export async function endpointUrlProblem(raw: string, rules: DestinationRules, resolve: HostResolver = resolveHost): Promise<string | undefined> {
  if (!isAbsoluteHttpUrl(raw)) return 'must be an absolute http(s) URL of at most 2000 characters';
  const url = new URL(raw);
  if (url.username !== '' || url.password !== '') return 'must not contain credentials';
  if (rules.livemode && url.protocol !== 'https:') return 'must use https in live mode';
  let checked: Awaited<ReturnType<typeof allowedAddresses>>;
  try {
    checked = await allowedAddresses(urlHost(url), rules, resolve);
  } catch {
    return undefined;
  }
  if (!('refused' in checked)) return undefined;
  const privateNote = !rules.livemode && !rules.allowPrivate ? ' (loopback and private addresses only when the operator sets WEBHOOKS_ALLOW_PRIVATE=true)' : '';
  return `must point at a public address${privateNote}: ${checked.refused}`;
}
