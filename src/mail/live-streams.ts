import { RateLimitedError } from '../errors.js';

/** CONTRACT §11: at most 5 open event streams per mailbox and 50 per client IP. */
export const LIVE_STREAM_LIMITS = Object.freeze({ perMailbox: 5, perClient: 50 });

/** What a refused stream is told to wait: slots free only when other streams close, which nobody can predict. */
export const LIVE_STREAM_RETRY_AFTER_S = 30;

/**
 * Open live streams (SSE) of this process, counted per mailbox and per client (clientKey), so that one
 * token or one client cannot hold thousands of sockets open. The counts are per instance: they guard
 * this process's file descriptors and memory, need no database write per stream, and cannot be left
 * behind by a crashed instance. Behind a load balancer a mailbox can therefore have 5 streams on each
 * instance. Every kind of live stream (the inbox's SSE, the mail.tm Mercure stream) takes its slots here.
 */
export class LiveStreamSlots {
  private readonly byMailbox = new Map<string, number>();
  private readonly byClient = new Map<string, number>();

  constructor(private readonly limits: { readonly perMailbox: number; readonly perClient: number } = LIVE_STREAM_LIMITS) {}

  /**
   * Takes a slot of the mailbox and one of the client, or neither and throws RateLimitedError (429).
   * Call it with no await between it and opening the stream; the answer releases both slots, once.
   */
  acquire(mailbox: string, client: string): () => void {
    const m = this.byMailbox.get(mailbox) ?? 0;
    const c = this.byClient.get(client) ?? 0;
    if (m >= this.limits.perMailbox || c >= this.limits.perClient) throw new RateLimitedError(LIVE_STREAM_RETRY_AFTER_S);
    this.byMailbox.set(mailbox, m + 1);
    this.byClient.set(client, c + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      decrement(this.byMailbox, mailbox);
      decrement(this.byClient, client);
    };
  }

  /** Streams open in this process. */
  get open(): number {
    let n = 0;
    for (const v of this.byMailbox.values()) n += v;
    return n;
  }
}

function decrement(map: Map<string, number>, key: string): void {
  const n = (map.get(key) ?? 0) - 1;
  if (n > 0) map.set(key, n);
  else map.delete(key);
}
