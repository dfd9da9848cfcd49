import type { Mailbox } from '../../platform/db/schema.js';
import type { LongRequestSlots } from '../../platform/limits/long-requests.js';
import type { MailReader, MessageSummary } from './mail-reader.service.js';
import type { MailService } from './mail.service.js';

/** At most this many waits per mailbox at once, over every instance sharing the database (docs/api.md, "Wait for a message"). */
export const WAITS_PER_MAILBOX = 5;
/** The longest wait, in seconds; a wait lifts its connection's idle timeout past its own (holdOpenFor). */
export const MAX_WAIT_SECONDS = 60;
const RETRY_AFTER_S = 5;

/** Which messages a wait answers with: substrings of the sender and subject (any case), and whether it has a code. */
export interface WaitFilter {
  /** A message newer than this one (by arrival); null: any message. */
  readonly after: string | null;
  readonly from?: string;
  readonly subject?: string;
  readonly hasCode?: boolean;
}

export type WaitedMessage = Awaited<ReturnType<MailReader['read']>>;

export function matchesWait(filter: WaitFilter): (m: MessageSummary) => boolean {
  const from = filter.from?.toLowerCase();
  const subject = filter.subject?.toLowerCase();
  return (m) =>
    (from === undefined || `${m.from ?? ''}\n${m.from_name ?? ''}`.toLowerCase().includes(from)) &&
    (subject === undefined || (m.subject ?? '').toLowerCase().includes(subject)) &&
    (filter.hasCode === undefined || (m.code !== null) === filter.hasCode);
}

/**
 * Long polls for a mailbox's next message: answered at once by the newest matching message already there,
 * else by the first matching arrival on any instance (the live-stream notices of MailService.subscribe), else
 * null when the time is up or the caller aborts (the client went away; the service closes). Each open wait
 * holds a lease on its mailbox and one of its client's long-request budget (src/platform/limits/long-requests.ts),
 * so both caps hold across instances and a crashed instance's waits expire. Proved by
 * test/integration/mail-machines.test.ts and test/integration/long-requests.test.ts.
 */
export class MessageWaits {
  private readonly waiting = new Set<() => void>();

  constructor(
    private readonly mail: MailService,
    private readonly reader: MailReader,
    private readonly slots: LongRequestSlots,
    private readonly perMailbox = WAITS_PER_MAILBOX,
  ) {}

  /** Waits open in this process. */
  get open(): number {
    return this.waiting.size;
  }

  /**
   * `client` (clientKey) is the client whose budget the wait counts in; undefined when the request carrying
   * the wait holds that slot already (an MCP request). Refused with RateLimitedError (429) when the mailbox
   * or the client is full.
   */
  async wait(mailbox: Mailbox, filter: WaitFilter, timeoutMs: number, signal?: AbortSignal, client?: string): Promise<WaitedMessage | null> {
    if (signal?.aborted) return null;
    const release = await this.slots.acquire(client, [
      { key: `wait-mailbox:${mailbox.address}`, max: this.perMailbox, retryAfterS: RETRY_AFTER_S, message: `This mailbox has ${this.perMailbox} waits open: retry later` },
    ]);
    const matches = matchesWait(filter);
    let finish: (value: WaitedMessage | null) => void = () => {};
    let fail: (err: unknown) => void = () => {};
    const answer = new Promise<WaitedMessage | null>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
    let done = false;
    const stop = () => {
      if (done) return false;
      done = true;
      return true;
    };
    const end = () => {
      if (stop()) finish(null);
    };
    // One look at a time; a notice during a look asks for one more, so no arrival is missed.
    let looking = false;
    let lookAgain = false;
    const look = async () => {
      if (looking) {
        lookAgain = true;
        return;
      }
      looking = true;
      try {
        do {
          lookAgain = false;
          const found = await this.reader.newestMatching(mailbox, filter.after, matches);
          if (found && stop()) finish(found);
        } while (lookAgain && !done);
      } catch (err) {
        if (stop()) fail(err);
      } finally {
        looking = false;
      }
    };
    // Subscribed before the first look, so a message arriving in between is not missed.
    const unsubscribe = this.mail.subscribe(mailbox.address, { mail: () => void look(), end });
    const timer = setTimeout(end, timeoutMs);
    signal?.addEventListener('abort', end, { once: true });
    this.waiting.add(end);
    try {
      void look();
      return await answer;
    } finally {
      this.waiting.delete(end);
      clearTimeout(timer);
      signal?.removeEventListener('abort', end);
      unsubscribe();
      release();
    }
  }

  /** Answers every open wait with null (the service is closing). */
  endAll(): void {
    for (const end of [...this.waiting]) end();
  }

  /** Gives back this instance's leases; the service's destroy calls it before the database closes. */
  close(): Promise<void> {
    return this.slots.close();
  }
}
