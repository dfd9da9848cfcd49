import type { Kysely } from 'kysely';

/**
 * The holding period is measured from the payment with the setting as it is at approval time (CONTRACT
 * §12: approved `holding_days` after its order was paid), through the index on (status, created_at), so a
 * change of `holding_days` applies to the commissions already pending. The due date each commission
 * stored at booking (with the setting of that moment) is no longer read: its column and index go.
 */
export function holdingFromPayment() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('commissions_approve_due').ifExists().execute();
      await db.schema.alterTable('commissions').dropColumn('approve_due_at').execute();
    },
  };
}
