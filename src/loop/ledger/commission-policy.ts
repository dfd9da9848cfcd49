import type { CommissionRule } from '../../platform/db/schema.js';
import { commissionCents } from '../../platform/money.js';

/**
 * docs/ledger.md#commission-rules: which commission a paid order earns. Pure: the caller hands it the candidate rules and
 * the facts the rules' limits need. A new rule kind changes this file and the rules feature only;
 * orders and withdrawals never see how the amount was decided.
 */

export interface PolicyInput {
  readonly amountCents: number;
  readonly refCode: string;
  readonly product: string;
  /** The affiliate's own rate, null when the global one applies. */
  readonly affiliateRateBp: number | null;
  readonly globalRateBp: number;
  /** Every rule naming this affiliate or this product (or both); the policy picks. */
  readonly rules: readonly CommissionRule[];
  readonly paidAt: number;
  /** When the customer's mailbox was attributed (null: unknown, e.g. the row is gone). */
  readonly attributedAt: number | null;
  /** Commissioned orders of the same customer mailbox before this one. */
  readonly priorCommissionedOrders: number;
}

export interface CommissionBasis {
  readonly rateBp: number;
  /** The flat amount of a flat rule (rateBp is then 0). */
  readonly flatCents: number | null;
}

export type CommissionDecision =
  | (CommissionBasis & { readonly kind: 'commission'; readonly cents: number; readonly ruleId: string | null })
  | { readonly kind: 'none'; readonly reason: 'duration_days' | 'max_orders' };

const DAY_MS = 86_400_000;

/** The first match wins: the affiliate and the product, the product, the affiliate. */
export function matchRule(rules: readonly CommissionRule[], refCode: string, product: string): CommissionRule | undefined {
  const oldestFirst = [...rules].sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : 1));
  return (
    oldestFirst.find((r) => r.ref_code === refCode && r.product === product) ??
    oldestFirst.find((r) => r.ref_code === null && r.product === product) ??
    oldestFirst.find((r) => r.ref_code === refCode && r.product === null)
  );
}

/** Does a rule need the mailbox facts (attribution time, earlier orders)? Saves the queries when not. */
export function needsCustomerFacts(rule: CommissionRule | undefined): boolean {
  return !!rule && (rule.duration_days !== null || rule.max_orders !== null);
}

/** The commission on an amount at a basis: percent rounded half-up to the cent, or flat capped at the amount. */
export function commissionOn(amountCents: number, basis: CommissionBasis): number {
  return basis.flatCents !== null ? Math.min(basis.flatCents, amountCents) : commissionCents(amountCents, basis.rateBp);
}

export function decideCommission(input: PolicyInput): CommissionDecision {
  const rule = matchRule(input.rules, input.refCode, input.product);
  if (!rule) {
    const basis = { rateBp: input.affiliateRateBp ?? input.globalRateBp, flatCents: null };
    return { kind: 'commission', ...basis, cents: commissionOn(input.amountCents, basis), ruleId: null };
  }
  if (rule.duration_days !== null && (input.attributedAt === null || input.paidAt - input.attributedAt > rule.duration_days * DAY_MS)) {
    return { kind: 'none', reason: 'duration_days' };
  }
  if (rule.max_orders !== null && input.priorCommissionedOrders >= rule.max_orders) return { kind: 'none', reason: 'max_orders' };
  const basis = rule.flat_cents !== null ? { rateBp: 0, flatCents: rule.flat_cents } : { rateBp: rule.rate_bp ?? 0, flatCents: null };
  return { kind: 'commission', ...basis, cents: commissionOn(input.amountCents, basis), ruleId: rule.id };
}
