import type { Executor } from '../db/database.js';

/**
 * The network click ids stored with the attribution of an order's mailbox (referral first, then the
 * affiliate's latest click carrying any), as the JSON text the attribution feature wrote.
 */
export async function findNetworkClickIds(db: Executor, email: string, refCode: string | null): Promise<string | null> {
  const address = email.trim().toLowerCase();
  const referral = await db
    .selectFrom('referrals')
    .select('network_click_ids')
    .where('mailbox_address', '=', address)
    .where('network_click_ids', 'is not', null)
    .executeTakeFirst();
  if (referral?.network_click_ids) return referral.network_click_ids;
  if (!refCode) return null;
  const click = await db
    .selectFrom('clicks')
    .select('network_click_ids')
    .where('ref_code', '=', refCode)
    .where('network_click_ids', 'is not', null)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return click?.network_click_ids ?? null;
}
