import type { RateLimit, RateWindows } from '../../platform/limits/rate-windows.js';

/**
 * How many mailboxes a catch-all domain creates on arrival (docs/api.md, "Catch-all"), counted in the
 * database's windows so the caps hold for the sum over every instance: per sender (the envelope sender
 * over SMTP, `from` for POST /api/inbound; a message without one counts as the sender `<>`) and per
 * domain. A sender can be forged; the per-domain cap is what bounds a determined flood.
 */
export const CATCH_ALL_WINDOW_MS = 60 * 60_000;

export class CatchAllCap {
  private readonly limits: { readonly perSender: RateLimit; readonly perDomain: RateLimit };

  /** `hourly`: SVC_CATCH_ALL_SENDER_HOURLY and SVC_CATCH_ALL_DOMAIN_HOURLY (defaults 50 and 1000). */
  constructor(
    private readonly windows: RateWindows,
    hourly: { readonly perSender: number; readonly perDomain: number },
  ) {
    this.limits = { perSender: { max: hourly.perSender, windowMs: CATCH_ALL_WINDOW_MS }, perDomain: { max: hourly.perDomain, windowMs: CATCH_ALL_WINDOW_MS } };
  }

  /**
   * Counts one new mailbox of `sender` on `domain`; undefined when both caps allow it, else when to try
   * again. A creation the domain cap refuses still counts against its sender: a flood gets no cheaper.
   */
  async take(sender: string | null, domain: string): Promise<{ retryAt: number } | undefined> {
    const bySender = await this.windows.hit('catch_all:sender', (sender ?? '').trim().toLowerCase() || '<>', this.limits.perSender);
    if (bySender.count > this.limits.perSender.max) return { retryAt: bySender.resetsAt };
    const byDomain = await this.windows.hit('catch_all:domain', domain, this.limits.perDomain);
    if (byDomain.count > this.limits.perDomain.max) return { retryAt: byDomain.resetsAt };
    return undefined;
  }
}
