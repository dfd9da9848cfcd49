import type { Logger } from 'pino';
import type { Adapter } from '../adapters/adapter.js';
import { type Clock, toIso } from '../clock.js';
import { type Db, type Dialect, inTransaction } from '../db/database.js';
import type { Delivery, DeliveryAttempt, DeliveryStatus } from '../db/schema.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { type EventBody, type OutboxSignal, recordEvent } from '../events/outbox.js';
import { decodeCursor, encodeCursor } from '../http/list-query.js';
import { newId } from '../ids.js';
import type { SettingsService } from '../settings/settings.service.js';
import { nextDelayMs, parseRetryAfter } from './backoff.js';
import {
  type AttemptOutcome,
  claimDueDeliveries,
  claimEventsForFanOut,
  deliveryQueueStats,
  deleteDeliveredEvents,
  deleteFinishedDeliveries,
  findDelivery,
  findEventPayloads,
  insertDeliveries,
  listAttempts,
  listDeliveries,
  markEventFannedOut,
  type NewDelivery,
  finishAttempt,
  finishAttemptsPg,
  insertAttempts,
  resetDelivery,
} from './delivery.repository.js';
import type { HttpSender } from './http-sender.js';
import { webhookHeaders } from './signature.js';

export const WEBHOOK_TARGET = 'webhook';
export const adapterTarget = (name: string) => `adapter:${name}`;
/** Sent by the admin "send test event" button; goes to the webhook only. */
export const TEST_EVENT = 'webhook.test';
const PURGE_BATCH = 1000;

/** Knobs tests turn (a 200 ms timeout instead of 10 s, a crash between send and record). */
export interface DeliveryOptions {
  /** A 2xx must arrive within this (CONTRACT §9: 10 s). Also the adapter call timeout. */
  timeoutMs: number;
  /** How long a claim is held; past it another worker may take the delivery (crash recovery). */
  leaseMs: number;
  /** Deliveries in flight at once per instance, so one slow target never holds up the others. */
  concurrency: number;
  fanOutBatch: number;
  /** Test hook run after the send and before the result is recorded; throwing simulates a crash there. */
  afterSend?: (delivery: Delivery) => Promise<void>;
  /** Told of every attempt once its result is recorded (metrics). */
  onAttempt?: (target: 'webhook' | 'adapter', outcome: DeliveryStatus, latencyMs: number) => void;
}

export function defaultDeliveryOptions(): DeliveryOptions {
  return { timeoutMs: 10_000, leaseMs: 60_000, concurrency: 64, fanOutBatch: 200 };
}

export interface DeliveryJson {
  id: string;
  event_id: string;
  event: string;
  target: string;
  url: string | null;
  status: DeliveryStatus;
  /** Attempts since the delivery was (re)queued; the show endpoint adds the full `attempts` log. */
  attempt_count: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

export interface AttemptJson {
  at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_body: string | null;
}

interface Outcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  latencyMs: number;
  retryAfterMs?: number;
}

export function deliveryJson(d: Delivery): DeliveryJson {
  return {
    id: d.id,
    event_id: d.event_id,
    event: d.event_type,
    target: d.target,
    url: d.url,
    status: d.status,
    attempt_count: d.attempts,
    next_attempt_at: d.status === 'pending' && d.next_attempt_at !== null ? toIso(d.next_attempt_at) : null,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    created_at: toIso(d.created_at),
    updated_at: toIso(d.updated_at),
    delivered_at: d.delivered_at !== null ? toIso(d.delivered_at) : null,
  };
}

