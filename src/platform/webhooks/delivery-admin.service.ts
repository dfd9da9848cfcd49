import type { Clock } from '../clock.js';
import { type Db, type Executor, inTransaction } from '../db/database.js';
import type { Delivery, DeliveryStatus } from '../db/schema.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import type { EventEnvelope } from '../events/catalogue.js';
import { type OutboxSignal, recordEvent } from '../events/outbox.js';
import { testEventPayload } from '../events/payloads.js';
import { decodeKey, keysetPage } from '../db/keyset.js';
import { newId } from '../ids.js';
import type { SettingsService } from '../settings/settings.service.js';
import { insertDeliveries, markEventFannedOut } from './delivery-queue.repository.js';
import { deliveryQueueStats, findDelivery, listAttempts, listDeliveries, resetDelivery } from './delivery.repository.js';

/**
 * Puts a delivery back in the queue, due now, with a fresh schedule (the admin's mail log retries a mail
 * through this); false while its lease is live.
 */
export function requeueDelivery(db: Executor, id: string, now: number): Promise<boolean> {
  return resetDelivery(db, id, now);
}
import { type AttemptJson, attemptJson, type DeliveryJson, deliveryJson } from './delivery.schemas.js';
import { WEBHOOK_TARGET } from './webhook-target.js';


/** An adapter as the admin area lists it. */
export interface AdapterInfo {
  readonly name: string;
  readonly enabled: boolean;
  readonly description: string;
}

/** The queue across all instances, read from the database (admin summary line and metrics). */
export interface DeliveryQueueStats {
  readonly pending: number;
  readonly failed: number;
  readonly oldestPendingAt: number | null;
  readonly oldestPendingMs: number | null;
  readonly unfannedEvents: number;
}

/** What the admin area does with deliveries: the log, one delivery with its attempts, redelivery, the test event, the queue's state. */
export class DeliveryAdminService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly settings: SettingsService,
    private readonly outbox: OutboxSignal,
    private readonly adapters: readonly AdapterInfo[],
  ) {}

  /** Newest first by id (ids begin with their time). */
  async list(filter: { status?: DeliveryStatus; event?: string; target?: string; limit: number; cursor?: string }) {
    const before = filter.cursor === undefined ? undefined : decodeKey(filter.cursor, ['string'] as const, 'deliveries')[0];
    const rows = await listDeliveries(this.db, { status: filter.status, event: filter.event, target: filter.target, before, limit: filter.limit + 1 });
    return keysetPage(rows, filter.limit, (d) => [d.id], deliveryJson, 'deliveries');
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
  async sendTestEvent(): Promise<{ event: EventEnvelope<'webhook.test'>; delivery: DeliveryJson }> {
    const { webhook_url } = await this.settings.get();
    if (!webhook_url) throw new ValidationError([{ field: 'webhook_url', message: 'is not set; set it in the settings first' }]);
    const now = this.clock.now();
    const deliveryId = newId('dlv', now);
    const event = await inTransaction(this.db, async (tx) => {
      const e = await recordEvent(tx, this.clock, 'webhook.test', testEventPayload());
      await markEventFannedOut(tx, e.id, now);
      await insertDeliveries(tx, [{ id: deliveryId, event_id: e.id, event_type: e.event, target: WEBHOOK_TARGET, url: webhook_url, now }]);
      return e;
    });
    this.outbox.kick();
    return { event, delivery: deliveryJson((await findDelivery(this.db, deliveryId)) as Delivery) };
  }

  async queueStats(): Promise<DeliveryQueueStats> {
    const s = await deliveryQueueStats(this.db);
    return {
      pending: s.pending,
      failed: s.failed,
      oldestPendingAt: s.oldestPending,
      oldestPendingMs: s.oldestPending === null ? null : Math.max(0, this.clock.now() - s.oldestPending),
      unfannedEvents: s.unfanned,
    };
  }

  adapterList(): AdapterInfo[] {
    return this.adapters.map((a) => ({ name: a.name, enabled: a.enabled, description: a.description }));
  }
}
