import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { addAffiliate, addMailbox, earn } from '../helpers/ledger-fixtures.js';
import { createTestMailbox } from '../helpers/mail-fixtures.js';
import { type AdminClient, startTestService, type TestService } from '../helpers/service.js';

const invalid = { success: false, error: { code: 'invalid_request', message: expect.any(String), details: expect.any(Array) } };
const nested = (depth: number, inner = '0') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`;
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describeEachDatabase('input limits (README.md#limits "input")', (dialect) => {
  let t: TestService;
  let admin: AdminClient;
  /** next_cursor of the first page (limit=1) of each list, by list URL under /api or /admin/api. */
  const cursors: Record<string, string> = {};
  const LISTS = ['/api/affiliates', '/api/orders', '/api/commissions', '/api/withdrawals', '/admin/api/deliveries'];
  const call = (url: string) => (url.startsWith('/admin/') ? admin.call('GET', url) : t.api('GET', url));

  beforeAll(async () => {
    t = await startTestService(dialect);
    admin = await t.admin();
    for (const code of ['alpha', 'beta']) {
      await addAffiliate(t, code);
      await addMailbox(t, `${code}@svc.test`, code);
      await earn(t, `order-${code}`, `${code}@svc.test`, 100);
      expect((await t.api('POST', '/api/withdrawals', { ref_code: code, amount: 1 })).statusCode).toBe(201);
    }
    expect((await admin.call('PATCH', '/admin/api/settings', { webhook_url: 'http://127.0.0.1:9/hook' })).statusCode).toBe(200);
    for (let i = 0; i < 2; i++) expect((await admin.call('POST', '/admin/api/webhooks/test')).statusCode).toBe(201);
    for (const list of LISTS) {
      const res = await call(`${list}?limit=1`);
      expect(res.statusCode).toBe(200);
      cursors[list] = res.json().next_cursor;
      expect(cursors[list]).toEqual(expect.any(String));
    }
  });
  afterAll(() => t.close());

  describe('JSON nested deeper than 32 levels is 400 before anything recursive runs', () => {
    it('refuses 33 levels and names the limit; 32 levels reach the route', async () => {
      const deep = await t.api('POST', '/api/orders', `{"order_id":${nested(32)}}`, { 'content-type': 'application/json' });
      expect(deep.statusCode).toBe(400);
      expect(deep.json()).toEqual({ ...invalid, error: { ...invalid.error, details: [{ field: '(body)', message: 'is nested deeper than 32 levels' }] } });
      const ok = await t.api('POST', '/api/orders', `{"order_id":${nested(31)}}`, { 'content-type': 'application/json' });
      expect(ok.statusCode).toBe(400);
      expect(ok.json().error.details).toContainEqual({ field: 'order_id', message: expect.stringContaining('string') });
    });

    it('refuses a body 9,000 deep with an Idempotency-Key (it was a 500 from the recursive canonical JSON)', async () => {
      const res = await t.api('POST', '/api/orders', nested(9000), { 'content-type': 'application/json', 'idempotency-key': 'deep-1' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject(invalid);
    });

    it('holds on every kind of route: public, /api and /admin/api', async () => {
      const body = `{"a":${nested(40, '{}')}}`;
      for (const res of [
        await t.request('POST', '/mailboxes', body, { 'content-type': 'application/json' }),
        await t.api('POST', '/api/affiliates', body, { 'content-type': 'application/json' }),
        await admin.call('PATCH', '/admin/api/settings', body, { 'content-type': 'application/json' }),
      ]) {
        expect(res.statusCode).toBe(400);
        expect(res.json().error.details).toEqual([{ field: '(body)', message: 'is nested deeper than 32 levels' }]);
      }
    });

    it('counts brackets inside strings as text, not nesting', async () => {
      const res = await t.api('POST', '/api/affiliates', { ref_code: 'brackets', name: '[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[{{{{{"\\' });
      expect(res.statusCode).toBe(201);
      expect(res.json().affiliate.name).toBe('[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[{{{{{"\\');
    });
  });

  describe('a large JSON body (POST /api/inbound, read in the content pool) gets the same answers', () => {
    const padding = 'x'.repeat(300 * 1024); // over JSON_IN_POOL_BYTES (256 KiB)
    it('too deep, a NUL, not JSON: the same 400 bodies as a small body', async () => {
      const headers = { 'content-type': 'application/json' };
      const deep = await t.api('POST', '/api/inbound', `{"text":"${padding}","to":${nested(40)}}`, headers);
      expect(deep.statusCode).toBe(400);
      expect(deep.json()).toEqual({ ...invalid, error: { ...invalid.error, details: [{ field: '(body)', message: 'is nested deeper than 32 levels' }] } });
      const nul = await t.api('POST', '/api/inbound', `{"text":"${padding}\\u0000"}`, headers);
      expect(nul.statusCode).toBe(400);
      expect(nul.json()).toEqual({ ...invalid, error: { ...invalid.error, details: [{ field: '(body)', message: 'contains a NUL character (\\u0000)' }] } });
      const broken = await t.api('POST', '/api/inbound', `{"text":"${padding}"`, headers);
      expect(broken.statusCode).toBe(400);
      expect(broken.json()).toMatchObject({ success: false, error: { code: 'invalid_request', message: 'Body is not valid JSON' } });
    });

    it('a valid one is parsed whole and stored', async () => {
      await createTestMailbox(t, 'large-json@svc.test');
      const text = `Use 482913 to sign in. ${padding}`;
      const res = await t.api('POST', '/api/inbound', { to: 'large-json@svc.test', subject: 'ünïcode ✓', text });
      expect(res.statusCode).toBe(201);
      const read = await t.api('GET', `/api/mailboxes/large-json@svc.test/messages/${res.json().message.id}`);
      expect(read.json().message).toMatchObject({ subject: 'ünïcode ✓', text, code: '482913' });
    });
  });

  describe('a NUL character is 400 in any JSON string, key, query value or path segment', () => {
    it('in a JSON string value (PostgreSQL text cannot hold it)', async () => {
      const res = await t.api('POST', '/api/affiliates', { ref_code: 'nul1', name: 'a\u0000b' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ ...invalid, error: { ...invalid.error, details: [{ field: '(body)', message: 'contains a NUL character (\\u0000)' }] } });
      expect((await t.api('GET', '/api/affiliates/nul1')).statusCode).toBe(404);
    });

    it('in a JSON key, and in an admin settings URL', async () => {
      const key = await t.api('POST', '/api/affiliates', '{"ref_code":"nul2","na\\u0000me":"x"}', { 'content-type': 'application/json' });
      expect(key.statusCode).toBe(400);
      const url = await admin.call('PATCH', '/admin/api/settings', { landing_url: 'https://shop.example/\u0000' });
      expect(url.statusCode).toBe(400);
      expect(url.json()).toMatchObject(invalid);
    });

    it('but an escaped backslash before u0000 is just text', async () => {
      const res = await t.api('POST', '/api/affiliates', '{"ref_code":"nul3","name":"C:\\\\u0000"}', { 'content-type': 'application/json' });
      expect(res.statusCode).toBe(201);
      expect(res.json().affiliate.name).toBe('C:\\u0000');
    });

    it.each([
      ['/api/orders?q=%00', 'q'],
      ['/api/orders?email=a%00b', 'email'],
      ['/api/orders?%00=1', '\\u0000'],
      ['/api/commissions?ref_code=alpha%00', 'ref_code'],
      ['/api/affiliate/summary?from=2026-01-01%00', 'from'],
      ['/api/orders/%00abc', 'order_id'],
      ['/api/affiliates/al%00pha', 'ref_code'],
      ['/api/commissions/com_%00', 'id'],
    ])('in %s', async (url, field) => {
      const res = await t.api('GET', url);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ ...invalid, error: { ...invalid.error, details: [{ field, message: 'must not contain a NUL character' }] } });
    });

    it('in a mailbox route and an admin route', async () => {
      const box = await createTestMailbox(t, 'nul@svc.test');
      const pub = await t.request('GET', `/mailboxes/nul@svc.test/messages/m%00?token=${box.token}`);
      expect(pub.statusCode).toBe(400);
      expect(pub.json()).toMatchObject(invalid);
      const adm = await admin.call('GET', '/admin/api/deliveries?event=%00');
      expect(adm.statusCode).toBe(400);
    });

    it('a promotion link with a NUL still lands on the landing page, counting nothing', async () => {
      for (const url of ['/go/alpha%00', '/go/alpha?clickid=%00']) {
        const res = await t.request('GET', url);
        expect(res.statusCode).toBe(302);
        expect(res.headers.location).toBe('http://svc.test.local/');
        expect(res.headers['set-cookie']).toBeUndefined();
      }
    });
  });

  describe('a cursor the service did not issue is 400 on every list', () => {
    it('pages with the cursors it issued', async () => {
      for (const list of LISTS) {
        const first = (await call(`${list}?limit=1`)).json();
        const second = await call(`${list}?limit=1&cursor=${cursors[list]}`);
        expect(second.statusCode).toBe(200);
        expect(second.json().items).toHaveLength(1);
        expect(second.json().items[0]).not.toEqual(first.items[0]);
      }
    });

    const forged = [
      ['garbage', 'not a cursor!'],
      ['base64 of text', Buffer.from('hello').toString('base64url')],
      ['a float time', b64(['orders', 1.5, 'x'])],
      ['a huge time', b64(['orders', 1e300, 'x'])],
      ['a NUL in the id', b64(['orders', 1, 'x\u0000'])],
      ['a time as a string', b64(['orders', '1', 'x'])],
      // the shapes cursors had before they named their list: PostgreSQL answered 500 to these
      ['an unnamed float time', b64([1.5, 'x'])],
      ['an unnamed huge time', b64([1e300, 'x'])],
      ['an unnamed NUL id', b64([1, 'x\u0000'])],
      ['an unnamed NUL delivery id', b64(['dlv_\u0000'])],
    ];
    for (const list of ['/api/affiliates', '/api/orders', '/api/commissions', '/api/withdrawals', '/admin/api/deliveries', '/admin/api/orders']) {
      it(`refuses forged cursors on ${list}`, async () => {
        for (const [, cursor] of forged) {
          const res = await call(`${list}?cursor=${encodeURIComponent(cursor as string)}`);
          expect(res.statusCode).toBe(400);
          expect(res.json()).toEqual({ ...invalid, error: { ...invalid.error, details: [{ field: 'cursor', message: expect.any(String) }] } });
        }
      });
    }

    it("refuses every other list's cursor", async () => {
      for (const list of LISTS) {
        for (const other of LISTS) {
          if (other === list) continue;
          const res = await call(`${list}?cursor=${cursors[other]}`);
          expect(res.statusCode, `${other}'s cursor on ${list}`).toBe(400);
          expect(res.json().error.details).toEqual([{ field: 'cursor', message: expect.any(String) }]);
        }
      }
    });

    it('refuses forged cursors on a mailbox list', async () => {
      const box = await createTestMailbox(t, 'cursors@svc.test');
      for (const cursor of ['garbage!', b64(['orders', 1, 'x']), cursors['/api/orders']]) {
        const res = await t.request('GET', `/mailboxes/cursors@svc.test/messages?cursor=${encodeURIComponent(cursor as string)}`, undefined, {
          authorization: `Bearer ${box.token}`,
        });
        expect(res.statusCode).toBe(400);
        expect(res.json().error.details).toEqual([{ field: 'cursor', message: expect.any(String) }]);
      }
    });
  });
});