function attemptJson(a: DeliveryAttempt): AttemptJson {
  return { at: toIso(a.at), status_code: a.status_code, latency_ms: a.latency_ms, error: a.error, response_body: a.response_body };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timeout after ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Events out (CONTRACT §9): fans each outbox event out to the webhook (URL snapshotted at fan-out) and
 * every enabled adapter, then delivers each target independently with a lease, retries and an attempt
 * log. No transaction is open while a target is called: claim commits, send, then record.
 */
export class DeliveryService {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly recordQueue: {
    delivery: Delivery;
    token: string;
    outcome: AttemptOutcome;
    resolve: (kept: boolean) => void;
    reject: (err: unknown) => void;
  }[] = [];
  private flushing = false;

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: SettingsService,
    private readonly outbox: OutboxSignal,
    private readonly sender: HttpSender,
    readonly adapters: readonly Adapter[],
    /** Shared with the adapters (their timeout); tests change it in place. */
    readonly options: DeliveryOptions = defaultDeliveryOptions(),
  ) {}

  /** Turns not-yet-fanned-out events into delivery rows, in batches; returns how many events it took. */
  async fanOut(): Promise<number> {
    let total = 0;
    for (;;) {
      // Read before the transaction: on SQLite a query outside an open transaction would wait for it.
      const { webhook_url } = await this.settings.get();
      const enabled = this.adapters.filter((a) => a.enabled);
      const now = this.clock.now();
      const taken = await inTransaction(this.db, async (tx) => {
        const events = await claimEventsForFanOut(tx, now, this.options.fanOutBatch, this.dialect === 'postgres');
        const rows: NewDelivery[] = [];
        for (const e of events) {
          if (webhook_url) rows.push({ id: newId('dlv', now), event_id: e.id, event_type: e.type, target: WEBHOOK_TARGET, url: webhook_url, now });
          if (e.type === TEST_EVENT) continue;
          for (const a of enabled) rows.push({ id: newId('dlv', now), event_id: e.id, event_type: e.type, target: adapterTarget(a.name), url: null, now });
        }
        await insertDeliveries(tx, rows);
        return events.length;
      });
      total += taken;
      if (taken < this.options.fanOutBatch) return total;
    }
  }

  /** Claims as many due deliveries as there are free slots and starts them; returns how many it started. */
  async fill(): Promise<number> {
    const free = this.options.concurrency - this.inFlight.size;
    if (free <= 0) return 0;
    const now = this.clock.now();
    const token = newId('lease', now);
    const claimed = await claimDueDeliveries(this.db, {
      now,
      leaseUntil: now + this.options.leaseMs,
      token,
      limit: free,
      skipLocked: this.dialect === 'postgres',
    });
    const payloads = await findEventPayloads(this.db, claimed.map((d) => d.event_id));
    for (const d of claimed) {
      const p: Promise<void> = this.processOne(d, token, payloads.get(d.event_id))
        .catch((err: unknown) => this.logger.error({ err, delivery: d.id }, 'delivery processing failed; the lease will expire and it is retried'))
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

  processAll(): Promise<void> {
    return this.drain();
  }

  /** Waits for the deliveries in flight (shutdown); their results are recorded before the database closes. */
  async settle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Drops idle keep-alive connections to receivers. */
  close(): void {
    this.sender.close();
  }

  private async processOne(d: Delivery, token: string, payload: string | undefined): Promise<void> {
    let outcome: Outcome;
    if (payload === undefined) {
      outcome = { ok: false, statusCode: null, error: 'event no longer exists', responseBody: null, latencyMs: 0 };
    } else if (d.target === WEBHOOK_TARGET) {
      outcome = await this.sendWebhook(d, payload);
    } else {
      outcome = await this.callAdapter(d, JSON.parse(payload) as EventBody);
    }
    if (this.options.afterSend) await this.options.afterSend(d);

    const now = this.clock.now();
    const attempts = d.attempts + 1;
    const delay = outcome.ok ? undefined : nextDelayMs(attempts, outcome.retryAfterMs);
    const status: DeliveryStatus = outcome.ok ? 'delivered' : delay === undefined ? 'failed' : 'pending';
    const kept = await this.record({
      delivery: d,
      token,
      outcome: {
        at: now,
        statusCode: outcome.statusCode,
        latencyMs: outcome.latencyMs,
        error: outcome.error,
        responseBody: outcome.responseBody,
        status,
        nextAttemptAt: delay === undefined ? null : now + delay,
      },
    });
    this.options.onAttempt?.(d.target === WEBHOOK_TARGET ? 'webhook' : 'adapter', status, outcome.latencyMs);
    if (!kept) this.logger.warn({ delivery: d.id }, 'lease lost before the attempt was recorded (another worker owns it now)');
    else if (status === 'failed') this.logger.warn({ delivery: d.id, target: d.target, event_id: d.event_id }, 'delivery failed for good');
  }

  /**
   * Group commit: results that finish while a write is running are recorded together in the next
   * transaction, so a busy worker pays one commit per batch instead of one per delivery.
   */
  private record(entry: { delivery: Delivery; token: string; outcome: AttemptOutcome }): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.recordQueue.push({ ...entry, resolve, reject });
      if (!this.flushing) void this.flushRecords();
    });
  }

  private async flushRecords(): Promise<void> {
    this.flushing = true;
    // One turn of the event loop lets the answers that arrived together join this commit.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.recordQueue.length > 0) {
        const batch = this.recordQueue.splice(0, 200);
        try {
          const kept = await inTransaction(this.db, async (tx) => {
            const out: boolean[] = [];
            if (this.dialect === 'postgres') {
              const ours = await finishAttemptsPg(tx, batch.map((e) => ({ deliveryId: e.delivery.id, token: e.token, outcome: e.outcome })));
              for (const e of batch) out.push(ours.has(e.delivery.id));
            } else {
              // SQLite runs each prepared update in microseconds in-process: no round trip to save.
              for (const e of batch) out.push(await finishAttempt(tx, e.delivery.id, e.token, e.outcome));
            }
            await insertAttempts(
              tx,
              batch.filter((_, i) => out[i]).map((e) => ({ deliveryId: e.delivery.id, outcome: e.outcome })),
            );
            return out;
          });
          for (const [i, e] of batch.entries()) e.resolve(kept[i] as boolean);
        } catch (err) {
          for (const e of batch) e.reject(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  private async sendWebhook(d: Delivery, body: string): Promise<Outcome> {
    if (!d.url) return { ok: false, statusCode: null, error: 'no webhook URL', responseBody: null, latencyMs: 0 };
    const { webhook_secret } = await this.settings.get();
    const ev = JSON.parse(body) as { event: string; id: string };
    const ts = Math.floor(this.clock.now() / 1000);
    const res = await this.sender.send({
      method: 'POST',
      url: d.url,
      headers: webhookHeaders(webhook_secret, ev, body, ts),
      body,
      timeoutMs: this.options.timeoutMs,
    });
    const ok = res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300;
    let error = res.error ?? null;
    if (!ok && !error && res.statusCode !== undefined) {
      error = res.statusCode >= 300 && res.statusCode < 400 ? `redirect (${res.statusCode}) not followed` : `HTTP ${res.statusCode}`;
    }
    return {
      ok,
      statusCode: res.statusCode ?? null,
      error,
      responseBody: res.responseBody ?? null,
      latencyMs: res.latencyMs,
      retryAfterMs: parseRetryAfter(res.retryAfter, this.clock.now()),
    };
  }

  private async callAdapter(d: Delivery, event: EventBody): Promise<Outcome> {
    const name = d.target.slice('adapter:'.length);
    const adapter = this.adapters.find((a) => a.name === name);
    if (!adapter?.enabled) return { ok: false, statusCode: null, error: `adapter ${name} is not enabled`, responseBody: null, latencyMs: 0 };
    const started = performance.now();
    try {
      await withTimeout(Promise.resolve().then(() => adapter.onEvent(event.event, event.data, { id: event.id, ts: event.ts })), this.options.timeoutMs);
      return { ok: true, statusCode: null, error: null, responseBody: null, latencyMs: Math.round(performance.now() - started) };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return { ok: false, statusCode: null, error: message.slice(0, 1000), responseBody: null, latencyMs: Math.round(performance.now() - started) };
    }
  }

  async list(filter: { status?: DeliveryStatus; event?: string; target?: string; limit: number; cursor?: string }) {
    const before = filter.cursor === undefined ? undefined : decodeCursor(filter.cursor, ['string'] as const)[0];
    const rows = await listDeliveries(this.db, { status: filter.status, event: filter.event, target: filter.target, before, limit: filter.limit + 1 });
    const items = rows.slice(0, filter.limit);
    const last = items[items.length - 1];
    const next = rows.length > filter.limit && last ? encodeCursor([last.id]) : null;
    return { items: items.map(deliveryJson), next_cursor: next };
  }

  async get(id: string): Promise<DeliveryJson & { attempts: AttemptJson[] }> {
    const d = await findDelivery(this.db, id);
    if (!d) throw new NotFoundError('not_found', `No delivery ${id}`);
    const attempts = await listAttempts(this.db, id);
    return { ...deliveryJson(d), attempts: attempts.map(attemptJson) };
  }

  /**
   * Queues one delivery again, due now, with a fresh retry schedule (any state). Not while an attempt
   * is in flight: clearing its lease would send it twice at once and drop that attempt's result.
   */
  async redeliver(id: string): Promise<DeliveryJson> {
    const d = await findDelivery(this.db, id);
    if (!d) throw new NotFoundError('not_found', `No delivery ${id}`);
    if (!(await resetDelivery(this.db, id, this.clock.now()))) {
      throw new ConflictError('invalid_transition', 'This delivery is being sent right now; redeliver it once this attempt is recorded');
    }
    this.outbox.kick();
    return deliveryJson((await findDelivery(this.db, id)) as Delivery);
  }

  /** Records a `webhook.test` event and its webhook delivery in one transaction, then wakes the worker. */
  async sendTestEvent(): Promise<{ event: EventBody; delivery: DeliveryJson }> {
    const { webhook_url } = await this.settings.get();
    if (!webhook_url) throw new ValidationError([{ field: 'webhook_url', message: 'is not set; set it in the settings first' }]);
    const now = this.clock.now();
    const deliveryId = newId('dlv', now);
    const event = await inTransaction(this.db, async (tx) => {
      const e = await recordEvent(tx, this.clock, TEST_EVENT, { message: 'This is a test event from svc.' });
      await markEventFannedOut(tx, e.id, now);
      await insertDeliveries(tx, [{ id: deliveryId, event_id: e.id, event_type: TEST_EVENT, target: WEBHOOK_TARGET, url: webhook_url, now }]);
      return e;
    });
    this.outbox.kick();
    return { event, delivery: deliveryJson((await findDelivery(this.db, deliveryId)) as Delivery) };
  }

  /**
   * Retention: deletes deliveries that finished (delivered or failed) and were created and last touched
   * more than `days` ago, their attempts, and then the events none of them refers to any more, in
   * batches so no transaction grows large. Pending deliveries and their events always stay.
   */
  async purgeFinished(days: number): Promise<number> {
    if (days <= 0) return 0;
    const cutoff = this.clock.now() - days * 86_400_000;
    const idBefore = newId('dlv', cutoff).slice(0, 'dlv_'.length + 10);
    let total = 0;
    for (;;) {
      const n = await inTransaction(this.db, (tx) => deleteFinishedDeliveries(tx, { idBefore, cutoff, batch: PURGE_BATCH }));
      total += n;
      if (n < PURGE_BATCH) break;
    }
    for (;;) {
      const n = await deleteDeliveredEvents(this.db, cutoff, PURGE_BATCH);
      if (n < PURGE_BATCH) break;
    }
    return total;
  }

  /** The queue as metrics report it, read from the database (shared by every instance). */
  async queueStats() {
    const s = await deliveryQueueStats(this.db);
    return {
      pending: s.pending,
      failed: s.failed,
      oldestPendingAt: s.oldestPending,
      oldestPendingMs: s.oldestPending === null ? null : Math.max(0, this.clock.now() - s.oldestPending),
      unfannedEvents: s.unfanned,
    };
  }

  adapterList() {
    return this.adapters.map((a) => ({ name: a.name, enabled: a.enabled, description: a.description }));
  }
}
