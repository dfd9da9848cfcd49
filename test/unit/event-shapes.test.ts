import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { commissionChangedPayload } from '../../src/loop/commissions/commission.events.js';
import { commissionBody } from '../../src/loop/commissions/commission.schemas.js';
import { withdrawalChangedPayload } from '../../src/loop/withdrawals/withdrawal.events.js';
import { withdrawalBody } from '../../src/loop/withdrawals/withdrawal.schemas.js';
import { EVENT_TYPES, EVENTS } from '../../src/platform/events/catalogue.js';
import type { Commission } from '../../src/platform/db/schema.js';
import { USD } from '../../src/platform/money.js';

type Json = { type?: string | string[]; properties?: Record<string, Json>; required?: string[]; anyOf?: Json[]; oneOf?: Json[]; items?: Json; enum?: unknown[]; const?: unknown };

/** A JSON schema reduced to its keys and types (an optional key ends in '?'; alternatives are a list). */
function shapeOf(s: Json): unknown {
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives) return alternatives.map(shapeOf);
  if (s.properties) return Object.fromEntries(Object.entries(s.properties).map(([k, v]) => [s.required?.includes(k) ? k : `${k}?`, shapeOf(v)]));
  if (s.type === 'array' && s.items) return [shapeOf(s.items)];
  if (s.enum) return `enum(${s.enum.join('|')})`;
  if (s.const !== undefined) return `const(${String(s.const)})`;
  return Array.isArray(s.type) ? s.type.join('|') : (s.type ?? 'any');
}

const shape = (schema: z.ZodType) => shapeOf(z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Json);

const COMMISSION = {
  id: 'string',
  order_id: 'string',
  ref_code: 'string',
  amount: 'number',
  rate: 'number',
  commission: 'number',
  currency: 'string',
  status: 'enum(pending|approved|paid|void)',
  kind: 'enum(sale|clawback)',
  rule_id: 'string|null',
  void_reason: ['enum(refunded|disputed|fraud)', 'null'],
  hold: [{ case_id: 'string', signal: 'enum(self_referral|duplicate_payout|click_burst|refund_rate)' }, 'null'],
  created_at: 'string',
};
const FRAUD_CASE = {
  id: 'string',
  ref_code: 'string',
  signal: 'enum(self_referral|duplicate_payout|click_burst|refund_rate)',
  action: 'enum(flag|hold)',
  status: 'enum(open|released|rejected)',
  evidence: [{ at: 'string', detail: 'string', 'order_id?': 'string', 'click_at?': 'string' }],
  held: { count: 'integer', amount: 'number', currency: 'string' },
  opened_at: 'string',
  resolved_at: ['string', 'null'],
  note: 'string|null',
};
const PAYOUT = { method: 'enum(paypal|wise|sepa|other)', 'email?': 'string', 'iban?': 'string', 'bic?': 'string', 'account_holder?': 'string', 'note?': 'string' };
const WITHDRAWAL = {
  id: 'string',
  ref_code: 'string',
  amount: 'number',
  currency: 'string',
  status: 'enum(requested|paid|rejected)',
  payout: [PAYOUT, 'null'],
  batch_id: 'string|null',
  created_at: 'string',
};
const ORDER = { id: 'string', email: 'string', amount: 'number', currency: 'string', product: 'string' };

// What receivers of each webhook get, key by key: a change here is a change of the public contract
// (README.md#webhooks), never a side effect of an API change. The commission and withdrawal are built by
// the API's own mappers (commission.events.ts, withdrawal.events.ts), so both are held here.
const EXPECTED: Record<string, unknown> = {
  'order.paid': { order: { ...ORDER, status: 'const(paid)' }, commission: [COMMISSION, 'null'], ref_code: 'string|null' },
  'order.refunded': {
    order: { ...ORDER, status: 'enum(partially_refunded|refunded)', refunded_amount: 'number' },
    refund: { amount: 'number', created_at: 'string' },
    commission: [COMMISSION, 'null'],
    clawback: [COMMISSION, 'null'],
    ref_code: 'string|null',
  },
  'commission.created': { commission: COMMISSION, ref_code: 'string' },
  'commission.approved': { commission: COMMISSION, ref_code: 'string' },
  'commission.paid': { commission: COMMISSION, ref_code: 'string' },
  'commission.voided': { commission: COMMISSION, ref_code: 'string' },
  'withdrawal.requested': { withdrawal: WITHDRAWAL, ref_code: 'string' },
  'withdrawal.paid': { withdrawal: WITHDRAWAL, ref_code: 'string' },
  'withdrawal.rejected': { withdrawal: WITHDRAWAL, ref_code: 'string' },
  'fraud.case_opened': { case: FRAUD_CASE, ref_code: 'string' },
  'fraud.case_resolved': { case: FRAUD_CASE, ref_code: 'string' },
  'affiliate.created': {
    affiliate: { ref_code: 'string', name: 'string|null', email: 'string|null', status: 'enum(active|disabled|pending)', commission_rate: 'number|null', created_at: 'string' },
    ref_code: 'string',
  },
  'message.received': {
    message: { id: 'string', mailbox: 'string', from: 'string|null', subject: 'string|null', code: 'string|null', verification_link: 'string|null', received_at: 'string' },
    ref_code: 'string|null',
  },
  'webhook.test': { message: 'string' },
};

describe('event payload shapes (held still)', () => {
  it.each(EVENT_TYPES)('%s: the keys and types of its data', (type) => {
    expect(shape(EVENTS[type].data)).toEqual(EXPECTED[type]);
  });

  it('the commission and the withdrawal: one mapper serves the API body and the event, with the same keys and types', () => {
    expect(shape(commissionBody)).toEqual(COMMISSION);
    expect(shape(withdrawalBody)).toEqual(WITHDRAWAL);
    const c = { id: 'com_1', order_id: 'o-1', ref_code: 'ann', amount_cents: 12050, rate_bp: 1250, commission_cents: 1506, status: 'pending', created_at: 0, updated_at: 0 };
    const row: Commission = { ...c, status: 'pending', approved_at: null, paid_at: null, voided_at: null, kind: 'sale', rule_id: null, void_reason: null, flat_cents: null, hold_case_id: null, hold_signal: null };
    expect(Object.keys(commissionChangedPayload(row, USD).commission)).toEqual(Object.keys(COMMISSION));
    const w = { id: 'wd_1', ref_code: 'ann', amount_cents: 500, status: 'requested', created_at: 0, updated_at: 0, payout: null, batch_id: null } as const;
    expect(Object.keys(withdrawalChangedPayload(w as never, USD).withdrawal)).toEqual(Object.keys(WITHDRAWAL));
  });
});
