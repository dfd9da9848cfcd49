import ipaddr from 'ipaddr.js';

/**
 * The key per-client limits count under (login attempts, open event streams, public mailbox creation):
 * an IPv4 address as it is, an IPv4-mapped IPv6 address as its IPv4 address, and any other IPv6
 * address as its /64, because one subscriber usually gets a whole /64 and could otherwise rotate
 * through 2^64 "clients". `request.ip` is already resolved through SVC_TRUST_PROXY.
 */
export function clientKey(ip: string): string {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(ip);
  } catch {
    return ip;
  }
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  const parts = v6.parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}
