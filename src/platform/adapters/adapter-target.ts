import type { Delivery } from '../db/schema.js';
import type { AdapterEventType, AnyEvent } from '../events/catalogue.js';
import { type DeliveryOptions, type DeliveryTarget, failedOutcome, type Outcome, type StoredEvent, targetNotRunning } from '../webhooks/delivery-target.js';
import type { Adapter, EventArgs } from './adapter.js';

export const adapterTargetName = (adapterName: string) => `adapter:${adapterName}`;

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timeout after ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/**
 * One adapter as a delivery target: rows only for the event types it subscribed to, while it is
 * enabled. A throw, or no answer within the timeout, is a failed attempt; it never delays the webhook,
 * the other adapters, or the request that caused the event.
 */
export class AdapterTarget implements DeliveryTarget {
  readonly name: string;
  readonly kind = 'adapter';

  constructor(
    private readonly adapter: Adapter,
    private readonly options: DeliveryOptions,
  ) {
    this.name = adapterTargetName(adapter.name);
  }

  async open(): Promise<{ url: null } | null> {
    return this.adapter.enabled ? { url: null } : null;
  }

  wants(eventType: string): boolean {
    return this.adapter.events.has(eventType as AdapterEventType);
  }

  async deliver({ envelope }: StoredEvent, _delivery: Delivery): Promise<Outcome> {
    if (!this.adapter.enabled) return targetNotRunning(this.name);
    // A row made by an instance with other subscriptions: nothing for this adapter to do.
    if (!this.wants(envelope.event)) return { ok: true, statusCode: null, error: null, responseBody: null, latencyMs: 0 };
    const { event, id, ts, data } = envelope as AnyEvent & { event: AdapterEventType };
    const args = [event, data, { id, ts }] as EventArgs<AdapterEventType>;
    const started = performance.now();
    try {
      await withTimeout(
        Promise.resolve().then(() => this.adapter.onEvent(...args)),
        this.options.timeoutMs,
      );
      return { ok: true, statusCode: null, error: null, responseBody: null, latencyMs: Math.round(performance.now() - started) };
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return failedOutcome(message.slice(0, 1000), Math.round(performance.now() - started));
    }
  }
}
