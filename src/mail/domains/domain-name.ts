import { domainToASCII, domainToUnicode } from 'node:url';

// LDH labels of 1–63 characters, 253 in all; a single label (localhost) is allowed, as SVC_MAIL_DOMAINS allows it.
const ASCII_DOMAIN = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;

/**
 * A mail domain as stored: trimmed, lower-case, internationalised names in their ASCII (punycode) form
 * (`Bücher.example` → `xn--bcher-kva.example`, UTS #46 as WHATWG URL applies it), one trailing dot
 * dropped. Undefined for anything that is not a host name: spaces, `_`, empty labels, labels over 63
 * characters, over 253 in all, an IP address. Tested by test/unit/domain-name.test.ts.
 */
export function normalizeDomain(input: string): string | undefined {
  const trimmed = input.trim().replace(/\.$/, '');
  if (trimmed === '' || trimmed.length > 253 * 4) return undefined;
  const ascii = domainToASCII(trimmed.toLowerCase());
  if (!ascii || !ASCII_DOMAIN.test(ascii)) return undefined;
  // the last label all digits: an IPv4 address (or a fragment of one), not a name
  if (/^\d+$/.test(ascii.slice(ascii.lastIndexOf('.') + 1))) return undefined;
  // an `xn--` label must be valid punycode that encodes back to itself; Node.js 24's URL parser lets
  // undecodable ones (`xn--zz`) through unchanged where Node.js 22's refuses them
  if (ascii.split('.').some((label) => label.startsWith('xn--')) && !isRoundTripIdn(ascii)) return undefined;
  return ascii;
}

function isRoundTripIdn(ascii: string): boolean {
  const unicode = domainToUnicode(ascii);
  if (!unicode || unicode.split('.').some((label) => label.startsWith('xn--'))) return false;
  return domainToASCII(unicode) === ascii;
}
