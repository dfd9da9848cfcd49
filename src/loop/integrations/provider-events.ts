import type { IntegrationProvider, VoidReason } from '../../platform/db/schema.js';
import { minorAmount } from './minor-units.js';

/** What svc does with a verified provider event (docs/api.md, "Integrations"). */
export type ProviderAction =
  | {
      readonly kind: 'pay';
      /** `<provider>:<id of what was paid>` */
      readonly orderId: string;
      /** The customer's email; Paddle names its customer instead (customerId), whose email svc learnt before. */
      readonly email: string | undefined;
      readonly customerId?: string;
      readonly amountMinor: number | undefined;
      readonly currency: string;
      readonly product: string;
      readonly refCode: string | undefined;
      /** The order's other name, as its refunds and disputes name it (a Stripe invoice's payment intent). */
      readonly paymentRef?: string;
    }
  | {
      readonly kind: 'refund';
      readonly orderId: string;
      /** `total`: the refunded total is now this (Stripe, Lemon Squeezy); `amount`: this much more (a dispute, a Paddle adjustment). */
      readonly minor: { readonly total: number } | { readonly amount: number } | undefined;
      readonly currency: string;
      readonly voidReason: VoidReason;
      /** The dedupe key of the paid event that booked the order: its logged order_id wins (a Lemon Squeezy renewal booked before its ids were distinct). */
      readonly bookedBy?: string;
    }
  | { readonly kind: 'customer'; readonly customerId: string; readonly email: string | undefined }
  /** An order's other name, as its refunds and disputes name it (a Stripe invoice's payment intent). */
  | { readonly kind: 'link'; readonly orderId: string; readonly paymentRef: string }
  | { readonly kind: 'ignore'; readonly reason: string };

/** A verified event: its type, the provider's event id (null: Lemon Squeezy sends none), what makes deliveries the same, and the action. */
export interface ProviderEvent {
  readonly provider: IntegrationProvider;
  readonly type: string;
  readonly providerEventId: string | null;
  /** Unique per provider: deliveries with the same key are one event, acted on once. */
  readonly dedupeKey: string;
  readonly action: ProviderAction;
}

/** The event types each provider's endpoint acts on (the Integrations page lists them to enable). */
export const ACTED_ON = {
  stripe: ['checkout.session.completed', 'checkout.session.async_payment_succeeded', 'invoice.paid', 'invoice_payment.paid', 'charge.refunded', 'charge.dispute.created'],
  paddle: ['transaction.completed', 'adjustment.created', 'adjustment.updated', 'customer.created', 'customer.updated'],
  lemonsqueezy: ['order_created', 'order_refunded', 'subscription_payment_success', 'subscription_payment_refunded'],
} as const satisfies Record<IntegrationProvider, readonly string[]>;

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const cur = (v: unknown): string => (str(v) ?? '').toUpperCase();

const IGNORE_TYPE: ProviderAction = { kind: 'ignore', reason: 'unhandled_event_type' };

/** svc_ref as a Stripe object carries it, in its metadata or its subscription's. */
function stripeRef(o: Json): string | undefined {
  return (
    str(o.client_reference_id) ??
    str(obj(o.metadata).svc_ref) ??
    str(obj(obj(obj(o.parent).subscription_details).metadata).svc_ref) ??
    str(obj(obj(o.subscription_details).metadata).svc_ref)
  );
}

