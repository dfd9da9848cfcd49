import type { ColumnType, Generated } from 'kysely';

// The platform's tables: settings, admin users and sessions, login throttling, shared limits, idempotency, events and deliveries (the Database type and the row types are in schema.ts).

export interface SettingsTable {
  key: string;
  value: string;
  updated_at: number;
}

export interface AdminUsersTable {
  id: string;
  username: string;
  password_hash: string;
  created_at: number;
}

export interface AdminSessionsTable {
  id_hash: string;
  user_id: string;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

/** A throttled login key (`ip:…`, `user:…`) within a scope; its row is the lock its attempts take (0010). */
export interface LoginThrottleKeysTable {
  scope: string;
  key: string;
  touched_at: number;
}

/** One login attempt counted against a key (and the attempt's other key); rows older than the window are deleted. */
export interface LoginAttemptsTable {
  id: Generated<number>;
  scope: string;
  key: string;
  pair_key: string;
  at: number;
}

/** A fixed-window counter of one rate-limited route (scope) and client (key), shared by every instance (0045). */
export interface RateLimitWindowsTable {
  scope: string;
  key: string;
  n: number;
  resets_at: number;
}

/** A limited key of live leases (`mailbox:…`, `client:…`); its row is the lock taken to count and add leases (0045). */
export interface LimitLeaseKeysTable {
  key: string;
  touched_at: number;
}

/** One key an open live stream counts against, held by an instance until released or expired (0045). */
export interface LimitLeasesTable {
  id: string;
  key: string;
  instance: string;
  expires_at: number;
}

export interface IdempotencyKeysTable {
  key: string;
  method: string;
  path: string;
  request_hash: string;
  state: 'processing' | 'done';
  response_status: number | null;
  response_body: string | null;
  created_at: number;
}

/** The outbox: one row per emitted event, written in the transaction of the change that caused it. */
export interface EventsTable {
  seq: Generated<number>;
  id: string;
  type: string;
  /** The full JSON body as delivered: {event, id, ts, data}. */
  payload: string;
  created_at: number;
  /** Set when the delivery worker has created this event's deliveries (0004-delivery). */
  fanned_out_at: number | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event to one target (`webhook` or `adapter:<name>`), with its retry schedule and claim lease. */
export interface DeliveriesTable {
  id: string;
  event_id: string;
  event_type: string;
  target: string;
  /** The webhook_url when the event was fanned out; null for adapters. */
  url: string | null;
  status: DeliveryStatus;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: number | null;
  locked_until: number | null;
  lock_token: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  delivered_at: number | null;
}

export interface DeliveryAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  at: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_body: string | null;
}

/** A job that runs once a day across instances (migration 0110): the instance that claimed the day, and when it finished. */
export interface MaintenanceRunsTable {
  job: string;
  /** The UTC day, YYYY-MM-DD. */
  day: string;
  instance: string;
  claimed_at: number;
  finished_at: number | null;
  /** What the run reported, as JSON. */
  result: string | null;
}
