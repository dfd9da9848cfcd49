import type { Kysely } from 'kysely';

/**
 * The holding period is measured from the payment with the setting as it is at approval time (CONTRACT
 * §12: approved `holding_days` after its order was paid), through the index on (status, created_at), so a
 * change of `holding_days` applies to the commissions already pending. The due date each commission
 * stored at booking (`approve_due_at`, with the setting of that moment) is no longer read or written: its
 * index goes. The column stays, null for new commissions, so that instances of the release before this
 * one, which still write it with every commission, keep taking payments during a rolling deploy; a later
 * release drops it.
 */
export function holdingFromPayment() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('commissions_approve_due').ifExists().execute();
    },
  };
}
