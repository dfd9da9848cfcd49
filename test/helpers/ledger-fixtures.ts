import { sql } from 'kysely';
import type { Db } from '../../src/platform/db/database.js';
import type { TestService } from './service.js';

/**
 * Affiliates and attributed mailboxes for the ledger tests, made through the public API
 * (POST /api/affiliates, POST /api/mailboxes, PATCH /admin/api/affiliates) like a client would.
 */
export async function addAffiliate(
  t: TestService,
  refCode: string,
  opts: { rateBp?: number | null; status?: 'active' | 'disabled' } = {},
): Promise<void> {
  const body: Record<string, unknown> = { ref_code: refCode };
  if (opts.rateBp !== undefined && opts.rateBp !== null) body.commission_rate = opts.rateBp / 100;
  const res = await t.api('POST', '/api/affiliates', body);
  if (res.statusCode !== 201) throw new Error(`affiliate ${refCode}: ${res.statusCode} ${res.body}`);
  // docs/api.md#payouts: no withdrawal without payout details
  await givePayoutDetails(t, refCode);
  if (opts.status === 'disabled') await disableAffiliate(t, refCode);
}

/** Payout details (docs/api.md#payouts: a withdrawal needs them), set through PATCH /api/affiliates/{ref_code}. */
export async function givePayoutDetails(t: TestService, refCode: string, details: Record<string, unknown> = { method: 'other', note: 'paid by hand' }): Promise<void> {
  const res = await t.api('PATCH', `/api/affiliates/${encodeURIComponent(refCode)}`, { payout_details: details });
  if (res.statusCode !== 200) throw new Error(`payout details of ${refCode}: ${res.statusCode} ${res.body}`);
}

export async function disableAffiliate(t: TestService, refCode: string): Promise<void> {
  const admin = await t.admin();
  const res = await admin.call('PATCH', `/admin/api/affiliates/${refCode}`, { status: 'disabled' });
  if (res.statusCode !== 200) throw new Error(`disable ${refCode}: ${res.statusCode} ${res.body}`);
}

/** A mailbox on the default domain (svc.test), attributed to refCode (which must be active) or not. */
export async function addMailbox(t: TestService, address: string, refCode: string | null): Promise<void> {
  const [name, domain] = address.toLowerCase().split('@') as [string, string];
  const res = await t.api('POST', '/api/mailboxes', { name, domain, ...(refCode ? { ref_code: refCode } : {}) });
  if (res.statusCode !== 201) throw new Error(`mailbox ${address}: ${res.statusCode} ${res.body}`);
  if ((res.json().mailbox as { ref_code: string | null }).ref_code !== refCode) throw new Error(`mailbox ${address} not attributed: ${res.body}`);
}

/** A mailbox row whose ref_code names no affiliate (the API cannot make one): attribution must ignore it. */
export async function insertDanglingMailbox(t: TestService, address: string, refCode: string): Promise<void> {
  const db: Db = t.service.ctx.db;
  const [local, domain] = address.toLowerCase().split('@') as [string, string];
  await db
    .insertInto('mailboxes')
    .values({ address: address.toLowerCase(), local_part: local, domain, ref_code: refCode, token_hash: 'x', created_at: t.clock.now() })
    .execute();
}

export async function eventsOfType(t: TestService, type: string): Promise<{ event: string; id: string; ts: number; data: unknown }[]> {
  const rows = await t.service.ctx.db.selectFrom('events').select(['payload']).where('type', '=', type).orderBy('seq').execute();
  return rows.map((r) => JSON.parse(r.payload));
}

/** The affiliate's balance: the sum of its stripes' shares (migration 0043). */
export async function balanceCents(t: TestService, refCode: string): Promise<number> {
  const row = await t.service.ctx.db
    .selectFrom('affiliate_stats')
    .select(sql<number>`coalesce(sum(balance_cents), 0)`.as('cents'))
    .where('ref_code', '=', refCode)
    .executeTakeFirst();
  return Number(row?.cents ?? 0);
}

/** Creates an order for an attributed mailbox, pays it and marks its commission paid; returns the commission id. */
export async function earn(t: TestService, orderId: string, email: string, amount: number): Promise<string> {
  const created = await t.api('POST', '/api/orders', { order_id: orderId, email, amount, product: 'p' });
  if (created.statusCode !== 201) throw new Error(`order: ${created.statusCode} ${created.body}`);
  const paid = await t.api('POST', '/api/orders/pay', { order_id: orderId });
  const commission = paid.json().commission as { id: string } | null;
  if (!commission) throw new Error(`no commission: ${paid.body}`);
  const marked = await t.api('POST', `/api/commissions/${commission.id}/mark-paid`);
  if (marked.statusCode !== 200) throw new Error(`mark-paid: ${marked.statusCode} ${marked.body}`);
  return commission.id;
}
