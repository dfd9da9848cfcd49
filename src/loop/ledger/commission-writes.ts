import type { Insertable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { ChainedWrite } from './chain.js';
import type { Commission, CommissionStatus, CommissionsTable, FraudSignal, VoidReason } from '../../platform/db/schema.js';

/**
 * The statements that write commissions, as parts of a ledger plan: built here, run only by the executor
 * (money-writers.test.ts holds both). A guard changes no row when another writer moved first.
 */

/** The INSERT of a commission, not yet run: for a ledger plan's inserts. */
export function commissionInsert(db: Executor, row: Insertable<CommissionsTable>) {
  return db.insertInto('commissions').values(row);
}

/**
 * Moves a commission from exactly the state `before` (its status and its amount, as just read) to `to`:
 * the row it leaves, and the conditional UPDATE as a plan's guard. The amount is part of the condition
 * because the ledger books `before`'s amount: a refund may reduce an open commission between the read
 * and this update (PostgreSQL, read committed).
 */
export function commissionTransition(db: Executor, before: Commission, to: CommissionStatus, now: number): { readonly after: Commission; readonly write: ChainedWrite } {
  const stamps =
    to === 'approved'
      ? { approved_at: now }
      : to === 'paid'
        ? { paid_at: now, ...(before.status === 'pending' ? { approved_at: now } : {}) }
        : to === 'void'
          ? { voided_at: now }
          : {};
  const set = { status: to, updated_at: now, ...stamps };
  return { after: { ...before, ...set }, write: conditionalUpdate(db, before, set) };
}

/**
 * A refund changes an open (pending or approved) commission: its amount becomes `toCents`, or it is
 * voided for the refund. The commission it leaves, and its UPDATE as a guard of the refund's plan,
 * conditional on the state and amount just read.
 */
export function refundOpenCommission(
  db: Executor,
  before: Commission,
  change: { readonly toCents: number } | { readonly voidFor: VoidReason },
  now: number,
): { readonly after: Commission; readonly write: ChainedWrite } {
  const set =
    'voidFor' in change
      ? { status: 'void' as const, void_reason: change.voidFor, voided_at: now, updated_at: now }
      : { commission_cents: change.toCents, updated_at: now };
  return { after: { ...before, ...set }, write: conditionalUpdate(db, before, set) };
}

/**
 * docs/api.md#fraud-review: a commission rejected with its fraud case, from exactly the state just read
 * (pending, held by that case): void with void_reason "fraud"; a guard of the rejection's plan.
 */
export function commissionRejected(db: Executor, before: Commission, now: number): { readonly after: Commission; readonly write: ChainedWrite } {
  const set = { status: 'void' as const, void_reason: 'fraud' as const, voided_at: now, updated_at: now };
  return { after: { ...before, ...set }, write: conditionalUpdate(db, before, set) };
}

/**
 * docs/api.md#fraud-review: the affiliate's pending commissions not held yet become held by `caseId` (a
 * case that holds has just opened). A write on its own (it may change no row), run before any counter
 * move of its transaction so that it keeps the ledger's lock order (commission rows, then counters).
 */
export function holdPendingCommissions(db: Executor, refCode: string, caseId: string, signal: FraudSignal) {
  return db
    .updateTable('commissions')
    .set({ hold_case_id: caseId, hold_signal: signal })
    .where('ref_code', '=', refCode)
    .where('status', '=', 'pending')
    .where('hold_case_id', 'is', null);
}

/**
 * The pending commissions held by a case that was just released: held by `next` instead (another open case
 * of the affiliate that holds), else held no more.
 */
export function releaseHeldCommissions(db: Executor, caseId: string, next: { readonly id: string; readonly signal: FraudSignal } | undefined) {
  return db
    .updateTable('commissions')
    .set({ hold_case_id: next?.id ?? null, hold_signal: next?.signal ?? null })
    .where('hold_case_id', '=', caseId)
    .where('status', '=', 'pending');
}

/**
 * The UPDATE of one commission, conditional on its state, amount and hold exactly as read: a commission
 * held or released meanwhile (docs/api.md#fraud-review) makes it change no row, so the caller decides again.
 */
function conditionalUpdate(db: Executor, before: Commission, set: Partial<Commission>): ChainedWrite {
  return (after) => {
    let q = db
      .updateTable('commissions')
      .set(set)
      .where('id', '=', before.id)
      .where('status', '=', before.status)
      .where('commission_cents', '=', before.commission_cents)
      .where('hold_case_id', before.hold_case_id === null ? 'is' : '=', before.hold_case_id);
    if (after) q = q.where(after);
    return q.returning('id');
  };
}
