import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { insertClicks, type NewClick } from '../../src/loop/clicks/click.repository.js';
import { SQLITE_DELETE_BATCH } from '../../src/loop/clicks/click-log.service.js';
import { DAY_MS, dayPartitions } from '../../src/platform/db/day-partitions.js';
import type { DailyTask } from '../../src/platform/worker/daily-task.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestService, type TestService } from '../helpers/service.js';

// docs/api.md#click-log: the raw click list, click_retention_days, retention by svc itself
// (daily, once over all instances) and on demand, every figure unchanged by it, day partitions on PostgreSQL.

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0';

describeEachDatabase('click log', (dialect) => {
  let t: TestService;

  beforeEach(async () => {
    t = await startTestService(dialect);
    for (const ref_code of ['ann', 'bob']) expect((await t.api('POST', '/api/affiliates', { ref_code })).statusCode).toBe(201);
  });

  afterEach(async () => {
    await t.close();
  });

  const go = async (ref: string, n: number, headers: Record<string, string> = { 'user-agent': BROWSER }) => {
    const answers = await Promise.all(Array.from({ length: n }, () => t.request('GET', `/go/${ref}`, undefined, headers)));
    expect(answers.every((r) => r.statusCode === 302)).toBe(true);
  };
  const rawClicks = async () => Number((await sql<{ n: number }>`select count(*) as n from clicks`.execute(t.service.ctx.db)).rows[0]?.n);
  const summary = async (query = '') => (await t.api('GET', `/api/affiliate/summary${query}`)).json();
  const daily = (t: TestService) => t.service.ctx.background.find((b) => b.name === 'daily-maintenance') as DailyTask;

  describe('GET /api/clicks', () => {
    it('lists raw clicks newest first with exactly ref_code, clicked_at, referer and user_agent, never an address', async () => {
      t.clock.set(Date.UTC(2026, 0, 10, 8, 0, 0));
      await t.request('GET', '/go/ann', undefined, { 'user-agent': BROWSER, referer: 'https://blog.example/a', 'x-forwarded-for': '203.0.113.9' });
      t.clock.advance(60_000);
      await t.request('GET', '/go/bob', undefined, { 'user-agent': 'curl/8.5' });
      const res = await t.api('GET', '/api/clicks');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        success: true,
        items: [
          { ref_code: 'bob', clicked_at: '2026-01-10T08:01:00.000Z', referer: null, user_agent: 'curl/8.5' },
          { ref_code: 'ann', clicked_at: '2026-01-10T08:00:00.000Z', referer: 'https://blog.example/a', user_agent: BROWSER },
        ],
        next_cursor: null,
      });
      expect(res.body).not.toContain('203.0.113');
      // the admin area reads the same list
      const admin = await t.admin();
      expect((await admin.call('GET', '/admin/api/clicks?ref_code=ann')).json().items).toEqual([res.json().items[1]]);
    });

    it('filters by affiliate and by UTC days (both included) and pages by cursor without a gap or a repeat', async () => {
      for (const day of [1, 2, 3]) {
        t.clock.set(Date.UTC(2026, 0, day, 12, 0, 0));
        await go('ann', 3);
        await go('bob', 1);
      }
      const ann = await t.api('GET', '/api/clicks?ref_code=ann&from=2026-01-02&to=2026-01-03');
      expect(ann.json().items.map((c: { clicked_at: string }) => c.clicked_at.slice(0, 10))).toEqual(['2026-01-03', '2026-01-03', '2026-01-03', '2026-01-02', '2026-01-02', '2026-01-02']);
      expect(new Set(ann.json().items.map((c: { ref_code: string }) => c.ref_code))).toEqual(new Set(['ann']));

      const seen: string[] = [];
      let cursor: string | null = '';
      let pages = 0;
      while (cursor !== null) {
        const page: { items: { ref_code: string; clicked_at: string }[]; next_cursor: string | null } = (await t.api('GET', `/api/clicks?limit=5${cursor ? `&cursor=${cursor}` : ''}`)).json();
        seen.push(...page.items.map((c) => `${c.clicked_at} ${c.ref_code}`));
        cursor = page.next_cursor;
        pages++;
      }
      expect(pages).toBe(3);
      expect(seen).toHaveLength(12);
      expect([...seen].sort().reverse()).toEqual(seen);
    });

    it('refuses a bad day, a range ending before it starts, a bad ref_code and a foreign cursor with 400', async () => {
      for (const [query, field] of [
        ['from=2026-02-30', 'from'],
        ['from=2026-01-05&to=2026-01-04', 'to'],
        ['ref_code=no%20spaces', 'ref_code'],
        ['cursor=bm9wZQ', 'cursor'],
        ['limit=501', 'limit'],
      ] as const) {
        const res = await t.api('GET', `/api/clicks?${query}`);
        expect(res.statusCode, query).toBe(400);
        expect(res.json().error.code).toBe('invalid_request');
        expect(res.json().error.details.map((d: { field: string }) => d.field)).toContain(field);
      }
      const orders = (await t.api('GET', '/api/orders?limit=1')).json();
      expect(orders.next_cursor).toBeNull();
    });
  });

  describe('click_retention_days', () => {
    it('defaults to 90 and takes 7..3650 whole days', async () => {
      const admin = await t.admin();
      expect((await admin.call('GET', '/admin/api/settings')).json().settings.click_retention_days).toBe(90);
      for (const bad of [6, 3651, 30.5, '30']) {
        const res = await admin.call('PATCH', '/admin/api/settings', { click_retention_days: bad });
        expect(res.statusCode, String(bad)).toBe(400);
        expect(res.json().error.details[0].field).toBe('click_retention_days');
      }
      const ok = await admin.call('PATCH', '/admin/api/settings', { click_retention_days: 7 });
      expect(ok.statusCode).toBe(200);
      expect(ok.json().settings.click_retention_days).toBe(7);
    });
  });

  describe('retention', () => {
    it('removes the raw clicks of the days past click_retention_days and keeps every figure as it was', async () => {
      const admin = await t.admin();
      expect((await admin.call('PATCH', '/admin/api/settings', { click_retention_days: 7 })).statusCode).toBe(200);
      // clicks on 1..10 January, (day) of them each day for ann, one a day for bob
      for (let day = 1; day <= 10; day++) {
        t.clock.set(Date.UTC(2026, 0, day, 23, 59, 59, 999));
        await go('ann', day);
        await go('bob', 1);
      }
      await t.api('POST', '/api/mailboxes', { ref_code: 'ann' });
      const whole = await summary();
      const crossing = await summary('?from=2026-01-02&to=2026-01-09');
      const dailySeries = (await t.api('GET', '/api/reports/daily?from=2026-01-01&to=2026-01-10')).json();
      const csv = (await admin.call('GET', '/admin/api/affiliate/summary.csv')).body;
      expect(whole.totals.clicks).toBe(55 + 10);
      expect(await rawClicks()).toBe(65);

      // 12 January: kept are the clicks from 5 January (7 whole days before the 12th) on
      t.clock.set(Date.UTC(2026, 0, 12, 3, 0, 0));
      const res = await admin.call('POST', '/admin/api/maintenance/retention');
      expect(res.statusCode).toBe(200);
      const removedAnn = 1 + 2 + 3 + 4;
      expect(res.json()).toEqual({
        success: true,
        retention: { click_retention_days: 7, kept_from: '2026-01-05T00:00:00.000Z', removed_clicks: removedAnn + 4, removed_days: dialect === 'postgres' ? 4 : 0 },
      });
      expect(await rawClicks()).toBe(65 - removedAnn - 4);
      const oldest = (await t.api('GET', '/api/clicks?limit=500')).json().items.at(-1);
      expect(oldest.clicked_at).toBe('2026-01-05T23:59:59.999Z');

      // every figure is what it was: the counts per affiliate and day are the record
      expect(await summary()).toEqual(whole);
      expect(await summary('?from=2026-01-02&to=2026-01-09')).toEqual(crossing);
      expect(crossing.totals.clicks).toBe(2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 8);
      expect((await t.api('GET', '/api/reports/daily?from=2026-01-01&to=2026-01-10')).json()).toEqual(dailySeries);
      expect((await admin.call('GET', '/admin/api/affiliate/summary.csv')).body).toBe(csv);

      // a second run the same day finds nothing more
      expect((await admin.call('POST', '/admin/api/maintenance/retention')).json().retention.removed_clicks).toBe(0);
      expect(await rawClicks()).toBe(65 - removedAnn - 4);
    });

    it('runs once a day over two instances ticking at the same instant', async () => {
      const other = await t.sibling();
      try {
        await t.service.ctx.services.settings.update({ click_retention_days: 7 });
        t.clock.set(Date.UTC(2026, 0, 1, 12, 0, 0));
        await go('ann', 5);
        t.clock.set(Date.UTC(2026, 0, 20, 12, 0, 0));
        await go('ann', 2);
        const ran = await Promise.all([daily(t).tick(), daily(other).tick()]);
        expect(ran.flat()).toEqual(['click-retention']);
        expect(await rawClicks()).toBe(2);
        const runs = await t.service.ctx.db.selectFrom('maintenance_runs').selectAll().execute();
        expect(runs).toHaveLength(1);
        expect(runs[0]).toMatchObject({ job: 'click-retention', day: '2026-01-20' });
        expect(JSON.parse(String(runs[0]?.result))).toMatchObject({ removed_clicks: 5 });
        // later the same day: nobody runs it again; the next day one instance does
        t.clock.advance(3_600_000);
        expect((await Promise.all([daily(t).tick(), daily(other).tick()])).flat()).toEqual([]);
        t.clock.set(Date.UTC(2026, 0, 21, 0, 0, 30));
        expect((await Promise.all([daily(other).tick(), daily(t).tick()])).flat()).toEqual(['click-retention']);
        expect((await summary()).totals.clicks).toBe(7);
      } finally {
        await other.close();
      }
    });

    it('gives a failed day back, so the next tick runs it', async () => {
      await t.service.ctx.services.settings.update({ click_retention_days: 7 });
      const clickLog = t.service.ctx.services.clickLog;
      const run = clickLog.run.bind(clickLog);
      let fail = true;
      clickLog.run = () => (fail ? Promise.reject(new Error('disk on fire')) : run());
      try {
        expect(await daily(t).tick()).toEqual([]);
        fail = false;
        expect(await daily(t).tick()).toEqual(['click-retention']);
      } finally {
        clickLog.run = run;
      }
    });

    it('stores and counts every click of /go sent while a retention run removes old ones', async () => {
      await t.service.ctx.services.settings.update({ click_retention_days: 7 });
      const old: NewClick[] = Array.from({ length: 3 * SQLITE_DELETE_BATCH + 17 }, (_, i) => ({
        ref_code: i % 2 ? 'ann' : 'bob',
        created_at: Date.UTC(2025, 11, 1 + (i % 5), 10),
        ip_hash: null,
        user_agent: null,
        referer: null,
        network_click_ids: null,
      }));
      if (dialect === 'postgres') await t.service.ctx.services.clickLog.prepareFor(old.map((c) => c.created_at));
      await insertClicks(t.service.ctx.db, old);
      t.clock.set(Date.UTC(2026, 0, 15, 12, 0, 0));
      const [result] = await Promise.all([t.service.ctx.services.clickLog.run(), go('ann', 40), go('bob', 25)]);
      expect(result.removed_clicks).toBe(old.length);
      expect(await rawClicks()).toBe(65);
      const rows = (await summary('?from=2026-01-15&to=2026-01-15')).summary;
      expect(Object.fromEntries(rows.map((r: { ref_code: string; clicks: number }) => [r.ref_code, r.clicks]))).toEqual({ ann: 40, bob: 25 });
    });
  });

  if (dialect === 'sqlite') {
    it('deletes old clicks in batches that never hold the event loop 100 ms', async () => {
      await t.service.ctx.services.settings.update({ click_retention_days: 7 });
      const old: NewClick[] = Array.from({ length: 60_000 }, (_, i) => ({
        ref_code: 'ann',
        created_at: Date.UTC(2025, 10, 1) + i * 1000,
        ip_hash: 'a'.repeat(64),
        user_agent: BROWSER,
        referer: 'https://blog.example/post',
        network_click_ids: null,
      }));
      for (let i = 0; i < old.length; i += 5000) await insertClicks(t.service.ctx.db, old.slice(i, i + 5000));
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      const result = await t.service.ctx.services.clickLog.run();
      delay.disable();
      expect(result.removed_clicks).toBe(60_000);
      expect(await rawClicks()).toBe(0);
      expect(delay.max / 1e6).toBeLessThan(100);
    });
  }

  if (dialect === 'postgres') {
    describe('day partitions', () => {
      const partitions = async () => (await dayPartitions(t.service.ctx.db, 'clicks')).map((p) => p.name);

      it('are made ahead across a month boundary and dropped whole', async () => {
        t.clock.set(Date.UTC(2026, 0, 28, 12, 0, 0));
        await t.service.ctx.services.clickLog.prepareDays();
        const names = await partitions();
        for (const day of ['20260128', '20260131', '20260201', '20260204']) expect(names).toContain(`clicks_p${day}`);
        expect(names).not.toContain('clicks_p20260205');

        await go('ann', 3);
        t.clock.set(Date.UTC(2026, 1, 2, 12, 0, 0));
        await go('ann', 2);
        // every day's clicks are in that day's partition
        const inJan28 = await sql<{ n: number }>`select count(*) as n from clicks_p20260128`.execute(t.service.ctx.db);
        expect(Number(inJan28.rows[0]?.n)).toBe(3);

        await t.service.ctx.services.settings.update({ click_retention_days: 7 });
        t.clock.set(Date.UTC(2026, 1, 5, 0, 0, 1));
        const result = await t.service.ctx.services.clickLog.run();
        expect(result).toMatchObject({ kept_from: '2026-01-29T00:00:00.000Z', removed_clicks: 3 });
        const after = await partitions();
        expect(after.filter((n) => n <= 'clicks_p20260128')).toEqual([]);
        expect(after).toContain('clicks_p20260129');
        expect(after).toContain('clicks_p20260212');
        expect(await rawClicks()).toBe(2);
      });

      it('two retention runs at once drop each old day once between them, and both answer', async () => {
        const other = await t.sibling();
        try {
          await t.service.ctx.services.settings.update({ click_retention_days: 7 });
          for (let day = 1; day <= 6; day++) {
            t.clock.set(Date.UTC(2026, 2, day, 12));
            await go('ann', day);
          }
          t.clock.set(Date.UTC(2026, 2, 20, 12));
          const runs = await Promise.all([t.service.ctx.services.clickLog.run(), other.service.ctx.services.clickLog.run()]);
          expect(runs.reduce((s, r) => s + r.removed_clicks, 0)).toBe(1 + 2 + 3 + 4 + 5 + 6);
          expect(runs.reduce((s, r) => s + r.removed_days, 0)).toBe(6);
          expect(await rawClicks()).toBe(0);
          expect((await partitions()).filter((n) => n <= 'clicks_p20260306')).toEqual([]);
        } finally {
          await other.close();
        }
      });

      it('a click for a day nobody prepared makes its partition and is stored', async () => {
        t.clock.set(Date.UTC(2031, 6, 4, 9, 0, 0));
        await go('ann', 4);
        expect(await partitions()).toContain('clicks_p20310704');
        expect(await rawClicks()).toBe(4);
        expect((await summary('?from=2031-07-04&to=2031-07-04')).totals.clicks).toBe(4);
      });

      it('two instances making the same days at once both succeed', async () => {
        const other = await t.sibling();
        try {
          t.clock.set(Date.UTC(2027, 3, 1));
          const made = await Promise.all([t.service.ctx.services.clickLog.prepareDays(), other.service.ctx.services.clickLog.prepareDays()]);
          expect(made.reduce((a, b) => a + b, 0)).toBe(8);
          expect((await partitions()).filter((n) => n.startsWith('clicks_p202704'))).toHaveLength(8);
        } finally {
          await other.close();
        }
      });

      it('keep the partition bounds on UTC midnights', async () => {
        const bounds = await sql<{ name: string; bound: string }>`
          select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
          from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = cast('clicks' as regclass)`.execute(t.service.ctx.db);
        expect(bounds.rows.length).toBeGreaterThan(0);
        for (const { name, bound } of bounds.rows) {
          const day = Date.UTC(Number(name.slice(8, 12)), Number(name.slice(12, 14)) - 1, Number(name.slice(14, 16)));
          expect(bound).toBe(`FOR VALUES FROM ('${day}') TO ('${day + DAY_MS}')`);
        }
      });
    });
  }
});
