import type { RateLimit, RateWindows } from '../../platform/limits/rate-windows.js';

/**
 * How many mailboxes a catch-all domain creates on arrival (docs/api.md#catch-all),
 * counted in the database's windows so the caps hold for the sum over every instance: per connecting client
 * (the SMTP client's address as clientKey reads it: an IPv4 address, an IPv6 /64) and per domain. Never per
 * `MAIL FROM` or `from`: a sender picks those, so counting them let ten forged senders use up a domain's
 * hour. POST /api/inbound has no client of its own to count (its caller holds the API key and relays mail
 * from anyone): only the domain cap applies there. Proved by test/integration/catch-all-limits.test.ts.
 */
export const CATCH_ALL_WINDOW_MS = 60 * 60_000;

export class CatchAllCap {
  private readonly limits: { readonly perClient: RateLimit; readonly perDomain: RateLimit };

  /** `hourly`: SVC_CATCH_ALL_SENDER_HOURLY (per client IP) and SVC_CATCH_ALL_DOMAIN_HOURLY (defaults 50 and 1000). */
  constructor(
    private readonly windows: RateWindows,
    hourly: { readonly perClient: number; readonly perDomain: number },
  ) {
    this.limits = { perClient: { max: hourly.perClient, windowMs: CATCH_ALL_WINDOW_MS }, perDomain: { max: hourly.perDomain, windowMs: CATCH_ALL_WINDOW_MS } };
  }

  /**
   * Counts one new mailbox on `domain` for `client` (a clientKey; null: POST /api/inbound, the domain cap
   * only); undefined when the caps allow it, else when to try again. A creation the client's cap refuses
   * does not count against the domain, so one client's flood never uses up the domain for the others; one
   * the domain cap refuses still counts against its client, so a flood gets no cheaper.
   */
  async take(client: string | null, domain: string): Promise<{ retryAt: number } | undefined> {
    if (client !== null) {
      const byClient = await this.windows.hit('catch_all:client', client, this.limits.perClient);
      if (byClient.count > this.limits.perClient.max) return { retryAt: byClient.resetsAt };
    }
    const byDomain = await this.windows.hit('catch_all:domain', domain, this.limits.perDomain);
    if (byDomain.count > this.limits.perDomain.max) return { retryAt: byDomain.resetsAt };
    return undefined;
  }
}
