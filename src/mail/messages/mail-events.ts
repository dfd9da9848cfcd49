import type { Logger } from '../../platform/logger.js';
import pg from 'pg';
import type { BackgroundTask } from '../../platform/background-task.js';
import type { Db, Dialect } from '../../platform/db/database.js';
import type { MessageSummaryRow } from './mail.repository.js';
import { maxMessageSeq, messagesAfterSeq } from './mail-feed.repository.js';

/** What an SSE client is told when mail arrives (docs/api.md#mail: the live events). */
export interface MailNotice {
  readonly address: string;
  readonly id: string;
  readonly from: string | null;
  readonly subject: string | null;
  readonly received_at: number;
  /** The verification code found in the message, or null. */
  readonly code: string | null;
}

export function noticeOf(r: MessageSummaryRow): MailNotice {
  return { address: r.mailbox_address, id: r.id, from: r.from_address, subject: r.subject, received_at: r.received_at, code: r.code };
}

/** One live stream's ears: each arrival in its mailbox, and the end of the stream (its access is gone). */
export interface MailSubscriber {
  readonly mail: (notice: MailNotice) => void;
  readonly end: () => void;
}

/** The NOTIFY payload that ends the streams of a mailbox; it has no `address`, so instances that predate it hear nobody. */
export interface StreamsEnd {
  readonly end: string;
}

const POLL_MS = 1000;

/**
 * Tells subscribers (SSE streams) that mail arrived in a mailbox, whichever instance stored it, and
 * ends them when their access is gone (a deleted mail.tm account, docs/mailtm.md#deleting-an-account-ends-its-streams).
 * PostgreSQL: the intake transaction calls pg_notify and every instance LISTENs on a dedicated client;
 * an end is a notification on the same channel, so each instance hears it in commit order with the arrivals.
 * SQLite: a light poll on the messages' seq (one max() a second when nobody listens), kicked after each
 * local commit, so local mail shows at once and mail stored by another process within a second; an
 * end reaches this process's streams only (end()).
 */
export class MailEvents implements BackgroundTask {
  readonly name = 'mail-events';
  private readonly listeners = new Map<string, Set<MailSubscriber>>();
  private client?: pg.Client;
  private timer?: NodeJS.Timeout;
  private lastSeq = 0;
  private polling = false;
  private pollAgain = false;
  private stopped = true;

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    /** LISTEN/NOTIFY channel; includes the schema so instances on other schemas stay apart. */
    readonly channel: string,
    private readonly logger: Logger,
    private readonly postgresUrl?: string,
  ) {}

  subscribe(address: string, listener: MailSubscriber): () => void {
    let set = this.listeners.get(address);
    if (!set) {
      set = new Set();
      this.listeners.set(address, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(address);
    };
  }

  /**
   * Called by the intake after its commit, with the newest seq it stored. With nobody listening here, only the
   * high-water mark moves (no query): a stream opened later is told of what arrives after it.
   */
  committed(newestSeq: number): void {
    if (this.dialect !== 'sqlite') return;
    if (this.listeners.size === 0 && !this.polling) {
      this.lastSeq = Math.max(this.lastSeq, newestSeq);
      return;
    }
    void this.poll();
  }

  async start(): Promise<void> {
    this.stopped = false;
    if (this.dialect === 'postgres') {
      await this.listen();
      return;
    }
    this.lastSeq = await maxMessageSeq(this.db);
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  /** Ends every stream of the mailbox in this process (an end() unsubscribes it, so the next stream starts afresh). */
  end(address: string): void {
    for (const listener of [...(this.listeners.get(address) ?? [])]) {
      try {
        listener.end();
      } catch (err) {
        this.logger.warn({ err }, 'mail event listener failed to end');
      }
    }
  }

  private dispatch(notice: MailNotice): void {
    for (const listener of this.listeners.get(notice.address) ?? []) {
      try {
        listener.mail(notice);
      } catch (err) {
        this.logger.warn({ err }, 'mail event listener failed');
      }
    }
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.postgresUrl });
    client.on('notification', (msg) => {
      if (msg.channel !== this.channel || !msg.payload) return;
      try {
        const signal = JSON.parse(msg.payload) as MailNotice | StreamsEnd;
        if ('end' in signal) this.end(signal.end);
        else this.dispatch(signal);
      } catch (err) {
        this.logger.warn({ err }, 'bad mail notification');
      }
    });
    client.on('error', (err) => {
      this.logger.warn({ err }, 'mail LISTEN connection lost; reconnecting');
      if (this.client === client) this.client = undefined;
      client.end().catch(() => {});
      if (!this.stopped) setTimeout(() => void this.listen().catch((e) => this.logger.warn({ err: e }, 'mail LISTEN reconnect failed')), 1000).unref();
    });
    await client.connect();
    await client.query(`LISTEN "${this.channel.replace(/"/g, '""')}"`);
    if (this.stopped) {
      await client.end();
      return;
    }
    this.client = client;
  }

  private async poll(): Promise<void> {
    if (this.stopped) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = true;
    try {
      do {
        this.pollAgain = false;
        // Read the high-water mark first: mail for mailboxes nobody watches is then skipped over,
        // and nothing that commits between the two queries is lost.
        const newest = await maxMessageSeq(this.db);
        if (newest <= this.lastSeq) continue;
        // Nobody listens: only keep up, so that a stream opened later is told of what arrives after it,
        // not of everything since the last stream closed.
        if (this.listeners.size === 0) {
          this.lastSeq = newest;
          continue;
        }
        const rows = await messagesAfterSeq(this.db, this.lastSeq, newest, [...this.listeners.keys()], 500);
        for (const r of rows) {
          this.dispatch(noticeOf(r));
        }
        this.lastSeq = rows.length === 500 ? rows[rows.length - 1]!.seq : newest;
        if (rows.length === 500) this.pollAgain = true;
      } while (this.pollAgain && !this.stopped);
    } catch (err) {
      this.logger.warn({ err }, 'mail poll failed');
    } finally {
      this.polling = false;
    }
  }
}
