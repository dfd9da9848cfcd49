import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { isInwardAddress } from '../safe-url.js';

/** Resolves a host name to every address it has; injectable so tests can simulate DNS (rebinding). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/** True when an address must not be reached from the service: the one classification of safe-url.ts. */
export const isForbiddenAddress = isInwardAddress;

function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/** Said with every refusal of a private address: a local receiver (development, tests) needs the variable. */
const ALLOW_HINT = '; to allow loopback and private addresses (a local receiver), start svc with SVC_WEBHOOK_ALLOW_PRIVATE=true';

/**
 * The save-time check: a message when the URL is not an http(s) URL or names/resolves to a forbidden
 * address. The connect-time guard (guardedLookup) repeats the check on the address actually used.
 */
export async function checkOutboundUrl(url: string, resolve: Resolver): Promise<string | undefined> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an absolute http(s) URL';
  const host = bareHost(u.hostname);
  if (ipaddr.isValid(host)) {
    return isForbiddenAddress(host) ? `points at a private or reserved address (${host})${ALLOW_HINT}` : undefined;
  }
  let addresses: { address: string }[];
  try {
    addresses = await resolve(host);
  } catch {
    return `host ${host} cannot be resolved`;
  }
  if (addresses.length === 0) return `host ${host} cannot be resolved`;
  const bad = addresses.find((a) => isForbiddenAddress(a.address));
  return bad ? `resolves to a private or reserved address (${bad.address})${ALLOW_HINT}` : undefined;
}

export class ForbiddenAddressError extends Error {
  readonly code = 'ESSRF';
}

/**
 * A `lookup` for http.request/net.connect that refuses forbidden addresses after resolution, so a name
 * that resolves to a public address at save time and to 127.0.0.1 later (DNS rebinding) still fails.
 */
export function guardedLookup(resolve: Resolver, allowPrivate: boolean): LookupFunction {
  return ((hostname: string, options: { all?: boolean; family?: number }, callback: (...args: unknown[]) => void) => {
    resolve(hostname).then(
      (all) => {
        const wanted = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        const list = wanted.length > 0 ? wanted : all;
        if (list.length === 0) return callback(Object.assign(new Error(`cannot resolve ${hostname}`), { code: 'ENOTFOUND' }));
        if (!allowPrivate) {
          const bad = list.find((a) => isForbiddenAddress(a.address));
          if (bad) return callback(new ForbiddenAddressError(`refused: ${hostname} resolves to a private or reserved address (${bad.address})${ALLOW_HINT}`));
        }
        if (options.all) return callback(null, list);
        const first = list[0]!;
        callback(null, first.address, first.family);
      },
      (err: unknown) => callback(err),
    );
  }) as LookupFunction;
}

/** The connect-time check for IP-literal hosts, which never go through lookup. */
export function literalHostProblem(hostname: string, allowPrivate: boolean): string | undefined {
  const host = bareHost(hostname);
  if (allowPrivate || !ipaddr.isValid(host)) return undefined;
  return isForbiddenAddress(host) ? `refused: ${host} is a private or reserved address${ALLOW_HINT}` : undefined;
}
