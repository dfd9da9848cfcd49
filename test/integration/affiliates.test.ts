import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestService, type TestService } from '../helpers/service.js';

describeEachDatabase('affiliates', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
  });
  afterAll(async () => {
    await t.close();
  });

  describe('create and read', () => {
    it('creates an affiliate with 201 and reads it back', async () => {
      const res = await t.api('POST', '/api/affiliates', { ref_code: 'Alice_1', name: ' Alice ', email: ' Alice@Example.COM ', commission_rate: 12.5 });
      expect(res.statusCode).toBe(201);
      const expected = {
        ref_code: 'Alice_1',
        name: 'Alice',
        email: 'alice@example.com',
        status: 'active',
        commission_rate: 12.5,
        created_at: new Date(t.clock.now()).toISOString(),
      };
      expect(res.json()).toEqual({ success: true, affiliate: expected });
      const read = await t.api('GET', '/api/affiliates/Alice_1');
      expect(read.statusCode).toBe(200);
      // one affiliate's answer also shows where its money goes (docs/api.md#payouts)
      expect(read.json()).toEqual({ success: true, affiliate: { ...expected, payout_details: null } });
    });

    it('defaults optional fields to null', async () => {
      const res = await t.api('POST', '/api/affiliates', { ref_code: 'bare' });
      expect(res.statusCode).toBe(201);
      expect(res.json().affiliate).toMatchObject({ ref_code: 'bare', name: null, email: null, status: 'active', commission_rate: null });
    });

    it('answers 409 affiliate_exists for the same ref_code, and ref_codes are case-sensitive', async () => {
      const again = await t.api('POST', '/api/affiliates', { ref_code: 'Alice_1' });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ success: false, error: { code: 'affiliate_exists' } });
      const other = await t.api('POST', '/api/affiliates', { ref_code: 'alice_1' });
      expect(other.statusCode).toBe(201);
      expect(other.json().affiliate.ref_code).toBe('alice_1');
    });

    it('answers 404 affiliate_not_found for unknown and malformed codes', async () => {
      for (const code of ['nobody', 'ALICE_1', '%2F%2Fevil.com', 'a'.repeat(65)]) {
        const res = await t.api('GET', `/api/affiliates/${code}`);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toMatchObject({ success: false, error: { code: 'affiliate_not_found' } });
      }
    });

    it('accepts rates 0 and 100 and null', async () => {
      for (const [code, rate] of [
        ['r0', 0],
        ['r100', 100],
        ['rnull', null],
      ] as const) {
        const res = await t.api('POST', '/api/affiliates', { ref_code: code, commission_rate: rate });
        expect(res.statusCode).toBe(201);
        expect(res.json().affiliate.commission_rate).toBe(rate);
      }
    });

    it.each([
      [{}, 'ref_code'],
      [{ ref_code: '' }, 'ref_code'],
      [{ ref_code: 'a'.repeat(65) }, 'ref_code'],
      [{ ref_code: 'has space' }, 'ref_code'],
      [{ ref_code: 'slash/' }, 'ref_code'],
      [{ ref_code: 'dot.dot' }, 'ref_code'],
      [{ ref_code: 42 }, 'ref_code'],
      [{ ref_code: 'ok1', commission_rate: 100.01 }, 'commission_rate'],
      [{ ref_code: 'ok1', commission_rate: -1 }, 'commission_rate'],
      [{ ref_code: 'ok1', commission_rate: 10.555 }, 'commission_rate'],
      [{ ref_code: 'ok1', commission_rate: '10' }, 'commission_rate'],
      [{ ref_code: 'ok1', email: 'not-an-email' }, 'email'],
      [{ ref_code: 'ok1', name: 'x'.repeat(201) }, 'name'],
      [{ ref_code: 'ok1', extra: 1 }, 'extra'],
    ])('refuses %j with 400 naming %s', async (body, field) => {
      const res = await t.api('POST', '/api/affiliates', body);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.json().error.details.map((d: { field: string }) => d.field)).toContain(field);
      expect((await t.api('GET', '/api/affiliates/ok1')).statusCode).toBe(404);
    });

    it('needs the API key', async () => {
      const res = await t.request('POST', '/api/affiliates', { ref_code: 'nokey' });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('unauthorized');
    });
  });

  describe('list', () => {
    it('pages newest first (created_at, then ref_code, descending) with limit and cursor', async () => {
      const own = await startTestService(dialect);
      try {
        const codes: string[] = [];
        for (let i = 0; i < 7; i++) {
          // two per millisecond, so the ref_code tie-break is exercised
          if (i % 2 === 0) own.clock.advance(1);
          const code = `p${String(6 - i)}`;
          codes.push(code);
          expect((await own.api('POST', '/api/affiliates', { ref_code: code })).statusCode).toBe(201);
        }
        // newest first (the API description says so), ties by ref_code descending
        const expectedOrder = ['p0', 'p2', 'p1', 'p4', 'p3', 'p6', 'p5'];
        expect([...expectedOrder].sort()).toEqual([...codes].sort());
        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const res = await own.api('GET', `/api/affiliates?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
          expect(res.statusCode).toBe(200);
          const body = res.json();
          expect(body.success).toBe(true);
          expect(body.items.length).toBeLessThanOrEqual(3);
          seen.push(...body.items.map((a: { ref_code: string }) => a.ref_code));
          cursor = body.next_cursor;
          pages++;
        } while (cursor);
        expect(pages).toBe(3);
        expect(seen).toEqual(expectedOrder);

        const all = (await own.api('GET', '/api/affiliates')).json();
        expect(all.items).toHaveLength(7);
        expect(all.next_cursor).toBeNull();
        expect(all.items[0]).toEqual({ ref_code: expectedOrder[0], name: null, email: null, status: 'active', commission_rate: null, created_at: expect.any(String) });
      } finally {
        await own.close();
      }
    });

    it.each(['limit=0', 'limit=501', 'limit=abc', 'limit=1.5', 'cursor=garbage'])('refuses %s with 400', async (q) => {
      const res = await t.api('GET', `/api/affiliates?${q}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
    });
  });

  describe('admin PATCH', () => {
    it('disables, renames and changes the rate; the API key cannot', async () => {
      await t.api('POST', '/api/affiliates', { ref_code: 'patchme', commission_rate: 5 });
      const admin = await t.admin();
      const res = await admin.call('PATCH', '/admin/api/affiliates/patchme', { status: 'disabled', name: 'Pat', email: 'pat@x.io', commission_rate: 7.25 });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        success: true,
        affiliate: { ref_code: 'patchme', name: 'Pat', email: 'pat@x.io', status: 'disabled', commission_rate: 7.25, created_at: expect.any(String), payout_details: null },
      });
      expect((await t.api('GET', '/api/affiliates/patchme')).json().affiliate.status).toBe('disabled');

      const back = await admin.call('PATCH', '/admin/api/affiliates/patchme', { status: 'active', commission_rate: null });
      expect(back.json().affiliate).toMatchObject({ status: 'active', commission_rate: null, name: 'Pat' });

      // docs/api.md#payouts: the API key may set payout_details there, nothing else (a status is an unknown field)
      const viaKey = await t.api('PATCH', '/api/affiliates/patchme', { status: 'disabled' });
      expect(viaKey.statusCode).toBe(400);
      expect((await t.api('GET', '/api/affiliates/patchme')).json().affiliate.status).toBe('active');
    });

    it('also serves the API routes under /admin/api', async () => {
      const admin = await t.admin();
      const created = await admin.call('POST', '/admin/api/affiliates', { ref_code: 'viaadmin' });
      expect(created.statusCode).toBe(201);
      expect(created.json().affiliate.ref_code).toBe('viaadmin');
      const list = await admin.call('GET', '/admin/api/affiliates?limit=500');
      expect(list.json().items.map((a: { ref_code: string }) => a.ref_code)).toContain('viaadmin');
    });

    it('answers 404 for an unknown affiliate and 400 for bad fields', async () => {
      const admin = await t.admin();
      const missing = await admin.call('PATCH', '/admin/api/affiliates/ghost', { status: 'disabled' });
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.code).toBe('affiliate_not_found');
      for (const body of [{ status: 'deleted' }, { commission_rate: 101 }, { ref_code: 'x' }]) {
        const res = await admin.call('PATCH', '/admin/api/affiliates/patchme', body);
        expect(res.statusCode).toBe(400);
        expect(res.json().error.code).toBe('invalid_request');
      }
    });

    it('needs CSRF', async () => {
      const admin = await t.admin();
      const res = await t.request('PATCH', '/admin/api/affiliates/patchme', { status: 'disabled' }, { cookie: admin.cookie });
      expect(res.statusCode).toBe(403);
      expect(res.json().error.code).toBe('csrf_failed');
    });
  });
});