/** A Stripe event (already verified by constructEvent). */
export function stripeEvent(event: Json): ProviderEvent {
  const type = str(event.type) ?? '';
  const id = str(event.id) ?? '';
  const o = obj(obj(event.data).object);
  const base = { provider: 'stripe' as const, type, providerEventId: id, dedupeKey: id };
  switch (type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      if (o.payment_status !== 'paid') return { ...base, action: { kind: 'ignore', reason: 'not_paid' } };
      // a subscription's first invoice is the order (its invoice.paid names the same one)
      const paidId = str(o.invoice) ?? str(o.payment_intent);
      if (!paidId) return { ...base, action: { kind: 'ignore', reason: 'nothing_paid' } };
      return {
        ...base,
        action: {
          kind: 'pay',
          orderId: `stripe:${paidId}`,
          email: str(obj(o.customer_details).email) ?? str(o.customer_email),
          amountMinor: minorAmount(o.amount_total),
          currency: cur(o.currency),
          product: str(obj(o.metadata).product) ?? 'Stripe',
          refCode: stripeRef(o),
        },
      };
    }
    case 'invoice.paid': {
      const line = obj(list(obj(o.lines).data)[0]);
      // disputes name the payment intent; API versions from 2025-03-31 list it under payments
      const intent = str(o.payment_intent) ?? str(obj(obj(list(obj(o.payments).data)[0]).payment).payment_intent);
      return {
        ...base,
        action: {
          kind: 'pay',
          orderId: `stripe:${str(o.id) ?? ''}`,
          email: str(o.customer_email),
          amountMinor: minorAmount(o.amount_paid),
          currency: cur(o.currency),
          product: str(line.description) ?? str(obj(o.metadata).product) ?? 'Stripe',
          refCode: stripeRef(o),
          paymentRef: intent === undefined ? undefined : `stripe:${intent}`,
        },
      };
    }
    case 'invoice_payment.paid': {
      // API versions from 2025-03-31: the only place that ties an invoice to the payment intent its refunds and disputes name
      const invoice = str(o.invoice);
      const intent = str(obj(o.payment).payment_intent);
      if (!invoice || !intent) return { ...base, action: { kind: 'ignore', reason: 'nothing_to_link' } };
      return { ...base, action: { kind: 'link', orderId: `stripe:${invoice}`, paymentRef: `stripe:${intent}` } };
    }
    case 'charge.refunded': {
      const paidId = str(o.invoice) ?? str(o.payment_intent);
      if (!paidId) return { ...base, action: { kind: 'ignore', reason: 'order_unknown' } };
      const total = minorAmount(o.amount_refunded);
      return { ...base, action: { kind: 'refund', orderId: `stripe:${paidId}`, minor: total === undefined ? undefined : { total }, currency: cur(o.currency), voidReason: 'refunded' } };
    }
    case 'charge.dispute.created': {
      const paidId = str(o.payment_intent);
      if (!paidId) return { ...base, action: { kind: 'ignore', reason: 'order_unknown' } };
      const amount = minorAmount(o.amount);
      return { ...base, action: { kind: 'refund', orderId: `stripe:${paidId}`, minor: amount === undefined ? undefined : { amount }, currency: cur(o.currency), voidReason: 'disputed' } };
    }
    default:
      return { ...base, action: IGNORE_TYPE };
  }
}

/** A Paddle Billing notification (already verified with Paddle's SDK). */
export function paddleEvent(event: Json): ProviderEvent {
  const type = str(event.event_type) ?? '';
  const id = str(event.event_id) ?? '';
  const d = obj(event.data);
  const base = { provider: 'paddle' as const, type, providerEventId: id, dedupeKey: id };
  switch (type) {
    case 'transaction.completed': {
      const item = obj(list(d.items)[0]);
      const price = obj(item.price);
      return {
        ...base,
        action: {
          kind: 'pay',
          orderId: `paddle:${str(d.id) ?? ''}`,
          email: undefined,
          customerId: str(d.customer_id),
          amountMinor: minorAmount(obj(obj(d.details).totals).total),
          currency: cur(d.currency_code),
          product: str(obj(item.product).name) ?? str(price.name) ?? str(price.description) ?? str(obj(d.custom_data).product) ?? 'Paddle',
          refCode: str(obj(d.custom_data).svc_ref),
        },
      };
    }
    case 'adjustment.created':
    case 'adjustment.updated': {
      const action = d.action === 'refund' ? 'refunded' : d.action === 'chargeback' ? 'disputed' : undefined;
      if (!action) return { ...base, action: { kind: 'ignore', reason: 'not_a_refund' } };
      if (d.status !== 'approved') return { ...base, action: { kind: 'ignore', reason: 'not_approved' } };
      const amount = minorAmount(obj(d.totals).total);
      // created approved, then updated: one adjustment, refunded once
      return {
        ...base,
        dedupeKey: `adjustment:${str(d.id) ?? id}`,
        action: { kind: 'refund', orderId: `paddle:${str(d.transaction_id) ?? ''}`, minor: amount === undefined ? undefined : { amount }, currency: cur(d.currency_code), voidReason: action },
      };
    }
    case 'customer.created':
    case 'customer.updated': {
      const customerId = str(d.id);
      if (!customerId) return { ...base, action: { kind: 'ignore', reason: 'no_customer_id' } };
      return { ...base, action: { kind: 'customer', customerId, email: str(d.email) } };
    }
    default:
      return { ...base, action: IGNORE_TYPE };
  }
}

