import type { Db } from '../../src/db/database.js';
import type { TestService } from './service.js';

/**
 * Affiliates and attributed mailboxes for the ledger tests, written straight into the tables: the
 * ledger only reads them (mailbox by address, affiliate by ref_code), whoever created them.
 */
export async function addAffiliate(
  t: TestService,
  refCode: string,
  opts: { rateBp?: number | null; status?: 'active' | 'disabled' } = {},
): Promise<void> {
  const db: Db = t.service.ctx.db;
  const now = t.clock.now();
  await db
    .insertInto('affiliates')
    .values({
      ref_code: refCode,
      name: null,
      email: null,
      status: opts.status ?? 'active',
      commission_rate_bp: opts.rateBp ?? null,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

export async function addMailbox(t: TestService, address: string, refCode: string | null): Promise<void> {
  const [local, domain] = address.toLowerCase().split('@') as [string, string];
  await t.service.ctx.db
    .insertInto('mailboxes')
    .values({ address: address.toLowerCase(), local_part: local, domain, ref_code: refCode, token_hash: 'x', created_at: t.clock.now() })
    .execute();
}

export async function eventsOfType(t: TestService, type: string): Promise<{ event: string; id: string; ts: number; data: unknown }[]> {
  const rows = await t.service.ctx.db.selectFrom('events').select(['payload']).where('type', '=', type).orderBy('seq').execute();
  return rows.map((r) => JSON.parse(r.payload));
}

export async function balanceCents(t: TestService, refCode: string): Promise<number> {
  const row = await t.service.ctx.db.selectFrom('affiliates').select('balance_cents').where('ref_code', '=', refCode).executeTakeFirstOrThrow();
  return row.balance_cents;
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
