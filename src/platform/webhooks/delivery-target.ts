import type { Delivery } from '../db/schema.js';
import type { AnyEvent } from '../events/catalogue.js';

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
}

export function defaultDeliveryOptions(): DeliveryOptions {
  return { timeoutMs: 10_000, leaseMs: 60_000, concurrency: 64, fanOutBatch: 200 };
}

/** An event as stored in the outbox: the exact bytes receivers get, and the same parsed. */
export interface StoredEvent {
  readonly body: string;
  readonly envelope: AnyEvent;
}

/** What one attempt came to. */
export interface Outcome {
  readonly ok: boolean;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly responseBody: string | null;
  readonly latencyMs: number;
  /** A receiver's Retry-After, in ms. */
  readonly retryAfterMs?: number;
}

export function failedOutcome(error: string, latencyMs = 0): Outcome {
  return { ok: false, statusCode: null, error, responseBody: null, latencyMs };
}

/** The attempt's error when the delivery's target does not run in this instance (an adapter disabled or not registered here). */
export function targetNotRunning(targetName: string): Outcome {
  return failedOutcome(`${targetName.replace(/^adapter:/, 'adapter ')} is not enabled`);
}

/** The label metrics count attempts by. */
export type TargetKind = 'webhook' | 'adapter' | 'mail';

/** `deliveries.target` of outbound mail (src/mail/outmail/): claimed by its own dispatcher, never by the outbox's. */
export const MAIL_TARGET = 'mail';

/**
 * Where deliveries go: the webhook, or one adapter. The dispatcher fans each event out to the targets
 * that want it (one delivery row each, with its own retries and attempt log) and hands each claimed
 * delivery to its target by name; it knows nothing else about them.
 */
export interface DeliveryTarget {
  /** Stored as `deliveries.target`: `webhook` or `adapter:<name>`. */
  readonly name: string;
  readonly kind: TargetKind;
  /**
   * Read once per fan-out batch, before its transaction: null when the target takes nothing now (no
   * webhook URL, adapter disabled); else the URL to snapshot on its new rows (null for in-process ones).
   */
  open(): Promise<{ readonly url: string | null } | null>;
  /** Whether events of this type get a delivery row for this target. */
  wants(eventType: string): boolean;
  /** One attempt. Never throws: every failure is an outcome. */
  deliver(event: StoredEvent, delivery: Delivery): Promise<Outcome>;
  /** Drops what it holds open (keep-alive connections) at shutdown. */
  close?(): void;
}
