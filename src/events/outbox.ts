import type { Clock } from '../clock.js';
import type { Executor } from '../db/database.js';
import { newId } from '../ids.js';

/** The body every receiver gets (CONTRACT §9): `ts` in Unix seconds, `id` unique per event. */
export interface EventBody<T = unknown> {
  readonly event: string;
  readonly id: string;
  readonly ts: number;
  readonly data: T;
}

/**
 * Writes one event into the outbox. Call it with the transaction of the change that caused the event,
 * so the event exists exactly when the change does; call OutboxSignal.kick() after that commit.
 */
export async function recordEvent<T>(tx: Executor, clock: Clock, type: string, data: T): Promise<EventBody<T>> {
  const now = clock.now();
  const body: EventBody<T> = { event: type, id: newId('evt', now), ts: Math.floor(now / 1000), data };
  await tx.insertInto('events').values({ id: body.id, type, payload: JSON.stringify(body), created_at: now }).execute();
  return body;
}

/**
 * In-process wake-up for the delivery worker: services kick it after committing events, so delivery
 * starts at once instead of on the next poll. Listeners must not throw.
 */
export class OutboxSignal {
  private readonly listeners = new Set<() => void>();
  kick(): void {
    for (const l of this.listeners) l();
  }
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
