import type { Executor } from '../db/database.js';
import type { Delivery, DeliveryAttempt, DeliveryStatus } from '../db/schema.js';
import { given } from '../db/keyset.js';
import { MAIL_TARGET } from './delivery-target.js';

/** What the admin operations and retention read and change; the worker's statements are in delivery-queue.repository.ts. */

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
  let q = db
    .selectFrom('deliveries')
    .selectAll()
    .where((eb) => eb.and(given({ status: f.status, event_type: f.event, event_id: f.eventId })));
  // outbound mail has its own log (GET /admin/api/outbound-mail)
  q = f.target ? q.where('target', '=', f.target) : q.where('target', '!=', MAIL_TARGET);
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
