import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import type { Delivery, DeliveryAttempt, DeliveryStatus, EventRow } from '../db/schema.js';

/**
 * Takes up to `limit` events not yet fanned out and marks them, in the caller's transaction. On
 * PostgreSQL, SKIP LOCKED lets several instances fan out at once without waiting on each other.
 */
export async function claimEventsForFanOut(db: Executor, now: number, limit: number, skipLocked: boolean): Promise<EventRow[]> {
  return db
    .updateTable('events')
    .set({ fanned_out_at: now })
    .where('fanned_out_at', 'is', null)
    .where('seq', 'in', (eb) => {
      const q = eb.selectFrom('events').select('seq').where('fanned_out_at', 'is', null).orderBy('seq').limit(limit);
      return skipLocked ? q.forUpdate().skipLocked() : q;
    })
    .returningAll()
    .execute();
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

/**
 * Claims due deliveries with a lease: one statement sets locked_until/lock_token on rows that are
 * pending, due and not leased. On PostgreSQL the inner select skips rows other instances are claiming;
 * SQLite runs one writer at a time, so the statement alone is atomic there.
 */
export async function claimDueDeliveries(
  db: Executor,
  opts: { now: number; leaseUntil: number; token: string; limit: number; skipLocked: boolean },
): Promise<Delivery[]> {
  const { now, leaseUntil, token, limit, skipLocked } = opts;
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
        .orderBy('next_attempt_at')
        .limit(limit);
      return skipLocked ? q.forUpdate().skipLocked() : q;
    })
    .returningAll()
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

/**
 * Sets the delivery's next state after an attempt, but only while we still hold the lease (same
 * token): if the lease ran out and another instance took the row, its result wins. False when lost.
 */
export async function finishAttempt(db: Executor, deliveryId: string, token: string, o: AttemptOutcome): Promise<boolean> {
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

/**
 * finishAttempt for many deliveries in one statement (PostgreSQL: the batch travels as arrays and is
 * joined with unnest), so a busy worker pays one round trip per batch instead of one per delivery.
 * Answers the ids whose lease was still ours, i.e. the rows it changed.
 */
export async function finishAttemptsPg(db: Executor, rows: readonly { deliveryId: string; token: string; outcome: AttemptOutcome }[]): Promise<Set<string>> {
  if (rows.length === 0) return new Set();
  const col = <T>(f: (r: (typeof rows)[number]) => T) => rows.map(f);
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

export async function findDelivery(db: Executor, id: string): Promise<Delivery | undefined> {
  return db.selectFrom('deliveries').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listAttempts(db: Executor, deliveryId: string): Promise<DeliveryAttempt[]> {
  return db.selectFrom('delivery_attempts').selectAll().where('delivery_id', '=', deliveryId).orderBy('id').execute();
}

export interface DeliveryFilter {
  readonly status?: DeliveryStatus;
  readonly event?: string;
  readonly target?: string;
  readonly eventId?: string;
  /** Items with an id below this one (newest first). */
  readonly before?: string;
  readonly limit: number;
}

export async function listDeliveries(db: Executor, f: DeliveryFilter): Promise<Delivery[]> {
  let q = db.selectFrom('deliveries').selectAll();
  if (f.status) q = q.where('status', '=', f.status);
  if (f.event) q = q.where('event_type', '=', f.event);
  if (f.target) q = q.where('target', '=', f.target);
  if (f.eventId) q = q.where('event_id', '=', f.eventId);
  if (f.before) q = q.where('id', '<', f.before);
  return q.orderBy('id', 'desc').limit(f.limit).execute();
}

/**
 * Puts a delivery back in the queue, due now, with a fresh schedule; the attempt log is kept. A
 * delivery whose lease is live (being sent right now) is left alone: false.
 */
export async function resetDelivery(db: Executor, id: string, now: number): Promise<boolean> {
  const res = await db
    .updateTable('deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: now, locked_until: null, lock_token: null, updated_at: now, delivered_at: null })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/**
 * Deletes up to `batch` finished (delivered or failed) deliveries created and last touched before
 * `cutoff`, with their attempts. Delivery ids begin with their creation time, so `id < idBefore`
 * is a range on the primary key rather than a scan of every finished row. Answers how many it deleted.
 */
export async function deleteFinishedDeliveries(db: Executor, opts: { idBefore: string; cutoff: number; batch: number }): Promise<number> {
  const ids = (
    await db
      .selectFrom('deliveries')
      .select('id')
      .where('id', '<', opts.idBefore)
      .where('status', 'in', ['delivered', 'failed'])
      .where('updated_at', '<', opts.cutoff)
      .orderBy('id')
      .limit(opts.batch)
      .execute()
  ).map((r) => r.id);
  if (ids.length === 0) return 0;
  await db.deleteFrom('delivery_attempts').where('delivery_id', 'in', ids).execute();
  await db.deleteFrom('deliveries').where('id', 'in', ids).execute();
  return ids.length;
}

/** Deletes up to `batch` events fanned out before `cutoff` that no delivery refers to any more. */
export async function deleteDeliveredEvents(db: Executor, cutoff: number, batch: number): Promise<number> {
  const res = await db
    .deleteFrom('events')
    .where('seq', 'in', (eb) =>
      eb
        .selectFrom('events as e')
        .select('e.seq')
        .where('e.fanned_out_at', '<', cutoff)
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('deliveries as d').select('d.id').whereRef('d.event_id', '=', 'e.id'))))
        .orderBy('e.fanned_out_at')
        .limit(batch),
    )
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** Counts for the metrics: pending and failed deliveries, the oldest pending one, events not fanned out. */
export async function deliveryQueueStats(db: Executor): Promise<{ pending: number; failed: number; oldestPending: number | null; unfanned: number }> {
  const [byStatus, unfanned] = await Promise.all([
    db
      .selectFrom('deliveries')
      .select((eb) => ['status', eb.fn.countAll<number | string>().as('n'), eb.fn.min('created_at').as('oldest')])
      .where('status', 'in', ['pending', 'failed'])
      .groupBy('status')
      .execute(),
    db
      .selectFrom('events')
      .select((eb) => eb.fn.countAll<number | string>().as('n'))
      .where('fanned_out_at', 'is', null)
      .executeTakeFirstOrThrow(),
  ]);
  const pending = byStatus.find((r) => r.status === 'pending');
  return {
    pending: Number(pending?.n ?? 0),
    failed: Number(byStatus.find((r) => r.status === 'failed')?.n ?? 0),
    oldestPending: pending?.oldest == null ? null : Number(pending.oldest),
    unfanned: Number(unfanned.n),
  };
}
