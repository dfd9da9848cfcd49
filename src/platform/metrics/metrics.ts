import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** What the delivery queue looks like now, read from the database when Prometheus scrapes. */
export interface QueueStats {
  readonly pending: number;
  readonly failed: number;
  /** Age of the oldest pending delivery, in ms; null when none is pending. */
  readonly oldestPendingMs: number | null;
  /** Outbox events not yet turned into deliveries. */
  readonly unfannedEvents: number;
}

/**
 * Prometheus metrics (prom-client) for an operator: the process (CPU, memory, event loop lag, GC),
 * clicks stored, delivery attempts with their latency, and the delivery queue read at scrape time.
 * Nothing is measured per HTTP request, so /go pays nothing for it. Each app has its own registry.
 */
export class Metrics {
  readonly registry = new Registry();
  readonly clicksRecorded: Counter;
  readonly deliveryAttempts: Histogram<'target' | 'outcome'>;

  constructor(queueStats: () => Promise<QueueStats>) {
    collectDefaultMetrics({ register: this.registry });
    this.clicksRecorded = new Counter({ name: 'svc_clicks_recorded_total', help: 'Clicks on /go stored (committed) by this instance', registers: [this.registry] });
    this.deliveryAttempts = new Histogram({
      name: 'svc_delivery_attempt_seconds',
      help: 'Delivery attempts by this instance: target kind (webhook or adapter) and outcome (delivered, retry, failed)',
      labelNames: ['target', 'outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    // One database read per scrape feeds the four queue gauges.
    let pendingScrape: Promise<QueueStats> | undefined;
    const stats = () => {
      pendingScrape ??= queueStats().finally(() => {
        pendingScrape = undefined;
      });
      return pendingScrape;
    };
    const gauge = (name: string, help: string, pick: (s: QueueStats) => number) =>
      new Gauge({
        name,
        help,
        registers: [this.registry],
        async collect() {
          this.set(pick(await stats()));
        },
      });
    gauge('svc_deliveries_pending', 'Deliveries waiting for their first or next attempt (all instances)', (s) => s.pending);
    gauge('svc_deliveries_failed', 'Deliveries that gave up after their last retry, still in the log (all instances)', (s) => s.failed);
    gauge('svc_delivery_oldest_pending_seconds', 'Age of the oldest pending delivery; 0 when none (all instances)', (s) => (s.oldestPendingMs ?? 0) / 1000);
    gauge('svc_outbox_unfanned_events', 'Events written but not yet turned into deliveries (all instances)', (s) => s.unfannedEvents);
  }

  /** One recorded delivery attempt; a delivery left pending is a retry. */
  observeDeliveryAttempt(target: 'webhook' | 'adapter' | 'mail', status: 'pending' | 'delivered' | 'failed', latencyMs: number): void {
    this.deliveryAttempts.observe({ target, outcome: status === 'pending' ? 'retry' : status }, latencyMs / 1000);
  }
}
