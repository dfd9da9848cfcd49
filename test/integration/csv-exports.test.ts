import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { documentedColumns, flattenItem, parseCsv } from '../helpers/csv.js';
import { addAffiliate, addMailbox } from '../helpers/ledger-fixtures.js';
import { type AdminClient, startTestService, type TestService } from '../helpers/service.js';

type Call = (method: string, url: string) => Promise<LightMyRequestResponse>;

/** The export of each JSON list: the list's path, its CSV path, and the columns that hold money. */
const EXPORTS = [
  { list: '/api/orders', csv: '/api/orders.csv', money: ['amount', 'commission_commission'] },
  { list: '/api/commissions', csv: '/api/commissions.csv', money: ['amount', 'commission'] },
  { list: '/api/withdrawals', csv: '/api/withdrawals.csv', money: ['amount'] },
  { list: '/api/affiliate/summary', csv: '/api/affiliate/summary.csv', money: ['revenue', 'commission_pending', 'commission_total', 'balance'] },
] as const;

const FORMULA = /^[=+\-@\t\r]/;

describeEachDatabase('CSV exports (docs/api.md#csv-exports)', (dialect) => {
  let t: TestService;
  let admin: AdminClient;
  let doc: { paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: Record<string, unknown> }> }> }>> };
  const api: Call = (method, url) => t.api(method, url);

  /** Every item of a JSON list (all pages), for the same filters. */
  async function jsonItems(call: Call, list: string, filters: string): Promise<Record<string, unknown>[]> {
    if (list.endsWith('/summary')) return (await call('GET', `${list}?${filters}`)).json().summary;
    const items: Record<string, unknown>[] = [];
    let cursor = '';
    do {
      const res = await call('GET', `${list}?${filters}&limit=500${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode).toBe(200);
      items.push(...res.json().items);
      cursor = res.json().next_cursor ?? '';
    } while (cursor);
    return items;
  }

  /** The header is the documented item's fields, flattened; every row is the JSON item in the same place. */
  async function expectCsvEqualsList(call: Call, e: (typeof EXPORTS)[number], filters: string, prefix = ''): Promise<string[][]> {
    const res = await call('GET', `${prefix}${e.csv}?${filters}`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="[a-z-]+-2026-01-\d\d\.csv"$/);
    const records = parseCsv(res.body);
    const page = doc.paths[e.list]?.get?.responses['200']?.content['application/json']?.schema as { properties: Record<string, Record<string, unknown>> };
    const itemSchema = (e.list.endsWith('/summary') ? page.properties.summary : page.properties.items)?.items as Record<string, unknown>;
    const header = documentedColumns(itemSchema);
    expect(records[0]).toEqual(header);
    const items = await jsonItems(prefix ? call : api, e.list.replace('/api/', `${prefix ? '/admin/api/' : '/api/'}`), filters);
    expect(records.length - 1).toBe(items.length);
    items.forEach((item, i) => {
      const flat = flattenItem(item);
      // every field with a value is a column (a null nested object has its columns, empty)
      for (const [key, value] of Object.entries(flat)) if (value !== null) expect(header, `${key} is a column`).toContain(key);
      const row = records[i + 1] as string[];
      expect(row).toHaveLength(header.length);
      header.forEach((name, j) => {
        const value = flat[name];
        const cell = row[j] as string;
        if (value === null || value === undefined) expect(cell, name).toBe('');
        else if (typeof value === 'number') {
          expect(Number(cell), name).toBe(value);
          if ((e.money as readonly string[]).includes(name)) expect(cell, name).toMatch(/^-?\d+\.\d\d$/);
        } else expect(cell, name).toBe(FORMULA.test(String(value)) ? `'${value}` : String(value));
      });
    });
    return records;
  }

  beforeAll(async () => {
    t = await startTestService(dialect);
    admin = await t.admin();
    doc = (await t.request('GET', '/openapi.json')).json();
    // An affiliate whose code starts with '-' (a valid code) and products a spreadsheet would evaluate.
    await addAffiliate(t, 'csv-a', { rateBp: 1250 });
    await addAffiliate(t, '-dash', { rateBp: 3333 });
    await addAffiliate(t, 'idle');
    await addMailbox(t, 'buyer@svc.test', 'csv-a');
    await addMailbox(t, 'other@svc.test', '-dash');
    const orders: [string, string, number, string][] = [
      ['o-1', 'buyer@svc.test', 80, 'Pro, "yearly"'],
      ['=o-2', 'other@svc.test', 19.99, '=HYPERLINK("http://evil.test","click")'],
      ['o-3', 'buyer@svc.test', 0.07, 'two\r\nlines'],
      ['@o-4', 'stranger@example.com', 1000, '+cmd|calc'],
      ['o-5', 'other@svc.test', 12.34, 'Ünïcødé ✓ €'],
    ];
    for (const [order_id, email, amount, product] of orders) {
      t.clock.advance(1000);
      expect((await t.api('POST', '/api/orders', { order_id, email, amount, product })).statusCode).toBe(201);
    }
    for (const id of ['o-1', '=o-2', '@o-4', 'o-5']) await t.api('POST', '/api/orders/pay', { order_id: id });
    const commissions = (await t.api('GET', '/api/commissions')).json().items as { id: string; order_id: string }[];
    const byOrder = new Map(commissions.map((c) => [c.order_id, c.id]));
    await t.api('POST', `/api/commissions/${byOrder.get('o-1')}/mark-paid`);
    await t.api('POST', `/api/commissions/${byOrder.get('=o-2')}/mark-paid`);
    await t.api('POST', `/api/commissions/${byOrder.get('o-5')}/void`);
    t.clock.advance(1000);
    expect((await t.api('POST', '/api/withdrawals', { ref_code: 'csv-a', amount: 4.5 })).statusCode).toBe(201);
    expect((await t.api('POST', '/api/withdrawals', { ref_code: '-dash', amount: 1 })).statusCode).toBe(201);
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers every export with the header of its documented item and the JSON list items as rows, under /api and /admin/api', async () => {
    for (const e of EXPORTS) {
      const records = await expectCsvEqualsList(api, e, '');
      expect(records.length, e.csv).toBeGreaterThan(1);
      await expectCsvEqualsList(admin.call, e, '', '/admin');
    }
  });

  it('applies the same filters as the JSON lists', async () => {
    const cases: [(typeof EXPORTS)[number], string, number][] = [
      [EXPORTS[0], 'status=paid', 4],
      [EXPORTS[0], 'status=created', 1],
      [EXPORTS[0], 'q=o-', 3],
      [EXPORTS[0], 'email=other@svc.test', 2],
      [EXPORTS[1], 'status=paid', 2],
      [EXPORTS[1], 'ref_code=-dash', 2],
      [EXPORTS[1], 'ref_code=csv-a&status=pending', 0],
      [EXPORTS[2], 'ref_code=csv-a', 1],
      [EXPORTS[2], 'status=paid', 0],
      [EXPORTS[3], 'ref_code=-dash', 1],
      [EXPORTS[3], 'from=2026-01-15&to=2026-01-15', 3],
      [EXPORTS[3], 'from=2026-01-16', 3],
    ];
    for (const [e, filters, rows] of cases) {
      const records = await expectCsvEqualsList(api, e, filters);
      expect(records.length - 1, `${e.csv}?${filters}`).toBe(rows);
    }
  });

  it('quotes commas, quotes and line breaks, prefixes formula starts, and keeps negative money a number', async () => {
    const res = await t.api('GET', '/api/orders.csv');
    // raw bytes: RFC 4180 quoting, CRLF records, UTF-8
    expect(res.body).toContain(`,"Pro, ""yearly""",`);
    expect(res.body).toContain(`,"two\r\nlines",`);
    expect(res.body).toContain(`'=o-2,other@svc.test,19.99,USD,"'=HYPERLINK(""http://evil.test"",""click"")",paid,`);
    expect(res.body).toContain(`'@o-4,stranger@example.com,1000.00,USD,'+cmd|calc,paid,`);
    expect(res.rawPayload.toString('utf8')).toContain('Ünïcødé ✓ €');
    expect(res.body.endsWith('\r\n')).toBe(true);
    const commissions = parseCsv((await t.api('GET', '/api/commissions.csv?ref_code=-dash')).body);
    const header = commissions[0] as string[];
    const ref = header.indexOf('ref_code');
    const amount = header.indexOf('amount');
    const commission = header.indexOf('commission');
    // both booked at the same instant: their order is the random ids'
    expect(commissions.slice(1).map((r) => [r[ref], r[amount], r[commission]]).sort((a, b) => Number(a[1]) - Number(b[1]))).toEqual([
      ["'-dash", '12.34', '4.11'],
      ["'-dash", '19.99', '6.66'],
    ]);
    // a negative money amount (a clawback) is written as a number, not as text: no prefix. The list has
    // none before refunds exist, so the rule is checked on the unit (test/unit/csv.test.ts) and here on
    // the summary, where a withdrawal above paid commission cannot happen: balance stays >= 0.
    const summary = parseCsv((await t.api('GET', '/api/affiliate/summary.csv?ref_code=csv-a')).body);
    const s = summary[0] as string[];
    expect((summary[1] as string[])[s.indexOf('balance')]).toBe('5.50');
    expect((summary[1] as string[])[s.indexOf('commission_paid')]).toBe('10.00');
    expect((summary[1] as string[])[s.indexOf('withdrawals_requested')]).toBe('4.50');
    expect((summary[1] as string[])[s.indexOf('conversion_rate')]).toBe('0');
  });

  it('answers HEAD with the headers only, without reading the rows', async () => {
    const commissions = t.service.ctx.services.commissions;
    const list = commissions.list.bind(commissions);
    let pages = 0;
    commissions.list = (filter) => {
      pages++;
      return list(filter);
    };
    try {
      const head = await t.api('HEAD', '/api/commissions.csv');
      expect(head.statusCode).toBe(200);
      expect(head.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(head.headers['content-disposition']).toMatch(/^attachment; filename="commissions-/);
      expect(head.body).toBe('');
      expect(pages).toBe(0);
      expect(parseCsv((await t.api('GET', '/api/commissions.csv')).body).length).toBeGreaterThan(1);
      expect(pages).toBe(1);
    } finally {
      commissions.list = list;
    }
  });

  it('answers a header only for an empty result', async () => {
    for (const [url, first] of [
      ['/api/orders.csv?q=nothing-matches', 'order_id'],
      ['/api/commissions.csv?ref_code=idle', 'id'],
      ['/api/withdrawals.csv?status=rejected', 'id'],
      ['/api/affiliate/summary.csv?ref_code=nobody', 'ref_code'],
    ] as const) {
      const res = await t.api('GET', url);
      expect(res.statusCode).toBe(200);
      const records = parseCsv(res.body);
      expect(records, url).toHaveLength(1);
      expect(records[0]?.[0]).toBe(first);
    }
  });

  it('refuses a bad filter with the same 400 as the JSON list, and answers 401 without credentials', async () => {
    for (const [list, query] of [
      ['/api/orders', 'status=refunded-ish'],
      ['/api/commissions', 'status=nope&ref_code=bad%20code'],
      ['/api/withdrawals', 'ref_code=x%00y'],
      ['/api/affiliate/summary', 'from=2026-02-30'],
      ['/api/affiliate/summary', 'from=2026-02-02&to=2026-02-01'],
    ] as const) {
      const csv = await t.api('GET', `${list}.csv?${query}`);
      const json = await t.api('GET', `${list}?${query}`);
      expect(csv.statusCode, `${list}.csv?${query}`).toBe(400);
      expect(csv.json()).toEqual(json.json());
      expect(csv.json().error.code).toBe('invalid_request');
    }
    for (const e of EXPORTS) {
      const res = await t.request('GET', e.csv);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
      expect((await t.request('GET', e.csv.replace('/api/', '/admin/api/'))).statusCode).toBe(401);
      expect((await t.api('GET', e.csv, undefined, { 'x-api-key': 'wrong' })).statusCode).toBe(401);
    }
  });

  it('reads past one batch: 2,500 orders come out once each, newest first, like the JSON pages', async () => {
    const base = t.clock.now();
    const rows = Array.from({ length: 2500 }, (_, i) => ({
      order_id: `bulk-${String(i).padStart(5, '0')}`,
      email: `bulk${i}@example.com`,
      amount_cents: 100 + i,
      product: i % 2 ? 'Bulk' : '-bulk',
      status: 'created' as const,
      ref_code: null,
      // groups of equal created_at: the keyset must break ties by order_id across batch boundaries
      created_at: base + Math.floor(i / 7),
      paid_at: null,
    }));
    for (let i = 0; i < rows.length; i += 250) await t.service.ctx.db.insertInto('orders').values(rows.slice(i, i + 250)).execute();
    const records = await expectCsvEqualsList(api, EXPORTS[0], 'q=bulk-');
    expect(records.length - 1).toBe(2500);
    const ids = records.slice(1).map((r) => r[0]);
    expect(new Set(ids).size).toBe(2500);
    expect(ids[0]).toBe('bulk-02499');
  });
});
