import type { Clock } from '../clock.js';
import { type Db, type Executor, inTransaction } from '../db/database.js';
import type { Delivery, DeliveryStatus, EventRow } from '../db/schema.js';
import type { AnyEvent } from '../events/catalogue.js';
import { newId } from '../ids.js';
import type { Logger } from '../logger.js';
import { AttemptRecorder } from './attempt-recorder.js';
import { nextDelayMs } from './backoff.js';
import { type DeliveryQueueRepository, findEventPayloads, insertDeliveries, type LaneFilter, type NewDelivery } from './delivery-queue.repository.js';
import { type DeliveryOptions, type DeliveryTarget, failedOutcome, type Outcome, type TargetKind, targetNotRunning } from './delivery-target.js';

/** Told of every attempt once its result is recorded (metrics). */
export type AttemptObserver = (kind: TargetKind, status: DeliveryStatus, latencyMs: number) => void;

export interface DispatcherDeps {
  readonly db: Db;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly queue: DeliveryQueueRepository;
  /** The webhook and every registered adapter. */
  readonly targets: readonly DeliveryTarget[];
  /** Shared with the targets (their timeout); tests change it in place. */
  readonly options: DeliveryOptions;
  readonly onAttempt?: AttemptObserver;
  /** Which deliveries this dispatcher claims and where their payloads are; the outbox's events unless given. */
  readonly lane?: DeliveryLane;
  /** Runs in each fan-out transaction with the events it took (mails caused by events are queued there). */
  readonly onFanOut?: (tx: Executor, events: readonly EventRow[], now: number) => Promise<void>;
  /** Runs in the transaction that records deliveries failed for good (the admin's "webhook failing" mail). */
  readonly onFailed?: (tx: Executor, deliveryIds: readonly string[], now: number) => Promise<void>;
}

/**
 * A dispatcher's share of the `deliveries` queue. The outbox lane fans events out and claims every
 * target but the ones other lanes own; another lane (outbound mail) claims only its target, reads its
 * payloads from its own table and never fans out, so a slow target there never takes the outbox's slots.
 */
export interface DeliveryLane {
  readonly claims: LaneFilter;
  readonly fansOut: boolean;
  payloads(db: Executor, ids: readonly string[]): Promise<Map<string, string>>;
}

/**
 * Events out (CONTRACT §9): fans each outbox event out to the targets that want it, then claims due
 * deliveries with a lease and runs each on its target, independently, with retries. No transaction is
 * open while a target is called: the claim commits, the target runs, then the result is recorded.
 */
export class DeliveryDispatcher {
  readonly options: DeliveryOptions;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly targets: ReadonlyMap<string, DeliveryTarget>;
  private readonly recorder: AttemptRecorder;

  constructor(private readonly deps: DispatcherDeps) {
    this.options = deps.options;
    this.targets = new Map(deps.targets.map((t) => [t.name, t]));
    this.recorder = new AttemptRecorder(deps.db, deps.queue, deps.onFailed);
  }

  /** Turns not-yet-fanned-out events into delivery rows, in batches; returns how many events it took. */
  async fanOut(): Promise<number> {
    const { db, clock, queue } = this.deps;
    if (this.deps.lane && !this.deps.lane.fansOut) return 0;
    let total = 0;
    for (;;) {
      // Read before the transaction: on SQLite a query outside an open transaction would wait for it.
      const open = await this.openTargets();
      const now = clock.now();
      const taken = await inTransaction(db, async (tx) => {
        const events = await queue.claimEventsForFanOut(tx, now, this.options.fanOutBatch);
        const rows: NewDelivery[] = [];
        for (const e of events) {
          for (const { target, url } of open) {
            if (target.wants(e.type)) rows.push({ id: newId('dlv', now), event_id: e.id, event_type: e.type, target: target.name, url, now });
          }
        }
        await insertDeliveries(tx, rows);
        if (this.deps.onFanOut && events.length > 0) await this.deps.onFanOut(tx, events, now);
        return events.length;
      });
      total += taken;
      if (taken < this.options.fanOutBatch) return total;
    }
  }

