import { parse } from 'csv-parse/sync';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { addAffiliate, addMailbox, earn, eventsOfType, givePayoutDetails } from '../helpers/ledger-fixtures.js';
import { startTestService, type TestService } from '../helpers/service.js';

// Real IBANs of the kind banks print in their examples: valid checksums and lengths.
const IBAN_DE = 'DE89370400440532013000';
const IBAN_FR = 'FR1420041010050500013M02606';
const IBAN_BAD_CHECK = 'DE89370400440532013001';
const IBAN_BAD_LENGTH = 'DE8937040044053201300';

/** docs/api.md#payouts currency rules, on a service of their own per currency (the currency locks with the first order). */
describeEachDatabase('payouts: currency', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a database that never set one is USD: outputs carry it, money keeps 2 decimals', async () => {
    const admin = await t.admin();
    const s = (await admin.call('GET', '/admin/api/settings')).json().settings;
    expect(s).toMatchObject({ currency: 'USD', payout_minimum: null, payout_schedule: 'manual' });
    const bad = await admin.call('PATCH', '/admin/api/settings', { currency: 'XYZ' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details[0].field).toBe('currency');
  });

  it('a currency change keeps configured amounts at their value, and is refused when one has none in the new currency', async () => {
    const admin = await t.admin();
    const rule = (await t.api('POST', '/api/commission-rules', { product: 'flat-p', flat: 5 })).json().rule;
    expect((await admin.call('PATCH', '/admin/api/settings', { payout_minimum: 2.5 })).statusCode).toBe(200);
    const refused = await admin.call('PATCH', '/admin/api/settings', { currency: 'JPY' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.details).toEqual([{ field: 'currency', message: 'the payout minimum has no exact value in JPY' }]);
    expect((await admin.call('GET', '/admin/api/settings')).json().settings).toMatchObject({ currency: 'USD', payout_minimum: 2.5 });
    expect((await admin.call('PATCH', '/admin/api/settings', { currency: 'KWD' })).json().settings).toMatchObject({ currency: 'KWD', payout_minimum: 2.5 });
    expect((await t.api('GET', `/api/commission-rules?limit=5`)).json().items[0]).toMatchObject({ id: rule.id, flat: 5 });
    expect((await t.service.ctx.db.selectFrom('commission_rules').select('flat_cents').where('id', '=', rule.id).executeTakeFirstOrThrow()).flat_cents).toBe(5000);
    expect((await admin.call('PATCH', '/admin/api/settings', { currency: 'USD', payout_minimum: null })).statusCode).toBe(200);
    expect((await t.api('DELETE', `/api/commission-rules/${rule.id}`)).statusCode).toBe(200);
  });

  it('JPY refuses 1.5 and answers 1234 as 1234; KWD takes 1.125; the CSV cell has the currency decimals', async () => {
    const admin = await t.admin();
    expect((await admin.call('PATCH', '/admin/api/settings', { currency: 'JPY' })).json().settings.currency).toBe('JPY');
    const half = await t.api('POST', '/api/orders', { order_id: 'jpy-1', email: 'a@svc.test', amount: 1.5, product: 'p' });
    expect(half.statusCode).toBe(400);
    expect(half.json().error.details).toEqual([{ field: 'amount', message: 'must have at most 0 decimal places (JPY)' }]);

    expect((await admin.call('PATCH', '/admin/api/settings', { currency: 'KWD' })).json().settings.currency).toBe('KWD');
    const fils = await t.api('POST', '/api/orders', { order_id: 'kwd-1', email: 'a@svc.test', amount: 1.125, product: 'p' });
    expect(fils.statusCode).toBe(201);
    expect(fils.json().order).toMatchObject({ amount: 1.125, currency: 'KWD' });
    expect((await t.api('POST', '/api/orders', { order_id: 'kwd-2', email: 'a@svc.test', amount: 1.1255, product: 'p' })).statusCode).toBe(400);
    const csv = (await t.api('GET', '/api/orders.csv')).body;
    const rows = parse(csv, { columns: true }) as Record<string, string>[];
    expect(rows[0]).toMatchObject({ order_id: 'kwd-1', amount: '1.125', currency: 'KWD' });
  });

  it('locks the currency once an order exists (409 currency_locked); another currency on an order is 422 currency_mismatch', async () => {
    const admin = await t.admin();
    const locked = await admin.call('PATCH', '/admin/api/settings', { currency: 'EUR' });
    expect(locked.statusCode).toBe(409);
    expect(locked.json().error.code).toBe('currency_locked');
    expect((await admin.call('GET', '/admin/api/settings')).json().settings.currency).toBe('KWD');
    // the same currency again is no change
    expect((await admin.call('PATCH', '/admin/api/settings', { currency: 'KWD' })).statusCode).toBe(200);
    const other = await t.api('POST', '/api/orders', { order_id: 'usd-1', email: 'a@svc.test', amount: 5, product: 'p', currency: 'USD' });
    expect(other.statusCode).toBe(422);
    expect(other.json().error.code).toBe('currency_mismatch');
    const same = await t.api('POST', '/api/orders', { order_id: 'kwd-3', email: 'a@svc.test', amount: 5, product: 'p', currency: 'kwd' });
    expect(same.statusCode).toBe(201);
  });
});

