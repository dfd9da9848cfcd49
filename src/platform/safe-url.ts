import ipaddr from 'ipaddr.js';

/**
 * The one rule for URLs an operator gives svc (landing_url, webhook_url, the network postback
 * template): an absolute http(s) URL with no control characters. The WHATWG parser silently drops
 * TAB/CR/LF inside a URL, so a value can parse and still carry a header-splitting CR/LF when it is
 * used as it was typed (a Location header, a log line): the characters are refused before parsing.
 */

/** C0 controls, DEL and C1 controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
export const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

/** Why `value` is not a URL svc accepts, or undefined when it is. */
export function httpUrlProblem(value: string): string | undefined {
  if (CONTROL_CHARACTERS.test(value)) return 'must not contain control characters (CR, LF, TAB, ...)';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) return 'must be an absolute http(s) URL';
  return undefined;
}

/**
 * Whether an IP address is one svc never points anything at: everything ipaddr.js does not call plain
 * `unicast` (loopback, private, link-local, CGNAT, multicast, reserved, unspecified, NAT64, 6to4, ...), an
 * IPv4-mapped IPv6 address judged as the IPv4 address it carries, and anything that does not parse.
 */
export function isInwardAddress(address: string): boolean {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.parse(address);
  } catch {
    return true;
  }
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  return ip.range() !== 'unicast';
}

/**
 * A host the WHATWG parser read as IPv4: it writes every IPv4 spelling as this dotted quad. Tested before
 * ipaddr.js, whose validity check throws (and builds a stack) for every name that is not an address: a
 * mail's links are mostly names, and that check cost ~8% of the content pool's CPU at intake.
 */
const DOTTED_QUAD = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** Names that only mean something inside a network (RFC 6761, RFC 6762, ICANN's .internal). */
const INWARD_NAMES = ['localhost', 'local', 'internal'];

/**
 * Whether a machine may follow `value` (docs/api.md#links): an http(s) URL whose host is
 * neither an IP literal of a loopback, private, link-local or reserved range nor `localhost` or a name under
 * `.local`, `.internal` or `.localhost`. The host is read by the WHATWG parser, as a browser or an agent's
 * HTTP client reads it: IPv4 in any spelling (2852039166, 0xA9FEA9FE, 0251.0376.0251.0376, 127.1), percent
 * encoding, full-width digits and upper case come out as the dotted quad or lower-case name they mean, and
 * userinfo (a `good.example@` in front of `127.0.0.1`) is not the host. A trailing dot names the same host. Proved by
 * test/unit/followable-url.test.ts.
 */
export function isFollowableUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false;
  let host = url.hostname;
  if (host.startsWith('[') && host.endsWith(']')) return !isInwardAddress(host.slice(1, -1));
  while (host.endsWith('.')) host = host.slice(0, -1);
  if (host === '') return false;
  if (DOTTED_QUAD.test(host)) return !isInwardAddress(host);
  const last = host.slice(host.lastIndexOf('.') + 1);
  return !INWARD_NAMES.includes(last);
}
