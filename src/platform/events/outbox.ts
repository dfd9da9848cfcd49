import type { Clock } from '../clock.js';
import type { Executor } from '../db/database.js';
import { newId } from '../ids.js';
import { type EventData, type EventEnvelope, type EventType, isEventType } from './catalogue.js';

/**
 * Writes one catalogued event into the outbox; `data` is typed by the event's type (build it with
 * `payloads.ts`). Call it with the transaction of the change that caused the event, so the event exists
 * exactly when the change does; call OutboxSignal.kick() after that commit.
 */
export async function recordEvent<T extends EventType>(tx: Executor, clock: Clock, type: T, data: EventData<T>): Promise<EventEnvelope<T>> {
  // Callers outside the type checker (scripts) get the same rule at run time.
  if (!isEventType(type)) throw new Error(`"${type}" is not a catalogued event type (src/platform/events/catalogue.ts)`);
  const now = clock.now();
  const body: EventEnvelope<T> = { event: type, id: newId('evt', now), ts: Math.floor(now / 1000), data };
  await tx.insertInto('events').values({ id: body.id, type, payload: JSON.stringify(body), created_at: now }).execute();
  return body;
}

/** One event waiting to be written with others (see eventsInsert). */
export interface PendingEvent<T extends EventType = EventType> {
  readonly type: T;
  readonly data: EventData<T>;
}

/** A pending event, typed by its type (a list of pending events mixes types). */
export function pendingEvent<T extends EventType>(type: T, data: EventData<T>): PendingEvent {
  return { type, data } as PendingEvent;
}

/**
 * The INSERT of several catalogued events, in the order given (the order they are delivered in), not
 * yet run: a ledger plan's events (src/loop/ledger/executor.ts). Same rules as recordEvent.
 */
export function eventsInsert(tx: Executor, clock: Clock, events: readonly PendingEvent[]) {
  if (events.length === 0) throw new Error('eventsInsert needs at least one event');
  const now = clock.now();
  const rows = events.map(({ type, data }) => {
    if (!isEventType(type)) throw new Error(`"${type}" is not a catalogued event type (src/platform/events/catalogue.ts)`);
    const body = { event: type, id: newId('evt', now), ts: Math.floor(now / 1000), data };
    return { id: body.id, type, payload: JSON.stringify(body), created_at: now };
  });
  return tx.insertInto('events').values(rows);
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
