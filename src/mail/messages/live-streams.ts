import { RateLimitedError } from '../../platform/errors.js';
import type { Leases } from '../../platform/limits/leases.js';

/** CONTRACT §11: at most 5 open event streams per mailbox and 50 per client IP. */
export const LIVE_STREAM_LIMITS = Object.freeze({ perMailbox: 5, perClient: 50 });

/** What a refused stream is told to wait: slots free only when other streams close, which nobody can predict. */
export const LIVE_STREAM_RETRY_AFTER_S = 30;

/**
 * Open live streams counted per mailbox and per client (clientKey), so that one token or one client
 * cannot hold thousands of sockets open. The slots are leases in the database (src/platform/limits/leases.ts), so
 * the caps hold for the sum over every instance sharing it (CONTRACT §16), and a crashed instance's
 * slots expire with their leases. Every kind of live stream (the inbox's SSE, the mail.tm Mercure
 * stream) takes its slots here.
 */
export class LiveStreamSlots {
  constructor(
    private readonly leases: Leases,
    private readonly limits: { readonly perMailbox: number; readonly perClient: number } = LIVE_STREAM_LIMITS,
  ) {}

  /**
   * Takes a slot of the mailbox and one of the client, or neither and throws RateLimitedError (429).
   * The answer releases both slots, once.
   */
  async acquire(mailbox: string, client: string): Promise<() => void> {
    const release = await this.leases.acquire([
      { key: `stream-mailbox:${mailbox}`, max: this.limits.perMailbox },
      { key: `stream-client:${client}`, max: this.limits.perClient },
    ]);
    if (!release) throw new RateLimitedError(LIVE_STREAM_RETRY_AFTER_S);
    return release;
  }

  /** Streams open in this process. */
  get open(): number {
    return this.leases.open;
  }

  /** Renews this instance's slots now (as its timer does every stream heartbeat). */
  renew(): Promise<void> {
    return this.leases.renew();
  }

  /** Gives back this instance's slots; the service's destroy calls it before the database closes. */
  close(): Promise<void> {
    return this.leases.close();
  }

  /** Deletes expired slots (a crashed instance's); the retention job calls it. */
  purgeExpired(): Promise<number> {
    return this.leases.purgeExpired();
  }
}