  private async openTargets(): Promise<{ target: DeliveryTarget; url: string | null }[]> {
    const open: { target: DeliveryTarget; url: string | null }[] = [];
    for (const target of this.targets.values()) {
      const route = await target.open();
      if (route) open.push({ target, url: route.url });
    }
    return open;
  }

  /** Claims as many due deliveries as there are free slots and starts them; returns how many it started. */
  async fill(): Promise<number> {
    const free = this.options.concurrency - this.inFlight.size;
    if (free <= 0) return 0;
    const { db, clock, queue, logger } = this.deps;
    const now = clock.now();
    const token = newId('lease', now);
    const lane = this.deps.lane;
    const claimed = await queue.claimDueDeliveries(db, { now, leaseUntil: now + this.options.leaseMs, token, limit: free, lane: lane?.claims });
    const ids = claimed.map((d) => d.event_id);
    const payloads = lane ? await lane.payloads(db, ids) : await findEventPayloads(db, ids);
    for (const d of claimed) {
      const p: Promise<void> = this.runOne(d, token, payloads.get(d.event_id))
        .catch((err: unknown) => logger.error({ err, delivery: d.id }, 'delivery processing failed; the lease will expire and it is retried'))
        .finally(() => {
          this.inFlight.delete(p);
        });
      this.inFlight.add(p);
    }
    return claimed.length;
  }

  /**
   * Delivers everything due now (by the service clock) and waits until nothing is in flight. Tests call
   * this instead of sleeping; move the clock past a backoff and drain again for the next attempt.
   */
  async drain(): Promise<void> {
    await this.work(() => false, true);
  }

  /**
   * One worker pass: keeps the slots busy while deliveries are due and returns once nothing more is
   * due, without waiting for the last ones in flight, so a slow target never holds up the next kick.
   */
  pump(shouldStop: () => boolean): Promise<void> {
    return this.work(shouldStop, false);
  }

  // Claims in chunks (refill when half the slots are free) and fans out only when the queue runs dry,
  // so a busy worker spends its queries on deliveries, not on empty polls.
  private async work(shouldStop: () => boolean, waitForAll: boolean): Promise<void> {
    await this.fanOut();
    const low = Math.max(1, Math.floor(this.options.concurrency / 2));
    while (!shouldStop()) {
      const started = await this.fill();
      if (started > 0) {
        while (this.inFlight.size >= low) await Promise.race(this.inFlight);
        continue;
      }
      if ((await this.fanOut()) > 0) continue;
      if (!waitForAll || this.inFlight.size === 0) return;
      await Promise.race(this.inFlight);
    }
  }

  /** Waits for the deliveries in flight (shutdown); their results are recorded before the database closes. */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Lets the targets drop what they hold open (keep-alive connections to receivers). */
  close(): void {
    for (const target of this.targets.values()) target.close?.();
  }

  private async runOne(d: Delivery, token: string, payload: string | undefined): Promise<void> {
    const { clock, logger } = this.deps;
    const target = this.targets.get(d.target);
    let outcome: Outcome;
    if (payload === undefined) outcome = failedOutcome('event no longer exists');
    // A row for a target this instance does not run (an adapter registered elsewhere only).
    else if (!target) outcome = targetNotRunning(d.target);
    else outcome = await target.deliver({ body: payload, envelope: JSON.parse(payload) as AnyEvent }, d);
    if (this.options.afterSend) await this.options.afterSend(d);

    const now = clock.now();
    const attempts = d.attempts + 1;
    const delay = outcome.ok ? undefined : nextDelayMs(attempts, outcome.retryAfterMs);
    const status: DeliveryStatus = outcome.ok ? 'delivered' : delay === undefined ? 'failed' : 'pending';
    const kept = await this.recorder.record(d.id, token, {
      at: now,
      statusCode: outcome.statusCode,
      latencyMs: outcome.latencyMs,
      error: outcome.error,
      responseBody: outcome.responseBody,
      status,
      nextAttemptAt: delay === undefined ? null : now + delay,
    });
    this.deps.onAttempt?.(target?.kind ?? 'adapter', status, outcome.latencyMs);
    if (!kept) logger.warn({ delivery: d.id }, 'lease lost before the attempt was recorded (another worker owns it now)');
    else if (status === 'failed') logger.warn({ delivery: d.id, target: d.target, event_id: d.event_id }, 'delivery failed for good');
  }
}
