import { z } from 'zod';

/**
 * Every event the service emits, declared once: its type, a one-line description and the schema of its
 * `data`. The outbox accepts only these types, adapters subscribe to them, the admin filter lists them
 * and /openapi.json describes them (`webhooks`). The shapes are the webhook contract (README.md#webhooks):
 * they are built from database rows by `payloads.ts`, never from the API's views, so that an API change
 * cannot silently change a webhook. Adding an event: docs/architecture.md#how-to-add-an-event.
 */

const isoTime = z.string().meta({ format: 'date-time', examples: ['2026-01-15T12:00:00.000Z'] });
const money = z.number().meta({ description: "Amount with at most the currency's decimals (USD 2, JPY 0, KWD 3)" });
const currency = z.string().meta({ description: 'ISO 4217 code of the program currency (docs/api.md#payouts)', examples: ['USD'] });
const payoutDetails = z
  .strictObject({
    method: z.enum(['paypal', 'wise', 'sepa', 'other']),
    email: z.string().optional(),
    iban: z.string().optional(),
    bic: z.string().optional(),
    account_holder: z.string().optional(),
    note: z.string().optional(),
  })
  .nullable()
  .meta({ description: 'Where it is paid to, as it was when requested (null for withdrawals made before payouts)' });

/** An order as `order.paid` carries it: the seed's `{id, email, amount, product, status}` (`id` is the order_id). */
export const orderPayload = z.strictObject({
  id: z.string().meta({ description: 'The order_id given by the order system' }),
  email: z.string(),
  amount: money,
  currency,
  product: z.string(),
  status: z.literal('paid'),
});

/** A commission as every event carries it. */
export const commissionPayload = z.strictObject({
  id: z.string(),
  order_id: z.string(),
  ref_code: z.string(),
  amount: money.meta({ description: 'The order amount the commission was computed on' }),
  rate: z.number().meta({ description: 'Percent, at most 2 decimals (0 when a flat rule decided it)' }),
  commission: money.meta({ description: 'Negative for a clawback' }),
  currency,
  status: z.enum(['pending', 'approved', 'paid', 'void']),
  kind: z.enum(['sale', 'clawback']),
  rule_id: z.string().nullable().meta({ description: 'The commission rule used; null for the plain rates' }),
  void_reason: z.enum(['refunded', 'disputed', 'fraud']).nullable(),
  hold: z.strictObject({ case_id: z.string(), signal: z.enum(['self_referral', 'duplicate_payout', 'click_burst', 'refund_rate']) }).nullable().meta({ description: 'The open fraud case holding it (docs/api.md#fraud-review); null when not held' }),
  created_at: isoTime,
});

/** A fraud case as its events carry it (docs/api.md#fraud-review); never a raw IP address. */
export const fraudCasePayload = z.strictObject({
  id: z.string(),
  ref_code: z.string(),
  signal: z.enum(['self_referral', 'duplicate_payout', 'click_burst', 'refund_rate']),
  action: z.enum(['flag', 'hold']),
  status: z.enum(['open', 'released', 'rejected']),
  evidence: z.array(z.strictObject({ at: isoTime, detail: z.string(), order_id: z.string().optional(), click_at: isoTime.optional() })),
  held: z.strictObject({ count: z.number().int(), amount: money, currency }),
  opened_at: isoTime,
  resolved_at: isoTime.nullable(),
  note: z.string().nullable(),
});

/** An order as `order.refunded` carries it: `order.paid`'s shape with its refund state. */
export const refundedOrderPayload = z.strictObject({
  id: z.string().meta({ description: 'The order_id given by the order system' }),
  email: z.string(),
  amount: money,
  currency,
  product: z.string(),
  status: z.enum(['partially_refunded', 'refunded']),
  refunded_amount: money.meta({ description: 'Sum of all refunds so far' }),
});

/** An affiliate as `affiliate.created` carries it. */
export const affiliatePayload = z.strictObject({
  ref_code: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  status: z.enum(['active', 'disabled', 'pending']),
  commission_rate: z.number().nullable().meta({ description: 'Percent; null: the global rate applies' }),
  created_at: isoTime,
});

/** A withdrawal as every event carries it (README.md#webhooks). */
export const withdrawalPayload = z.strictObject({
  id: z.string(),
  ref_code: z.string(),
  amount: money,
  currency,
  status: z.enum(['requested', 'paid', 'rejected']),
  payout: payoutDetails,
  batch_id: z.string().nullable().meta({ description: 'The payout batch it is in, if any' }),
  created_at: isoTime,
});

/** One mailbox's copy of a message as `message.received` carries it. */
export const receivedMessagePayload = z.strictObject({
  id: z.string().meta({ description: 'The message id (the same for every mailbox copy of one message)' }),
  mailbox: z.string().meta({ description: 'The mailbox address of this copy' }),
  from: z.string().nullable(),
  subject: z.string().nullable(),
  code: z.string().nullable().meta({ description: 'The verification code found in the message, or null' }),
  verification_link: z.string().nullable().meta({ description: 'The link a person would click to confirm, or null' }),
  received_at: isoTime,
});

