import type { LongRequestSlots } from '../../platform/limits/long-requests.js';

/** README.md#limits: at most 5 open event streams per mailbox; per client they count in the long-request budget (50 by default). */
export const LIVE_STREAM_LIMITS = Object.freeze({ perMailbox: 5 });

/** What a refused stream is told to wait: slots free only when other streams close, which nobody can predict. */
export const LIVE_STREAM_RETRY_AFTER_S = 30;

/**
 * Open live streams counted per mailbox and, with the client's waits and MCP requests, in the client's
 * budget of long-lived requests (src/platform/limits/long-requests.ts), so that one token or one client
 * cannot hold thousands of sockets open. The slots are leases in the database, so the caps hold for the
 * sum over every instance sharing it (README.md#shared-limits), and a crashed instance's slots expire
 * with their leases. Every kind of live stream (the inbox's SSE, the mail.tm Mercure stream) takes its
 * slots here.
 */
export class LiveStreamSlots {
  constructor(
    private readonly slots: LongRequestSlots,
    private readonly limits: { readonly perMailbox: number } = LIVE_STREAM_LIMITS,
  ) {}

  /**
   * Takes a slot of the mailbox and one of the client, or neither and throws RateLimitedError (429).
   * The answer releases both slots, once.
   */
  acquire(mailbox: string, client: string): Promise<() => void> {
    return this.slots.acquire(client, [
      {
        key: `stream-mailbox:${mailbox}`,
        max: this.limits.perMailbox,
        retryAfterS: LIVE_STREAM_RETRY_AFTER_S,
        message: `This mailbox has ${this.limits.perMailbox} event streams open: close one first`,
      },
    ]);
  }

  /** Streams open in this process. */
  get open(): number {
    return this.slots.open;
  }

  /** Renews this instance's slots now (as its timer does every stream heartbeat). */
  renew(): Promise<void> {
    return this.slots.renew();
  }

  /** Gives back this instance's slots; the service's destroy calls it before the database closes. */
  close(): Promise<void> {
    return this.slots.close();
  }

  /** Deletes expired slots (a crashed instance's, of any kind of long-lived request); the retention job calls it. */
  purgeExpired(): Promise<number> {
    return this.slots.purgeExpired();
  }
}
