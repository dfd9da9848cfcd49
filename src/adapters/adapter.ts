import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { HttpSender } from '../webhooks/http-sender.js';

/** What an adapter learns about the event besides its type and data. */
export interface EventMeta {
  readonly id: string;
  readonly ts: number;
}

/**
 * An in-process receiver of every event (seed §6): `name`, `enabled`, `onEvent(event, data)`. It runs in
 * the delivery worker after commit with its own delivery row and retries; throwing (or not settling
 * within the timeout) counts as a failed attempt.
 */
export interface Adapter {
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  onEvent(event: string, data: unknown, meta: EventMeta): Promise<void>;
}

/** What a factory in the registry may use; adapters never get the HTTP layer. */
export interface AdapterDeps {
  readonly config: Config;
  readonly logger: Logger;
  readonly db: Db;
  /** Outbound HTTP with the SSRF guard and timeouts. */
  readonly http: HttpSender;
  readonly timeoutMs: () => number;
}

export type AdapterFactory = (deps: AdapterDeps) => Adapter;