/**
 * A Lemon Squeezy order is `lemonsqueezy:<order id>`, a renewal `lemonsqueezy:invoice:<subscription invoice id>`:
 * the two are numbered apart, so one number can name both (integrations.test.ts, "a renewal whose invoice id is an order id").
 */
const lemonOrderId = (kind: 'order' | 'invoice', dataId: string): string => (kind === 'order' ? `lemonsqueezy:${dataId}` : `lemonsqueezy:invoice:${dataId}`);

/** A paid Lemon Squeezy order or subscription payment: the product named by the item, else by svc's custom data. */
function lemonSqueezyPay(orderId: string, a: Json, custom: Json, itemProduct: string | undefined): ProviderAction {
  return {
    kind: 'pay',
    orderId,
    email: str(a.user_email),
    amountMinor: minorAmount(a.total),
    currency: cur(a.currency),
    product: itemProduct ?? str(custom.product) ?? 'Lemon Squeezy',
    refCode: str(custom.svc_ref),
  };
}

/** A Lemon Squeezy webhook (already verified): it has no event id, so the event is its name and the ids (and state) of what it names. */
export function lemonSqueezyEvent(body: Json): ProviderEvent {
  const meta = obj(body.meta);
  const type = str(meta.event_name) ?? '';
  const data = obj(body.data);
  const a = obj(data.attributes);
  const dataId = String(str(data.id) ?? (typeof data.id === 'number' ? data.id : ''));
  const custom = obj(meta.custom_data);
  const base = { provider: 'lemonsqueezy' as const, type, providerEventId: null, dedupeKey: `${type}:${dataId}` };
  switch (type) {
    case 'order_created': {
      if (a.status !== 'paid') return { ...base, action: { kind: 'ignore', reason: 'not_paid' } };
      return { ...base, action: lemonSqueezyPay(lemonOrderId('order', dataId), a, custom, str(obj(a.first_order_item).product_name)) };
    }
    case 'order_refunded': {
      const total = minorAmount(a.refunded_amount);
      // each refund of the order sends it again, with the new refunded total
      return {
        ...base,
        dedupeKey: `${type}:${dataId}:${total ?? ''}`,
        action: { kind: 'refund', orderId: lemonOrderId('order', dataId), minor: total === undefined ? undefined : { total }, currency: cur(a.currency), voidReason: 'refunded' },
      };
    }
    case 'subscription_payment_refunded': {
      const total = minorAmount(a.refunded_amount);
      return {
        ...base,
        dedupeKey: `${type}:${dataId}:${total ?? ''}`,
        action: {
          kind: 'refund',
          orderId: lemonOrderId('invoice', dataId),
          minor: total === undefined ? undefined : { total },
          currency: cur(a.currency),
          voidReason: 'refunded',
          // a renewal booked before renewals had ids of their own is `lemonsqueezy:<invoice id>`: its log row names it
          bookedBy: `subscription_payment_success:${dataId}`,
        },
      };
    }
    case 'subscription_payment_success': {
      if (a.billing_reason === 'initial') return { ...base, action: { kind: 'ignore', reason: 'first_payment_is_its_order' } };
      if (a.status !== 'paid') return { ...base, action: { kind: 'ignore', reason: 'not_paid' } };
      return { ...base, action: lemonSqueezyPay(lemonOrderId('invoice', dataId), a, custom, undefined) };
    }
    default:
      return { ...base, action: IGNORE_TYPE };
  }
}
