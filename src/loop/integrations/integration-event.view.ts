import { toIso } from '../../platform/clock.js';
import type { IntegrationEvent, IntegrationOutcome, IntegrationProvider } from '../../platform/db/schema.js';

/** An integration event as the admin API lists it (GET /admin/api/integrations/events). */
export interface IntegrationEventView {
  id: string;
  provider: IntegrationProvider;
  type: string;
  provider_event_id: string | null;
  received_at: string;
  outcome: IntegrationOutcome;
  reason: string | null;
  order_id: string | null;
}

export function integrationEventView(e: IntegrationEvent): IntegrationEventView {
  return {
    id: e.id,
    provider: e.provider,
    type: e.type,
    provider_event_id: e.provider_event_id,
    received_at: toIso(e.received_at),
    outcome: e.outcome,
    reason: e.reason,
    order_id: e.order_id ?? e.waiting_order_id,
  };
}

/** What a delivery did, as the endpoint answers it. */
export interface Receipt {
  /** false: another delivery of the same event was acted on already; nothing happened now. */
  readonly first: boolean;
  readonly outcome: IntegrationOutcome;
  readonly reason: string | null;
  readonly orderId: string | null;
}

/** Per provider: the event types to enable, and (Paddle) the transactions that wait for their customer's notification. */
export interface ProviderStatus {
  readonly provider: IntegrationProvider;
  readonly events: readonly string[];
  /** Received, not booked yet: booked when the customer's notification arrives. */
  readonly waitingForCustomer: number;
  /** Booked at once by their svc_ref; the order's email is filled in when the customer's notification arrives. */
  readonly awaitingEmail: number;
}