const commissionChange = z.strictObject({ commission: commissionPayload, ref_code: z.string() });
const withdrawalChange = z.strictObject({ withdrawal: withdrawalPayload, ref_code: z.string() });

interface EventDeclaration {
  /** One line for the admin filter and the API description. */
  readonly description: string;
  readonly data: z.ZodType;
  /** Sent to the webhook only, never to adapters (the admin's test event). */
  readonly webhookOnly?: true;
}

export const EVENTS = {
  'order.paid': {
    description: 'An order was paid (once per order); `commission` and `ref_code` are null when it was not attributed',
    data: z.strictObject({ order: orderPayload, commission: commissionPayload.nullable(), ref_code: z.string().nullable() }),
  },
  'order.refunded': {
    description: 'A paid order was refunded (partly or fully); `commission` is its commission after the refund, `clawback` the negative commission booked when it was already paid',
    data: z.strictObject({
      order: refundedOrderPayload,
      refund: z.strictObject({ amount: money, created_at: isoTime }),
      commission: commissionPayload.nullable(),
      clawback: commissionPayload.nullable(),
      ref_code: z.string().nullable(),
    }),
  },
  'commission.created': { description: 'A commission was booked: a sale (pending) or a clawback (negative, paid)', data: commissionChange },
  'commission.approved': { description: 'A commission was approved (by hand, or when its holding period ended)', data: commissionChange },
  'commission.paid': { description: 'A commission was marked paid (from pending it is approved and paid at once)', data: commissionChange },
  'commission.voided': { description: 'A pending or approved commission was voided (by hand, by a full refund: void_reason "refunded", or with a rejected fraud case: "fraud")', data: commissionChange },
  'withdrawal.requested': { description: 'An affiliate requested a withdrawal; the amount left the available balance', data: withdrawalChange },
  'withdrawal.paid': { description: 'A requested withdrawal was marked paid', data: withdrawalChange },
  'withdrawal.rejected': { description: 'A requested withdrawal was rejected; the amount is available again', data: withdrawalChange },
  'fraud.case_opened': {
    description: 'A fraud signal opened a case (docs/api.md#fraud-review); action "hold": the affiliate\'s pending commissions are held while it is open',
    data: z.strictObject({ case: fraudCasePayload, ref_code: z.string() }),
  },
  'fraud.case_resolved': {
    description: 'A fraud case was released (held commissions continue) or rejected (held commissions voided, void_reason "fraud")',
    data: z.strictObject({ case: fraudCasePayload, ref_code: z.string() }),
  },
  'affiliate.created': { description: 'An affiliate was created', data: z.strictObject({ affiliate: affiliatePayload, ref_code: z.string() }) },
  'message.received': {
    description: 'A message arrived in a mailbox (one event per mailbox copy); only while the setting `message_events` is true. `ref_code` is the mailbox\'s affiliate or null',
    data: z.strictObject({ message: receivedMessagePayload, ref_code: z.string().nullable() }),
  },
  'webhook.test': {
    description: 'Sent by the admin area\'s "send test event" button, to the webhook only',
    data: z.strictObject({ message: z.string() }),
    webhookOnly: true,
  },
} as const satisfies Record<string, EventDeclaration>;

export type EventType = keyof typeof EVENTS;
export type EventData<T extends EventType> = z.output<(typeof EVENTS)[T]['data']>;
/** The types an adapter may subscribe to: all but the webhook-only ones. */
export type AdapterEventType = { [K in EventType]: (typeof EVENTS)[K] extends { webhookOnly: true } ? never : K }[EventType];

/** The body every receiver gets (README.md#webhooks): `ts` in Unix seconds, `id` unique per event. */
export interface EventEnvelope<T extends EventType = EventType> {
  readonly event: T;
  readonly id: string;
  readonly ts: number;
  readonly data: EventData<T>;
}

/** One of the catalogued events, its `data` narrowed by its `event`. */
export type AnyEvent = { [K in EventType]: EventEnvelope<K> }[EventType];

export const EVENT_TYPES = Object.keys(EVENTS) as EventType[];
export const ADAPTER_EVENT_TYPES = EVENT_TYPES.filter((t) => !('webhookOnly' in EVENTS[t])) as AdapterEventType[];

export function isEventType(type: string): type is EventType {
  return Object.hasOwn(EVENTS, type);
}

/** The envelope's schema for one type, as receivers parse it (the API description and its tests use it). */
export function envelopeSchema(type: EventType) {
  return z.strictObject({
    event: z.literal(type),
    id: z.string().meta({ description: 'Unique per event and the same on every retry: deduplicate on it' }),
    ts: z.number().int().meta({ description: 'When the event happened, Unix seconds' }),
    data: EVENTS[type].data,
  });
}
