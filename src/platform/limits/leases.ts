import type { Clock } from '../clock.js';
import { type Db, type Executor, inTransaction } from '../db/database.js';
import { randomToken } from '../ids.js';
import type { Logger } from '../logger.js';
import { deleteInstanceLeases, deleteLease, insertLease, liveLeases, lockLeaseKey, purgeLeases, renewLeases } from './limits.repository.js';

/** A limited key and how many live leases it may have at once. */
export interface LeaseKey {
  readonly key: string;
  readonly max: number;
}

/** How often an instance renews its leases; a lease not renewed for four times that has expired. */
export interface LeaseTiming {
  readonly renewEveryMs: number;
}

/**
 * Leases on limited keys in the database, so that a cap on things held open (live streams) holds for
 * the sum over every instance sharing it (README.md#shared-limits). A lease is taken on all its keys or on none, in
 * one transaction that locks the keys' rows in one order, counts their live leases and adds one: N
 * instances opening at once get at most `max` between them. Each lease names its instance, which
 * renews all of its leases every `renewEveryMs` while it holds any; a lease not renewed for four times
 * that has expired and counts no more, so the leases of a crashed instance (or of one that lost its
 * database) free their slots within a minute by default, without anyone cleaning up. Proved by
 * test/integration/shared-limits.test.ts.
 */
export class Leases {
  private readonly held = new Set<string>();
  private readonly releasing = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private renewing?: Promise<void>;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** This instance, in its lease rows. */
    readonly instance: string,
    private readonly timing: LeaseTiming,
  ) {}

  private get ttlMs(): number {
    return 4 * this.timing.renewEveryMs;
  }

  /** Takes a lease on every key, or on none when one of them is full: then answers undefined. The function answered releases it, once. */
  async acquire(keys: readonly LeaseKey[]): Promise<(() => void) | undefined> {
    const taken = await this.take(keys);
    return 'release' in taken ? taken.release : undefined;
  }

  /** As acquire, saying which key was full when it takes none (a refusal worded for that key). */
  async take(keys: readonly LeaseKey[]): Promise<{ readonly release: () => void } | { readonly full: LeaseKey }> {
    const now = this.clock.now();
    const sorted = [...keys].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const fullKey = async (db: Executor) => {
      for (const k of sorted) if ((await liveLeases(db, k.key, now)) >= k.max) return k;
      return undefined;
    };
    // A key already full is refused on a plain read, so a flood of refused opens writes nothing and takes
    // no lock. Leases only go by release or expiry, so one seen full here was full.
    const seenFull = await fullKey(this.db);
    if (seenFull) return { full: seenFull };
    const id = randomToken(20);
    const full = await inTransaction(this.db, async (tx) => {
      // always the same order, so two instances never wait on each other's second lock (deadlock)
      for (const k of sorted) await lockLeaseKey(tx, k.key, now);
      const found = await fullKey(tx);
      if (found) return found;
      await insertLease(tx, sorted.map((k) => ({ id, key: k.key, instance: this.instance, expires_at: now + this.ttlMs })));
      return undefined;
    });
    if (full) return { full };
    this.held.add(id);
    this.keepRenewing();
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      // A release that fails (the database is gone) leaves the lease to expire.
      const done: Promise<void> = deleteLease(this.db, id)
        .catch((err: unknown) => this.logger.warn({ err }, 'a live lease could not be released; it expires by itself'))
        .finally(() => {
          this.releasing.delete(done);
          this.held.delete(id);
          if (this.held.size === 0) this.stopRenewing();
        });
      this.releasing.add(done);
    };
    return { release };
  }

  /** Leases this instance holds (a released one counts until its row is gone). */
  get open(): number {
    return this.held.size;
  }

  /** Renews every lease of this instance (its timer calls this; a test may call it instead of waiting). */
  renew(): Promise<void> {
    this.renewing ??= renewLeases(this.db, this.instance, this.clock.now() + this.ttlMs)
      .catch((err: unknown) => this.logger.warn({ err }, 'live leases could not be renewed'))
      .finally(() => {
        this.renewing = undefined;
      });
    return this.renewing;
  }

  /** Stops renewing and gives back every lease of this instance (the service's destroy, before the database closes). */
  async close(): Promise<void> {
    this.closed = true;
    this.stopRenewing();
    await this.renewing;
    await Promise.all(this.releasing);
    this.held.clear();
    await deleteInstanceLeases(this.db, this.instance).catch((err: unknown) => this.logger.warn({ err }, 'live leases could not be given back; they expire by themselves'));
  }

  /** Deletes expired leases and lock rows nobody touched for as long (the per-minute retention job). */
  purgeExpired(): Promise<number> {
    const now = this.clock.now();
    return purgeLeases(this.db, now, now - this.ttlMs);
  }

  private keepRenewing(): void {
    // a lease taken while the service closed is left to expire: no timer outlives the database
    if (this.timer || this.closed) return;
    this.timer = setInterval(() => void this.renew(), this.timing.renewEveryMs);
    this.timer.unref();
  }

  private stopRenewing(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
