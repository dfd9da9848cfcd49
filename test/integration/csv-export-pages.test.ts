import { get, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { flattenItem, parseCsv } from '../helpers/csv.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { addAffiliate, addMailbox } from '../helpers/ledger-fixtures.js';
import { startTestService, TEST_API_KEY, type TestService } from '../helpers/service.js';

const DAY = 86_400_000;
/** Rows per page the exports read in this suite: a few affiliates or commissions cross several pages. */
const PAGE = 3;

/** Nine affiliates (three full pages, so the last page ends exactly on a page boundary), not in ref_code order. */
const AFFILIATES = ['m-7', 'a-1', 'z-9', 'c-3', '-dash', 'b-2', 'k-5', 'e-4', 'q-8'] as const;

/** Rejects when the promise has not settled within ms (a bound on a wait, never a sleep that passes). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

describeEachDatabase('CSV exports read page by page (docs/api.md#csv-exports)', (dialect) => {
  let t: TestService;

  /** Orders for an attributed mailbox, paid; returns their commission ids. */
  async function paidOrders(prefix: string, email: string, amounts: readonly number[]): Promise<string[]> {
    const ids: string[] = [];
    for (const [i, amount] of amounts.entries()) {
      const order_id = `${prefix}-${i}`;
      const created = await t.api('POST', '/api/orders', { order_id, email, amount, product: 'p' });
      expect(created.statusCode, created.body).toBe(201);
      const paid = await t.api('POST', '/api/orders/pay', { order_id });
      expect(paid.statusCode, paid.body).toBe(200);
      ids.push(paid.json().commission.id);
    }
    return ids;
  }

  beforeAll(async () => {
    t = await startTestService(dialect, { exportPageSize: PAGE });
    for (const [i, ref] of AFFILIATES.entries()) await addAffiliate(t, ref, { rateBp: 1000 + 250 * i });
    // Two days of activity, so that from/to pick different figures for each affiliate.
    for (const day of [0, 1]) {
      if (day) t.clock.advance(DAY);
      for (const [i, ref] of AFFILIATES.entries()) {
        for (let c = 0; c < (i + day) % 4; c++) expect((await t.request('GET', `/go/${ref}`)).statusCode).toBe(302);
        if ((i + day) % 3 === 2) continue;
        const email = `buyer-${day}-${i}@svc.test`;
        await addMailbox(t, email, ref);
        // one commission in each state, some of them, by affiliate and day
        const [pending, approved, paid, voided] = await paidOrders(`o-${day}-${i}`, email, [10 + i, 20.5 + day, (777 * (i + 1)) / 100, 3]);
        expect(pending).toBeDefined();
        if (i % 2) expect((await t.api('POST', `/api/commissions/${approved}/approve`)).statusCode).toBe(200);
        expect((await t.api('POST', `/api/commissions/${paid}/mark-paid`)).statusCode).toBe(200);
        if (i % 3 !== 1) expect((await t.api('POST', `/api/commissions/${voided}/void`)).statusCode).toBe(200);
        if (i % 2 === 0) {
          const w = await t.api('POST', '/api/withdrawals', { ref_code: ref, amount: 0.5 + i / 100 });
          expect(w.statusCode, w.body).toBe(201);
          if (day) expect((await t.api('POST', `/api/withdrawals/${w.json().withdrawal.id}/mark-paid`)).statusCode).toBe(200);
        }
      }
    }
  });
  afterAll(async () => {
    await t.close();
  });

  /** The summary CSV for these filters next to the JSON summary, and how many pages the export read. */
  async function summaryBoth(filters: string): Promise<{ records: string[][]; json: { summary: Record<string, unknown>[]; totals: Record<string, unknown> }; pages: number }> {
    const reports = t.service.ctx.services.reports;
    const page = reports.summaryPage.bind(reports);
    let pages = 0;
    reports.summaryPage = (...args) => {
      pages++;
      return page(...args);
    };
    try {
      const csv = await t.api('GET', `/api/affiliate/summary.csv?${filters}`);
      expect(csv.statusCode, csv.body).toBe(200);
      const json = await t.api('GET', `/api/affiliate/summary?${filters}`);
      expect(json.statusCode).toBe(200);
      return { records: parseCsv(csv.body), json: json.json(), pages };
    } finally {
      reports.summaryPage = page;
    }
  }

  it('writes the same rows and figures as the JSON summary, reading a page of affiliates at a time', async () => {
    for (const [filters, rows] of [
      ['', AFFILIATES.length],
      ['from=2026-01-15&to=2026-01-15', AFFILIATES.length],
      ['from=2026-01-16', AFFILIATES.length],
      ['to=2026-01-15', AFFILIATES.length],
      ['ref_code=k-5', 1],
      ['ref_code=k-5&from=2026-01-16&to=2026-01-16', 1],
      ['ref_code=nobody', 0],
    ] as const) {
      const { records, json, pages } = await summaryBoth(filters);
      const [header, ...body] = records as [string[], ...string[][]];
      expect(json.summary, filters).toHaveLength(rows);
      expect(body, filters).toHaveLength(rows);
      // the same affiliates in the same order, every cell the JSON row's figure
      json.summary.forEach((item, i) => {
        const flat = flattenItem(item);
        expect(Object.keys(flat).sort()).toEqual([...header].sort());
        const row = body[i] as string[];
        header.forEach((name, j) => {
          const value = flat[name];
          if (typeof value === 'number') expect(Number(row[j]), `${filters} ${item.ref_code} ${name}`).toBe(value);
          else expect(row[j], name).toBe(String(value).startsWith('-') ? `'${value}` : value);
        });
      });
      // every affiliate once: the CSV's money columns add up to the JSON totals, exactly in cents
      const cents = (name: string) => body.reduce((sum, r) => sum + Math.round(Number(r[header.indexOf(name)]) * 100), 0);
      const totals = flattenItem(json.totals);
      for (const name of ['revenue', 'commission_pending', 'commission_approved', 'commission_paid', 'commission_void', 'commission_total', 'withdrawals_requested', 'withdrawals_paid', 'balance']) {
        expect(cents(name), `${filters} ${name}`).toBe(Math.round((totals[name] as number) * 100));
      }
      // pages of 3, each read with one more row to know whether another follows: 9 affiliates are 3 reads
      expect(pages, filters).toBe(Math.max(1, Math.ceil(rows / PAGE)));
    }
    // figures that differ between the days and the states, so the comparison above compares something
    const all = (await summaryBoth('')).json.summary;
    const day1 = (await summaryBoth('from=2026-01-15&to=2026-01-15')).json.summary;
    expect(new Set(all.map((r) => JSON.stringify(r.commission))).size).toBeGreaterThan(4);
    expect(all.some((r) => (r.withdrawals as { paid: number }).paid > 0)).toBe(true);
    expect(all.map((r) => r.clicks)).not.toEqual(day1.map((r) => r.clicks));
  });

  it('stops reading pages when the client disconnects in the middle of an export', async () => {
    // enough commissions for many pages of 3
    const ref = AFFILIATES[0];
    await addMailbox(t, 'bulk@svc.test', ref);
    await paidOrders('bulk', 'bulk@svc.test', Array.from({ length: 24 }, (_, i) => 1 + i));
    const total = parseCsv((await t.api('GET', '/api/commissions.csv')).body).length - 1;
    expect(Math.ceil(total / PAGE)).toBeGreaterThanOrEqual(15);

    const base = await t.service.start();
    // The server's side of the request: when its response closes, and when the CSV stream piped into
    // it has closed (the export's generator returned: no page read can follow).
    let responseClosed!: () => void;
    let exportEnded!: () => void;
    const closed = new Promise<void>((resolve) => (responseClosed = resolve));
    const ended = new Promise<void>((resolve) => (exportEnded = resolve));
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      if (!req.url?.startsWith('/api/commissions.csv')) return;
      res.once('close', responseClosed);
      res.once('pipe', (source: Readable) => source.once('close', exportEnded));
    };
    t.service.app.server.on('request', onRequest);

    // The second page is read only once the client has gone (a slow read the client did not wait for).
    const commissions = t.service.ctx.services.commissions;
    const list = commissions.list.bind(commissions);
    let pages = 0;
    commissions.list = async (filter) => {
      pages++;
      if (pages === 2) await closed;
      return list(filter);
    };
    try {
      const firstChunk = await within(
        new Promise<string>((resolve, reject) => {
          const req = get(`${base}/api/commissions.csv`, { headers: { 'x-api-key': TEST_API_KEY } }, (res) => {
            expect(res.statusCode).toBe(200);
            res.once('data', (chunk: Buffer) => {
              req.destroy();
              resolve(chunk.toString('utf8'));
            });
          });
          req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
        }),
        10_000,
        'the first chunk',
      );
      expect(firstChunk.startsWith('id,')).toBe(true);
      await within(closed, 10_000, 'the server to see the disconnect');
      await within(ended, 10_000, 'the export to end');
      // the page being read when the client left is the last one: not the other 13 or more (whether the
      // second read had begun when the disconnect was seen depends on timing: 1 or 2)
      expect(pages).toBeGreaterThanOrEqual(1);
      expect(pages).toBeLessThanOrEqual(2);
    } finally {
      commissions.list = list;
      t.service.app.server.off('request', onRequest);
    }
    // the same export read to its end still has every row
    expect(parseCsv((await t.api('GET', '/api/commissions.csv')).body).length - 1).toBe(total);
  });
});
