import ipaddr from 'ipaddr.js';
import { ConfigError } from '../config-error.js';

/**
 * The HTTP server's connection limits and timeouts. Only the connection cap comes from the environment;
 * the timeouts are chosen here (README, "Limits") and tests shorten them.
 */
export interface HttpLimits {
  /** Open connections beyond this are closed as they arrive (SVC_MAX_CONNECTIONS). */
  readonly maxConnections: number;
  /** A client has this long to send its request headers (slowloris). */
  readonly headersTimeoutMs: number;
  /** ... and this long for the whole request, body included. */
  readonly requestTimeoutMs: number;
  /** A connection with no bytes in either direction for this long is closed (answers being written count). */
  readonly idleTimeoutMs: number;
  /** A kept-alive connection waiting for its next request is closed after this long. */
  readonly keepAliveTimeoutMs: number;
  /** How often an open event stream sends a heartbeat comment: it keeps the stream from being idle. */
  readonly streamHeartbeatMs: number;
}

export const DEFAULT_HTTP_LIMITS: Omit<HttpLimits, 'maxConnections'> = Object.freeze({
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  idleTimeoutMs: 60_000,
  // Longer than the 60 s idle timeout of common load balancers, so they close first (Fastify's default).
  keepAliveTimeoutMs: 72_000,
  streamHeartbeatMs: 15_000,
});

/** proxy-addr's names for ranges of addresses (Fastify understands them in trustProxy). */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isPlainAddress(value: string): boolean {
  return ipaddr.IPv4.isValidFourPartDecimal(value) || (value.includes(':') && ipaddr.IPv6.isValid(value));
}

function isAddressOrCidr(entry: string): boolean {
  if (NAMED_RANGES.has(entry)) return true;
  const slash = entry.indexOf('/');
  if (slash < 0) return isPlainAddress(entry);
  const address = entry.slice(0, slash);
  const bits = entry.slice(slash + 1);
  if (!isPlainAddress(address) || !/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (address.includes(':') ? 128 : 32);
}

/**
 * SVC_TRUST_PROXY: `false` (default), a hop count, or a comma list of proxy addresses/CIDRs. `true` is
 * refused: it would let any client choose its own address with X-Forwarded-For and so step around every
 * per-IP limit.
 */
export function parseTrustProxy(raw: string | undefined): false | number | readonly string[] {
  const value = (raw ?? '').trim();
  if (value === '' || value === 'false' || value === '0') return false;
  if (/^(true|yes|on)$/i.test(value)) {
    throw new ConfigError(
      `SVC_TRUST_PROXY: "${value}" would trust any X-Forwarded-For; write the number of proxies in front of svc (e.g. 1) or their addresses (e.g. 10.0.0.5,10.1.0.0/16)`,
    );
  }
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    if (hops > 100) throw new ConfigError(`SVC_TRUST_PROXY: ${value} hops is not plausible (at most 100)`);
    return hops;
  }
  const entries = value.split(',').map((e) => e.trim());
  for (const entry of entries) {
    if (!isAddressOrCidr(entry)) {
      throw new ConfigError(
        `SVC_TRUST_PROXY: ${JSON.stringify(entry.slice(0, 100))} is not an IP address or CIDR (write false, a hop count like 1, or addresses like 10.0.0.5,10.1.0.0/16)`,
      );
    }
  }
  return Object.freeze(entries);
}