describeEachDatabase('every string field has a documented maximum length', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
  });
  afterAll(() => t.close());

  it('in /openapi.json: every string parameter and body field has maxLength', async () => {
    const doc = (await t.request('GET', '/openapi.json')).json() as { paths: Record<string, Record<string, Operation>> };
    const missing: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method.toUpperCase()} ${path}`;
        for (const p of op.parameters ?? []) unbounded(p.schema, `${where} ${p.in} ${p.name}`, missing);
        unbounded(op.requestBody?.content?.['application/json']?.schema, `${where} body`, missing);
      }
    }
    expect(missing).toEqual([]);
  });
});

interface Schema {
  type?: string | string[];
  maxLength?: number;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
}
interface Operation {
  parameters?: { name: string; in: string; schema: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

function unbounded(schema: Schema | undefined, where: string, out: string[]): void {
  if (!schema) return;
  const isString = schema.type === 'string' || (Array.isArray(schema.type) && schema.type.includes('string'));
  if (isString && schema.maxLength === undefined && schema.enum === undefined && schema.const === undefined) out.push(where);
  for (const [k, v] of Object.entries(schema.properties ?? {})) unbounded(v, `${where}.${k}`, out);
  if (schema.items) unbounded(schema.items, `${where}[]`, out);
  for (const alt of [...(schema.anyOf ?? []), ...(schema.oneOf ?? []), ...(schema.allOf ?? [])]) unbounded(alt, where, out);
}