describeEachDatabase('payouts', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
    const admin = await t.admin();
    expect((await admin.call('PATCH', '/admin/api/settings', { currency: 'EUR', sepa_debtor_name: 'Ācme Société GmbH & Co', sepa_debtor_iban: IBAN_FR })).statusCode).toBe(200);
    await addAffiliate(t, 'pp');
    await addMailbox(t, 'pp-buyer@svc.test', 'pp');
    await addAffiliate(t, 'se');
    await addMailbox(t, 'se-buyer@svc.test', 'se');
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('payout details', () => {
    it('accepts each method with its fields and shows them on the affiliate', async () => {
      const res = await t.api('PATCH', '/api/affiliates/se', { payout_details: { method: 'sepa', iban: 'de89 3704 0044 0532 0130 00', bic: 'COBADEFFXXX', account_holder: 'Zoë Müller-Łukasz' } });
      expect(res.statusCode).toBe(200);
      expect(res.json().affiliate.payout_details).toEqual({ method: 'sepa', iban: IBAN_DE, bic: 'COBADEFFXXX', account_holder: 'Zoë Müller-Łukasz' });
      expect((await t.api('GET', '/api/affiliates/se')).json().affiliate.payout_details.iban).toBe(IBAN_DE);
      await givePayoutDetails(t, 'pp', { method: 'paypal', email: 'PP@Example.com' });
      expect((await t.api('GET', '/api/affiliates/pp')).json().affiliate.payout_details).toEqual({ method: 'paypal', email: 'pp@example.com' });
    });

    it.each([
      [{ method: 'sepa', iban: IBAN_BAD_CHECK, account_holder: 'X' }, 'payout_details.iban'],
      [{ method: 'sepa', iban: IBAN_BAD_LENGTH, account_holder: 'X' }, 'payout_details.iban'],
      [{ method: 'sepa', iban: IBAN_DE }, 'payout_details.account_holder'],
      [{ method: 'sepa', iban: IBAN_DE, account_holder: 'X', bic: 'NOTABIC' }, 'payout_details.bic'],
      [{ method: 'paypal', email: 'not-an-email' }, 'payout_details.email'],
      [{ method: 'wise' }, 'payout_details.email'],
      [{ method: 'other' }, 'payout_details.note'],
    ])('refuses %j with 400 naming %s', async (details, field) => {
      const res = await t.api('PATCH', '/api/affiliates/se', { payout_details: details });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('reads free text saved before this version as {method: "other", note}', async () => {
      await addAffiliate(t, 'legacy');
      // what an older version stored: the text itself
      await t.service.ctx.db.updateTable('affiliate_accounts').set({ payout_details: 'IBAN on file, ask Bob' }).where('ref_code', '=', 'legacy').execute();
      expect((await t.api('GET', '/api/affiliates/legacy')).json().affiliate.payout_details).toEqual({ method: 'other', note: 'IBAN on file, ask Bob' });
    });
  });

  describe('withdrawals keep their payout details', () => {
    it('no details: 422 payout_details_missing; below the minimum: 422 below_payout_minimum', async () => {
      await addAffiliate(t, 'nodet');
      await t.api('PATCH', '/api/affiliates/nodet', { payout_details: null });
      const res = await t.api('POST', '/api/withdrawals', { ref_code: 'nodet', amount: 1 });
      expect(res.statusCode).toBe(422);
      expect(res.json().error.code).toBe('payout_details_missing');
      const admin = await t.admin();
      expect((await admin.call('PATCH', '/admin/api/settings', { payout_minimum: 50 })).json().settings.payout_minimum).toBe(50);
      await earn(t, 'min-1', 'pp-buyer@svc.test', 1000);
      const small = await t.api('POST', '/api/withdrawals', { ref_code: 'pp', amount: 49.99 });
      expect(small.statusCode).toBe(422);
      expect(small.json().error).toMatchObject({ code: 'below_payout_minimum', details: { minimum: 50 } });
      expect((await admin.call('PATCH', '/admin/api/settings', { payout_minimum: null })).statusCode).toBe(200);
    });

    it('copies the details into the withdrawal; a later change never moves it', async () => {
      const res = await t.api('POST', '/api/withdrawals', { ref_code: 'pp', amount: 10.1 });
      expect(res.statusCode).toBe(201);
      const w = res.json().withdrawal;
      expect(w).toMatchObject({ amount: 10.1, currency: 'EUR', status: 'requested', payout: { method: 'paypal', email: 'pp@example.com' }, batch_id: null });
      await givePayoutDetails(t, 'pp', { method: 'paypal', email: 'thief@example.com' });
      expect((await t.api('GET', `/api/withdrawals/${w.id}`)).json().withdrawal.payout.email).toBe('pp@example.com');
      const [event] = (await eventsOfType(t, 'withdrawal.requested')).filter((e) => (e.data as { withdrawal: { id: string } }).withdrawal.id === w.id);
      expect((event as { data: { withdrawal: unknown } }).data.withdrawal).toMatchObject({ currency: 'EUR', payout: { method: 'paypal', email: 'pp@example.com' } });
      const rows = parse((await t.api('GET', '/api/withdrawals.csv?ref_code=pp')).body, { columns: true }) as Record<string, string>[];
      expect(rows[0]).toMatchObject({ id: w.id, amount: '10.10', currency: 'EUR', payout_method: 'paypal', payout_email: 'pp@example.com' });
      await givePayoutDetails(t, 'pp', { method: 'paypal', email: 'pp@example.com' });
    });
  });

  describe('batches', () => {
    it('nothing to gather: 422 nothing_to_pay', async () => {
      const res = await t.api('POST', '/api/payout-batches', { method: 'wise' });
      expect(res.statusCode).toBe(422);
      expect(res.json().error.code).toBe('nothing_to_pay');
    });

    it('a PayPal batch: its CSV parses back to its withdrawals; mark-paid pays all with one withdrawal.paid each', async () => {
      await t.api('POST', '/api/withdrawals', { ref_code: 'pp', amount: 0.3 });
      const made = await t.api('POST', '/api/payout-batches', { method: 'paypal' });
      expect(made.statusCode).toBe(201);
      const batch = made.json().batch;
      expect(batch).toMatchObject({ method: 'paypal', status: 'open', currency: 'EUR', total: 10.4, count: 2 });
      const file = await t.api('GET', `/api/payout-batches/${batch.id}/file`);
      expect(file.headers['content-type']).toContain('text/csv');
      const lines = parse(file.body) as string[][];
      expect(lines.map((l) => l[3]).sort()).toEqual([...batch.withdrawal_ids].sort());
      expect(lines.every((l) => l[0] === 'pp@example.com' && l[2] === 'EUR' && l[5] === 'PAYPAL')).toBe(true);
      // PayPal's customer id: at most 30 characters, no spaces
      expect(lines.every((l) => l[3]!.length <= 30 && !/\s/.test(l[3]!))).toBe(true);
      expect(lines.map((l) => l[1]).sort()).toEqual(['0.30', '10.10']);
      // a second batch finds nothing: none is in two batches
      expect((await t.api('POST', '/api/payout-batches', { method: 'paypal' })).statusCode).toBe(422);

      const before = (await eventsOfType(t, 'withdrawal.paid')).length;
      const admin = await t.admin();
      const paid = await admin.call('POST', `/admin/api/payout-batches/${batch.id}/mark-paid`);
      expect(paid.statusCode).toBe(200);
      expect(paid.json().batch.status).toBe('paid');
      expect((await eventsOfType(t, 'withdrawal.paid')).length).toBe(before + 2);
      for (const id of batch.withdrawal_ids) expect((await t.api('GET', `/api/withdrawals/${id}`)).json().withdrawal.status).toBe('paid');
      // again: unchanged, no more events
      expect((await t.api('POST', `/api/payout-batches/${batch.id}/mark-paid`)).statusCode).toBe(200);
      expect((await eventsOfType(t, 'withdrawal.paid')).length).toBe(before + 2);
    });

    it('mark-paid is all or nothing: a withdrawal rejected meanwhile fails the batch and pays none', async () => {
      await t.api('POST', '/api/withdrawals', { ref_code: 'pp', amount: 1 });
      await t.api('POST', '/api/withdrawals', { ref_code: 'pp', amount: 2 });
      const batch = (await t.api('POST', '/api/payout-batches', { method: 'paypal' })).json().batch;
      await t.api('POST', `/api/withdrawals/${batch.withdrawal_ids[0]}/reject`);
      const res = await t.api('POST', `/api/payout-batches/${batch.id}/mark-paid`);
      expect(res.statusCode).toBe(409);
      expect((await t.api('GET', `/api/withdrawals/${batch.withdrawal_ids[1]}`)).json().withdrawal.status).toBe('requested');
      expect((await t.api('GET', `/api/payout-batches/${batch.id}`)).json().batch.status).toBe('open');
    });

    it('a SEPA batch: pain.001.001.03 with NbOfTxs and CtrlSum equal to its items, names in the SEPA character set', async () => {
      await earn(t, 'se-1', 'se-buyer@svc.test', 1000);
      for (const amount of [0.1, 0.2, 33.33]) expect((await t.api('POST', '/api/withdrawals', { ref_code: 'se', amount })).statusCode).toBe(201);
      const batch = (await t.api('POST', '/api/payout-batches', { method: 'sepa' })).json().batch;
      expect(batch).toMatchObject({ count: 3, total: 33.63 });
      // downloaded three days after the batch was made: the bank is asked to pay on the day of the download
      t.clock.advance(3 * 24 * 3600 * 1000);
      const file = await t.api('GET', `/api/payout-batches/${batch.id}/file`);
      expect(file.statusCode).toBe(200);
      const doc = new XMLParser({ ignoreAttributes: false, parseTagValue: false }).parse(file.body);
      const init = doc.Document.CstmrCdtTrfInitn;
      expect(doc.Document['@_xmlns']).toBe('urn:iso:std:iso:20022:tech:xsd:pain.001.001.03');
      const txs = [init.PmtInf.CdtTrfTxInf].flat();
      expect(init.GrpHdr.NbOfTxs).toBe(String(txs.length));
      const cents = txs.reduce((n: number, x: { Amt: { InstdAmt: { '#text': string } } }) => n + Math.round(Number(x.Amt.InstdAmt['#text']) * 100), 0);
      expect(init.GrpHdr.CtrlSum).toBe((cents / 100).toFixed(2));
      expect(init.GrpHdr.CtrlSum).toBe('33.63');
      expect(init.PmtInf.CtrlSum).toBe('33.63');
      const today = new Date(t.clock.now()).toISOString();
      expect(init.PmtInf.ReqdExctnDt).toBe(today.slice(0, 10));
      expect(init.GrpHdr.CreDtTm).toBe(today.slice(0, 19));
      expect(init.PmtInf.ReqdExctnDt).not.toBe(batch.created_at.slice(0, 10));
      expect(txs.map((x: { PmtId: { EndToEndId: string } }) => x.PmtId.EndToEndId).sort()).toEqual([...batch.withdrawal_ids].sort());
      expect(txs[0].Amt.InstdAmt['@_Ccy']).toBe('EUR');
      expect(txs[0].CdtrAcct.Id.IBAN).toBe(IBAN_DE);
      expect(txs[0].Cdtr.Nm).toBe('Zoe Muller-Lukasz');
      expect(init.PmtInf.Dbtr.Nm).toBe('Acme Societe GmbH Co');
      expect(init.PmtInf.DbtrAcct.Id.IBAN).toBe(IBAN_FR);
      for (const x of txs) expect(x.Cdtr.Nm).toMatch(/^[A-Za-z0-9/\-?:().,'+ ]+$/);
    });

    it('batches racing new withdrawals: none in two batches, none lost', async () => {
      await earn(t, 'race-1', 'pp-buyer@svc.test', 10000);
      const requests = Array.from({ length: 20 }, () => t.api('POST', '/api/withdrawals', { ref_code: 'pp', amount: 1 }));
      const batches = Array.from({ length: 5 }, () => t.api('POST', '/api/payout-batches', { method: 'paypal' }));
      const answers = await Promise.all([...requests, ...batches]);
      const ids = answers.slice(0, 20).map((r) => r.json().withdrawal.id as string);
      expect(answers.slice(0, 20).every((r) => r.statusCode === 201)).toBe(true);
      // whatever the races left unbatched goes into one more batch
      await t.api('POST', '/api/payout-batches', { method: 'paypal' });
      const all = (await t.api('GET', '/api/payout-batches?limit=500')).json().items as { withdrawal_ids: string[]; count: number }[];
      const seen = all.flatMap((b) => b.withdrawal_ids);
      expect(new Set(seen).size).toBe(seen.length);
      for (const id of ids) expect(seen).toContain(id);
      for (const b of all) expect(b.withdrawal_ids.length).toBe(b.count);
    });

    it('lists batches newest first a page at a time; its cursors are its own (another list\'s is a 400 naming cursor)', async () => {
      const all = (await t.api('GET', '/api/payout-batches?limit=500')).json().items as { id: string }[];
      expect(all.length).toBeGreaterThan(2);
      const seen: string[] = [];
      let cursor = '';
      for (;;) {
        const page = (await t.api('GET', `/api/payout-batches?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).json();
        seen.push(...page.items.map((b: { id: string }) => b.id));
        if (!page.next_cursor) break;
        expect(all.map((b) => b.id)).not.toContain(page.next_cursor);
        cursor = page.next_cursor;
      }
      expect(seen).toEqual(all.map((b) => b.id));
      expect([...seen].sort().reverse()).toEqual(seen);
      const affiliatesCursor = (await t.api('GET', '/api/affiliates?limit=1')).json().next_cursor as string;
      for (const bad of [affiliatesCursor, 'zzz']) {
        const res = await t.api('GET', `/api/payout-batches?cursor=${bad}`);
        expect(res.statusCode).toBe(400);
        expect(res.json().error.details).toEqual([expect.objectContaining({ field: 'cursor' })]);
      }
    });

    it('admin sees what is owed per method and currency', async () => {
      await t.api('POST', '/api/withdrawals', { ref_code: 'se', amount: 5 });
      const admin = await t.admin();
      const owed = (await admin.call('GET', '/admin/api/payouts/owed')).json().owed;
      expect(owed).toContainEqual({ method: 'sepa', currency: 'EUR', count: 1, total: 5 });
    });
  });
});

describeEachDatabase('payouts: a Wise batch on USD', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
    await addAffiliate(t, 'wi');
    await addMailbox(t, 'wi-buyer@svc.test', 'wi');
    await givePayoutDetails(t, 'wi', { method: 'wise', email: 'wi@example.com', account_holder: '=Wi, "the" payee' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('its CSV parses back with the header Wise expects; SEPA needs EUR', async () => {
    await earn(t, 'wi-1', 'wi-buyer@svc.test', 100);
    await t.api('POST', '/api/withdrawals', { ref_code: 'wi', amount: 7.05 });
    const batch = (await t.api('POST', '/api/payout-batches', { method: 'wise' })).json().batch;
    const rows = parse((await t.api('GET', `/api/payout-batches/${batch.id}/file`)).body, { columns: true }) as Record<string, string>[];
    expect(rows).toEqual([
      {
        name: "'=Wi, \"the\" payee",
        recipientEmail: 'wi@example.com',
        paymentReference: batch.withdrawal_ids[0],
        receiverType: 'PERSON',
        amountCurrency: 'USD',
        amount: '7.05',
        sourceCurrency: 'USD',
        targetCurrency: 'USD',
      },
    ]);
    const sepa = await t.api('POST', '/api/payout-batches', { method: 'sepa' });
    expect(sepa.statusCode).toBe(422);
    expect(sepa.json().error.code).toBe('currency_mismatch');
  });

  it('a batch larger than Wise takes in one upload (1,000) comes in parts: each a whole file, together the batch', async () => {
    await earn(t, 'wi-2', 'wi-buyer@svc.test', 200); // 20.00 more
    for (let i = 0; i < 1001; i++) expect((await t.api('POST', '/api/withdrawals', { ref_code: 'wi', amount: 0.01 })).statusCode).toBe(201);
    const batch = (await t.api('POST', '/api/payout-batches', { method: 'wise' })).json().batch;
    expect(batch).toMatchObject({ count: 1001, file_parts: 2 });
    expect((await t.api('GET', `/api/payout-batches/${batch.id}`)).json().batch.file_parts).toBe(2);

    const file = (query: string) => t.api('GET', `/api/payout-batches/${batch.id}/file${query}`);
    const whole = parse((await file('')).body, { columns: true }) as Record<string, string>[];
    const first = await file('?part=1');
    const second = await file('?part=2');
    expect(first.headers['content-disposition']).toBe(`attachment; filename="wise-${batch.id}-part-1-of-2.csv"`);
    expect(second.headers['content-disposition']).toBe(`attachment; filename="wise-${batch.id}-part-2-of-2.csv"`);
    const one = parse(first.body, { columns: true }) as Record<string, string>[];
    const two = parse(second.body, { columns: true }) as Record<string, string>[];
    expect([one.length, two.length]).toEqual([1000, 1]);
    expect([...one, ...two]).toEqual(whole);
    expect(whole.map((r) => r.paymentReference)).toEqual(batch.withdrawal_ids);

    const past = await file('?part=3');
    expect(past.statusCode).toBe(404);
    expect(past.json().error.message).toMatch(/has 2 file part/);
    for (const bad of ['?part=0', '?part=1.5', '?part=x']) {
      const res = await file(bad);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_request', details: [{ field: 'part' }] });
    }
  });
});
