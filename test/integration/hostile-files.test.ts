import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { addAffiliate, addMailbox, earn, givePayoutDetails } from '../helpers/ledger-fixtures.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * docs/api.md#csv-exports and docs/api.md#payouts: every CSV svc writes (the exports and the payout files)
 * neutralises formula starts and strips invisible characters from names; a payout email is a plain address.
 */
describeEachDatabase('hostile bytes in files for people and providers', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
    await addAffiliate(t, 'hostile');
    await addMailbox(t, 'hostile-buyer@svc.test', 'hostile');
    await earn(t, 'h-1', 'hostile-buyer@svc.test', 1000);
  });
  afterAll(async () => {
    await t?.close();
  });

  const rowsOf = async (url: string) => {
    const res = await t.api('GET', url);
    expect(res.statusCode).toBe(200);
    return parse(res.body, { columns: true }) as Record<string, string>[];
  };
  /** Every cell of a file: none a spreadsheet reads as a formula, none with an invisible character. */
  const noFormulaCell = (cells: string[]) => {
    for (const cell of cells) {
      expect(cell, cell).not.toMatch(/^[ \u00a0\u3000]*[=+\-@\t\r\uff1d\uff0b\uff0d\uff20\u2212]/);
      expect(cell, cell).not.toMatch(/[\u200b-\u200d\u2060\ufeff\u202a-\u202e\u2066-\u2069]|(?![\t\n\r])\p{Cc}/u);
    }
  };

  describe('a payout email must be a plain address', () => {
    it.each(['=cmd@example.com', '+1@example.com', '-x@example.com', '\uff1dx@example.com', '\uff0bx@example.com', '  =x@example.com', 'a\u202eb@example.com', 'a\u200bb@example.com'])(
      'refuses %j with 400 at payout_details.email, for PayPal and Wise',
      async (email) => {
        for (const method of ['paypal', 'wise']) {
          const res = await t.api('PATCH', '/api/affiliates/hostile', { payout_details: { method, email } });
          expect(res.statusCode).toBe(400);
          expect(res.json()).toMatchObject({ success: false, error: { code: 'invalid_request', details: [{ field: 'payout_details.email', message: expect.any(String) }] } });
        }
        expect((await t.api('GET', '/api/affiliates/hostile')).json().affiliate.payout_details).toEqual({ method: 'other', note: 'paid by hand' });
      },
    );

    it('stored details with such an email (saved before the rule) pay nothing: no withdrawal, and an old snapshot leaves the file cell empty', async () => {
      await givePayoutDetails(t, 'hostile', { method: 'paypal', email: 'pal@example.com' });
      const w = (await t.api('POST', '/api/withdrawals', { ref_code: 'hostile', amount: 1 })).json().withdrawal;
      // What an older version let through: a formula in the affiliate's email and in the withdrawal's copy.
      const bad = JSON.stringify({ method: 'paypal', email: '=hyperlink("http://x.test")@example.com' });
      await t.service.ctx.db.updateTable('affiliate_accounts').set({ payout_details: bad }).where('ref_code', '=', 'hostile').execute();
      await t.service.ctx.db.updateTable('withdrawals').set({ payout: bad }).where('id', '=', w.id).execute();
      const refused = await t.api('POST', '/api/withdrawals', { ref_code: 'hostile', amount: 1 });
      expect(refused.statusCode).toBe(422);
      expect(refused.json().error.code).toBe('payout_details_missing');
      const batch = (await t.api('POST', '/api/payout-batches', { method: 'paypal' })).json().batch;
      const lines = parse((await t.api('GET', `/api/payout-batches/${batch.id}/file`)).body) as string[][];
      expect(lines).toEqual([['', '1.00', 'USD', w.id, `Affiliate payout ${batch.id}`, 'PAYPAL']]);
      await givePayoutDetails(t, 'hostile', { method: 'paypal', email: 'pal@example.com' });
    });
  });

  it('a Wise file: the name is stripped of invisible characters at input and at output, and its formula start neutralised', async () => {
    const res = await t.api('PATCH', '/api/affiliates/hostile', { payout_details: { method: 'wise', email: 'w@example.com', account_holder: '  =cmd|\u200b\u202e" /C calc"!A0\u2060' } });
    expect(res.statusCode).toBe(200);
    expect(res.json().affiliate.payout_details.account_holder).toBe('=cmd|" /C calc"!A0');
    const first = (await t.api('POST', '/api/withdrawals', { ref_code: 'hostile', amount: 2 })).json().withdrawal;
    const second = (await t.api('POST', '/api/withdrawals', { ref_code: 'hostile', amount: 3 })).json().withdrawal;
    // a copy stored before the rule, invisible characters and a line break in the name
    const legacy = JSON.stringify({ method: 'wise', email: 'w@example.com', account_holder: ' \uff0bSUM(1)\u0007\n\u200dx' });
    await t.service.ctx.db.updateTable('withdrawals').set({ payout: legacy }).where('id', '=', second.id).execute();
    const batch = (await t.api('POST', '/api/payout-batches', { method: 'wise' })).json().batch;
    const rows = await rowsOf(`/api/payout-batches/${batch.id}/file`);
    const byId = new Map(rows.map((r) => [r.paymentReference, r]));
    expect(byId.get(first.id)).toMatchObject({ name: `'=cmd|" /C calc"!A0`, recipientEmail: 'w@example.com', amount: '2.00' });
    // the line break is a space (two words stay two), the bell and the zero-width joiner are gone
    expect(byId.get(second.id)).toMatchObject({ name: "' \uff0bSUM(1) x", recipientEmail: 'w@example.com', amount: '3.00' });
    for (const r of rows) noFormulaCell(Object.values(r));

    // The same withdrawals in the withdrawal export: the name column likewise, the note neutralised.
    await t.service.ctx.db
      .updateTable('withdrawals')
      .set({ payout: JSON.stringify({ method: 'other', note: '@SUM(A1)\u200b\nsecond line' }) })
      .where('id', '=', first.id)
      .execute();
    const exported = await rowsOf('/api/withdrawals.csv?ref_code=hostile');
    const exportedById = new Map(exported.map((r) => [r.id, r]));
    expect(exportedById.get(second.id)).toMatchObject({ payout_method: 'wise', payout_account_holder: "' \uff0bSUM(1) x" });
    expect(exportedById.get(first.id)).toMatchObject({ payout_method: 'other', payout_note: "'@SUM(A1)\nsecond line" });
    for (const r of exported) noFormulaCell(Object.values(r));
  });

  it('the order and commission exports neutralise what a billing system or client sent', async () => {
    for (const [i, product] of ['=HYPERLINK("http://x.test","Click")', '\uff0d2+3', ' @SUM(A1)', '\t=1', '\u2212 1'].entries()) {
      expect((await t.api('POST', '/api/orders', { order_id: `hostile-${i}`, email: 'hostile-buyer@svc.test', amount: 1, product })).statusCode).toBe(201);
    }
    const orders = await rowsOf('/api/orders.csv');
    const products = orders.filter((r) => r.order_id!.startsWith('hostile-')).map((r) => r.product);
    // (the order's input trims the product, so its leading spaces and tab are gone before the file)
    expect(products.sort()).toEqual([`'=HYPERLINK("http://x.test","Click")`, "'\uff0d2+3", "'@SUM(A1)", "'=1", "'\u2212 1"].sort());
    for (const r of orders) noFormulaCell(Object.values(r));
    for (const r of await rowsOf('/api/commissions.csv')) noFormulaCell(Object.values(r));
    for (const r of await rowsOf('/api/affiliate/summary.csv')) noFormulaCell(Object.values(r));
  });

  it('affiliate names lose control and invisible characters at input (API key and admin)', async () => {
    const created = await t.api('POST', '/api/affiliates', { ref_code: 'named', name: 'Ja\u202ene\u200b Doe\u0001\u2066' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().affiliate.name).toBe('Jane Doe');
    const admin = await t.admin();
    const patched = await admin.call('PATCH', '/admin/api/affiliates/named', { name: '\ufeffBob\u200d\u0007' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json().affiliate.name).toBe('Bob');
  });
});
