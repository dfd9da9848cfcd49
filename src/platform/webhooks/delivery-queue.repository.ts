import { sql } from 'kysely';
import type { Dialect, Executor } from '../db/database.js';
import type { Delivery, DeliveryStatus, EventRow } from '../db/schema.js';

/**
 * The delivery queue's statements whose SQL depends on the dialect: SKIP LOCKED on PostgreSQL, where
 * several instances claim at once (SQLite runs one writer at a time, so a statement alone is atomic
 * there), and the batched result update. Built once with the database's dialect.
 */
export class DeliveryQueueRepository {
  private readonly skipLocked: boolean;

  constructor(private readonly dialect: Dialect) {
    this.skipLocked = dialect === 'postgres';
  }

  /** Takes up to `limit` events not yet fanned out and marks them, in the caller's transaction. */
  async claimEventsForFanOut(db: Executor, now: number, limit: number): Promise<EventRow[]> {
    return db
      .updateTable('events')
      .set({ fanned_out_at: now })
      .where('fanned_out_at', 'is', null)
      .where('seq', 'in', (eb) => {
        const q = eb.selectFrom('events').select('seq').where('fanned_out_at', 'is', null).orderBy('seq').limit(limit);
        return this.skipLocked ? q.forUpdate().skipLocked() : q;
      })
      .returningAll()
      .execute();
  }

  /**
   * Claims due deliveries with a lease: one statement sets locked_until/lock_token on rows that are
   * pending, due and not leased.
   */
  async claimDueDeliveries(db: Executor, opts: { now: number; leaseUntil: number; token: string; limit: number; lane?: LaneFilter }): Promise<Delivery[]> {
    const { now, leaseUntil, token, limit, lane } = opts;
    return db
      .updateTable('deliveries')
      .set({ locked_until: leaseUntil, lock_token: token })
      // Only the lease is re-checked outside: with status/next_attempt_at here SQLite would walk every
      // due row through the status index instead of the few ids from the subquery.
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
      .where('id', 'in', (eb) => {
        const q = eb
          .selectFrom('deliveries')
          .select('id')
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', now)
          .where((w) => w.or([w('locked_until', 'is', null), w('locked_until', '<=', now)]))
          .$if(lane?.only !== undefined, (w) => w.where('target', '=', lane?.only as string))
          .$if(lane?.except !== undefined, (w) => w.where('target', '!=', lane?.except as string))
          .orderBy('next_attempt_at')
          .limit(limit);
        return this.skipLocked ? q.forUpdate().skipLocked() : q;
      })
      .returningAll()
      .execute();
  }

  /**
   * Sets each delivery's next state after an attempt, but only while we still hold its lease (same
   * token): if the lease ran out and another instance took the row, its result wins. Answers the ids
   * whose lease was still ours, i.e. the rows it changed.
   */
  async finishAttempts(db: Executor, rows: readonly FinishedAttempt[]): Promise<Set<string>> {
    if (rows.length === 0) return new Set();
    if (this.dialect === 'postgres') return finishAttemptsInOneStatement(db, rows);
    // SQLite runs each prepared update in microseconds in-process: no round trip to save.
    const ours = new Set<string>();
    for (const r of rows) if (await finishAttempt(db, r)) ours.add(r.deliveryId);
    return ours;
  }
}

/** Which deliveries a dispatcher claims: one target only, or all but one (each lane has its own slots and timeouts). */
export interface LaneFilter {
  readonly only?: string;
  readonly except?: string;
}

export async function markEventFannedOut(db: Executor, eventId: string, now: number): Promise<void> {
  await db.updateTable('events').set({ fanned_out_at: now }).where('id', '=', eventId).execute();
}

export async function findEventPayloads(db: Executor, eventIds: readonly string[]): Promise<Map<string, string>> {
  if (eventIds.length === 0) return new Map();
  const rows = await db.selectFrom('events').select(['id', 'payload']).where('id', 'in', [...new Set(eventIds)]).execute();
  return new Map(rows.map((r) => [r.id, r.payload]));
}

export interface NewDelivery {
  readonly id: string;
  readonly event_id: string;
  readonly event_type: string;
  readonly target: string;
  readonly url: string | null;
  readonly now: number;
}

/** Inserts the rows; a (event, target) pair that already exists is left alone, so a repeated fan-out is harmless. */
export async function insertDeliveries(db: Executor, rows: readonly NewDelivery[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('deliveries')
    .values(
      rows.map((r) => ({
        id: r.id,
        event_id: r.event_id,
        event_type: r.event_type,
        target: r.target,
        url: r.url,
        status: 'pending' as const,
        attempts: 0,
        next_attempt_at: r.now,
        created_at: r.now,
        updated_at: r.now,
      })),
    )
    .onConflict((oc) => oc.columns(['event_id', 'target']).doNothing())
    .execute();
}

export interface AttemptOutcome {
  readonly at: number;
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  readonly responseBody: string | null;
  readonly status: DeliveryStatus;
  readonly nextAttemptAt: number | null;
}

export interface FinishedAttempt {
  readonly deliveryId: string;
  /** The lease token the attempt was claimed with. */
  readonly token: string;
  readonly outcome: AttemptOutcome;
}

async function finishAttempt(db: Executor, { deliveryId, token, outcome: o }: FinishedAttempt): Promise<boolean> {
  const res = await db
    .updateTable('deliveries')
    .set((eb) => ({
      status: o.status,
      attempts: eb('attempts', '+', 1),
      next_attempt_at: o.nextAttemptAt,
      locked_until: null,
      lock_token: null,
      last_status_code: o.statusCode,
      last_error: o.error,
      updated_at: o.at,
      delivered_at: o.status === 'delivered' ? o.at : null,
    }))
    .where('id', '=', deliveryId)
    .where('lock_token', '=', token)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** PostgreSQL: the batch travels as arrays joined with unnest, one round trip per batch instead of one per delivery. */
async function finishAttemptsInOneStatement(db: Executor, rows: readonly FinishedAttempt[]): Promise<Set<string>> {
  const col = <T>(f: (r: FinishedAttempt) => T) => rows.map(f);
  const res = await sql<{ id: string }>`
    update deliveries as d set
      status = v.status,
      attempts = d.attempts + 1,
      next_attempt_at = v.next_attempt_at,
      locked_until = null,
      lock_token = null,
      last_status_code = v.status_code,
      last_error = v.error,
      updated_at = v.at,
      delivered_at = case when v.status = 'delivered' then v.at end
    from unnest(
      ${col((r) => r.deliveryId)}::text[], ${col((r) => r.token)}::text[], ${col((r) => r.outcome.status)}::text[],
      ${col((r) => r.outcome.nextAttemptAt)}::bigint[], ${col((r) => r.outcome.statusCode)}::int[],
      ${col((r) => r.outcome.error)}::text[], ${col((r) => r.outcome.at)}::bigint[]
    ) as v(id, token, status, next_attempt_at, status_code, error, at)
    where d.id = v.id and d.lock_token = v.token
    returning d.id`.execute(db);
  return new Set(res.rows.map((r) => r.id));
}

/** Appends attempts to the log, many in one statement. */
export async function insertAttempts(db: Executor, rows: readonly { deliveryId: string; outcome: AttemptOutcome }[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('delivery_attempts')
    .values(
      rows.map(({ deliveryId, outcome: o }) => ({
        delivery_id: deliveryId,
        at: o.at,
        status_code: o.statusCode,
        latency_ms: o.latencyMs,
        error: o.error,
        response_body: o.responseBody,
      })),
    )
    .execute();
}
