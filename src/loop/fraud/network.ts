import { isIPv4, isIPv6 } from 'node:net';

/**
 * docs/api.md#fraud-review: the networks the signals compare, from a client address. Nothing here keeps
 * an address: callers hash `exact` with the service's salt (`self_referral`: the same IPv4 address or
 * IPv6 /64) and show `wide` (`click_burst`: the IPv4 /24 or IPv6 /48) as a prefix, never the address.
 */
export interface Networks {
  /** The IPv4 address, or the IPv6 /64 prefix (one household, one phone). */
  readonly exact: string;
  /** The IPv4 /24 or IPv6 /48, written as a prefix (`203.0.113.0/24`, `2001:db8:1::/48`). */
  readonly wide: string;
}

/**
 * The networks of a public address; undefined for loopback, private, link-local and unique-local ones. Those
 * are no visitor's network: behind a reverse proxy that svc does not trust (SVC_TRUST_PROXY unset) every
 * request comes from the proxy's address, and comparing it would make every click one burst and every
 * order a self-referral.
 */
export function networksOf(address: string): Networks | undefined {
  let ip = address.trim().toLowerCase();
  if (isIPv6(ip)) {
    // an IPv4-mapped address in any of its forms (::ffff:1.2.3.4, ::FFFF:c633:6407, 0::ffff:…) is that IPv4 address
    const g = expandV6(ip);
    if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) ip = `${(g[6] ?? 0) >> 8}.${(g[6] ?? 0) & 255}.${(g[7] ?? 0) >> 8}.${(g[7] ?? 0) & 255}`;
  }
  if (isIPv4(ip)) {
    const parts = ip.split('.').map(Number) as [number, number, number, number];
    const [a, b] = parts;
    if (a === 0 || a === 10 || a === 127 || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 100 && b >= 64 && b <= 127)) return undefined;
    return { exact: ip, wide: `${parts[0]}.${parts[1]}.${parts[2]}.0/24` };
  }
  if (!isIPv6(ip)) return undefined;
  const groups = expandV6(ip);
  const first = groups[0] ?? 0;
  // ::/64 (unspecified, loopback, the old IPv4-compatible and -translated forms), link-local fe80::/10, unique-local fc00::/7
  if (groups.slice(0, 4).every((g) => g === 0) || (first & 0xffc0) === 0xfe80 || (first & 0xfe00) === 0xfc00) return undefined;
  const hex = groups.map((g) => g.toString(16));
  return { exact: `${hex.slice(0, 4).join(':')}::/64`, wide: `${hex.slice(0, 3).join(':')}::/48` };
}

/** The eight 16-bit groups of an IPv6 address (`::` expanded; an embedded IPv4 tail read as two groups). */
function expandV6(ip: string): number[] {
  let text = ip.split('%')[0] ?? ip;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail?.[1]) {
    const [a, b, c, d] = tail[1].split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -tail[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const fill = rest === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16));
}
