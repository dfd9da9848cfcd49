import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOperations, registeredRoutes } from '../../src/platform/http/app.js';
import type { ApiOperation } from '../../src/platform/http/openapi.js';
import { WEB_PAGES } from '../../src/platform/web/web.routes.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { PORTAL_PASSWORD, portalClient } from '../helpers/portal.js';
import { startTestService, TEST_ADMIN_PASSWORD, TEST_API_KEY, type TestService } from '../helpers/service.js';

/** The operations of the running app (set once a service is up): the document is read off its routes. */
let ops: ApiOperation[] = [];
const key = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

/** Routes that are deliberately not in the document, with the reason. */
const UNDOCUMENTED: readonly [RegExp, string][] = [
  [/\*/, 'catch-alls: unknown /api paths (404), unknown /go paths (landing page), the web app assets'],
  [/^\/go$/, 'the bare /go, same as an unknown code'],
  [new RegExp(`^(${WEB_PAGES.map((p) => p.replace(/\//g, '\\/')).join('|')})$`), 'web pages (HTML)'],
];

describe('OpenAPI document', () => {
  it('describes every route (public, /api and the admin-only ones) but pages and catch-alls, and only routes that exist', async () => {
    const t = await startTestService('sqlite');
    try {
      ops = apiOperations(t.service.app);
      const documented = new Set(ops.map((o) => key(o.method, o.path)));
      const all = registeredRoutes(t.service.app)
        .filter((r) => r.method !== 'HEAD')
        .map((r) => key(r.method, r.url.replace(/:(\w+)/g, '{$1}')));
      // every /api route is also under /admin/api: the document describes it once (and says so)
      const mirror = (k: string) => k.includes(' /admin/api/') && all.includes(k.replace(' /admin/api/', ' /api/'));
      const served = new Set(all.filter((k) => !mirror(k) && (documented.has(k) || !UNDOCUMENTED.some(([re]) => re.test(k.slice(k.indexOf(' ') + 1))))));
      expect([...documented].filter((k) => k.includes(' /admin/api/') && !ops.find((o) => key(o.method, o.path) === k && o.tag === 'admin'))).toEqual([]);
      expect([...documented].filter((k) => !served.has(k))).toEqual([]);
      expect([...served].filter((k) => !documented.has(k))).toEqual([]);
      expect(documented.size).toBe(ops.length); // no operation twice
      expect(served.size).toBeGreaterThan(30);

      const res = await t.request('GET', '/openapi.json');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const doc = res.json();
      expect(doc).toMatchObject({ openapi: '3.1.0', info: { title: 'svc', version: expect.stringMatching(/^\d+\.\d+\.\d+/) }, servers: [{ url: 'http://svc.test.local' }] });
      expect(Object.keys(doc.paths).length).toBe(new Set(ops.map((o) => o.path)).size);
      const create = doc.paths['/api/orders'].post;
      expect(create.security).toEqual([{ apiKey: [] }]);
      expect(create.requestBody.content['application/json'].schema).toMatchObject({
        type: 'object',
        required: ['order_id', 'email', 'amount', 'product'],
        // the decimals are the program currency's (docs/api.md#payouts), so no fixed multipleOf
        properties: { amount: { type: 'number', exclusiveMinimum: 0, maximum: 1_000_000_000 } },
      });
      expect(create.parameters).toEqual([expect.objectContaining({ name: 'Idempotency-Key', in: 'header' })]);
      expect(doc.paths['/api/orders/{order_id}'].get.parameters).toEqual([expect.objectContaining({ name: 'order_id', in: 'path', required: true })]);
      expect(doc.paths['/mailboxes/{address}/messages'].get.security).toEqual([{ mailboxToken: [] }]);
      expect(doc.paths['/api/withdrawals'].post.responses['422'].content['application/json'].schema.properties.success).toEqual({ type: 'boolean', const: false });
      const ids = Object.values(doc.paths).flatMap((p) => Object.values(p as Record<string, { operationId: string }>).map((o) => o.operationId));
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      await t.close();
    }
  });
});

describeEachDatabase('OpenAPI document matches the answers', (dialect) => {
  let t: TestService;
  const seen = new Set<string>();
  beforeAll(async () => {
    t = await startTestService(dialect);
    ops = apiOperations(t.service.app);
  });
  afterAll(async () => {
    await t.close();
  });

  /** Parses the answer with the response schema the document gives for its status (strict objects). */
  function conforms(method: ApiOperation['method'], path: string, res: LightMyRequestResponse): LightMyRequestResponse {
    const op = ops.find((o) => o.method === method && o.path === path);
    if (!op) throw new Error(`no operation ${key(method, path)}`);
    const documented = op.responses[res.statusCode];
    if (!documented) throw new Error(`${key(method, path)} answered ${res.statusCode}, which the document does not list: ${res.body}`);
    if (documented.body) {
      const parsed = documented.body.safeParse(res.json());
      if (!parsed.success) throw new Error(`${key(method, path)} ${res.statusCode}: ${parsed.error.message}\n${res.body}`);
    } else if (documented.mediaType) {
      expect(res.headers['content-type']).toBeDefined();
    }
    seen.add(`${key(method, path)} ${res.statusCode}`);
    return res;
  }

  it('for the affiliate loop: affiliates, mailboxes, orders, pay, commissions, withdrawals, reports', async () => {
    conforms('post', '/api/affiliates', await t.api('POST', '/api/affiliates', { ref_code: 'oa', name: 'Open', email: 'oa@x.test', commission_rate: 20 }));
    conforms('post', '/api/affiliates', await t.api('POST', '/api/affiliates', { ref_code: 'oa' }));
    conforms('patch', '/api/affiliates/{ref_code}', await t.api('PATCH', '/api/affiliates/oa', { payout_details: { method: 'paypal', email: 'oa@x.test' } }));
    conforms('patch', '/api/affiliates/{ref_code}', await t.api('PATCH', '/api/affiliates/oa', { payout_details: { method: 'sepa', iban: 'DE00', account_holder: 'O' } }));
    conforms('post', '/api/affiliates', await t.api('POST', '/api/affiliates', { ref_code: 'bad code' }));
    conforms('post', '/api/affiliates', await t.request('POST', '/api/affiliates', { ref_code: 'x' }));
    conforms('get', '/api/affiliates', await t.api('GET', '/api/affiliates?limit=1'));
    conforms('get', '/api/affiliates/{ref_code}', await t.api('GET', '/api/affiliates/oa'));
    conforms('get', '/api/affiliates/{ref_code}', await t.api('GET', '/api/affiliates/nobody'));

    expect(conforms('get', '/go/{ref_code}', await t.request('GET', '/go/oa')).statusCode).toBe(302);
    conforms('post', '/mailboxes', await t.request('POST', '/mailboxes', { name: 'buyer', ref: 'oa' }));
    conforms('post', '/mailboxes', await t.request('POST', '/mailboxes', { name: 'buyer' }));
    conforms('post', '/api/mailboxes', await t.api('POST', '/api/mailboxes', {}));
    conforms('post', '/api/mailboxes', await t.api('POST', '/api/mailboxes', { domain: 'elsewhere.example' }));
    conforms('get', '/public/config', await t.request('GET', '/public/config'));

    conforms('post', '/api/orders', await t.api('POST', '/api/orders', { order_id: 'oa-1', email: 'buyer@svc.test', amount: 100, product: 'Pro' }));
    conforms('post', '/api/orders', await t.api('POST', '/api/orders', { order_id: 'oa-1', email: 'buyer@svc.test', amount: 100, product: 'Pro' }));
    conforms('post', '/api/orders', await t.api('POST', '/api/orders', { order_id: 'oa-1', email: 'buyer@svc.test', amount: 5, product: 'Pro' }));
    conforms('post', '/api/orders', await t.api('POST', '/api/orders', { order_id: 'oa-2', email: 'nobody@svc.test', amount: 0.001, product: 'Pro' }));
    conforms('post', '/api/orders', await t.api('POST', '/api/orders', { order_id: 'oa-2', email: 'nobody@svc.test', amount: 7, product: 'Pro' }));
    const paid = conforms('post', '/api/orders/pay', await t.api('POST', '/api/orders/pay', { order_id: 'oa-1' })).json();
    expect(paid.commission).toMatchObject({ ref_code: 'oa', commission: 20 });
    expect(conforms('post', '/api/orders/pay', await t.api('POST', '/api/orders/pay', { order_id: 'oa-2' })).json().commission).toBeNull();
    conforms('post', '/api/orders/pay', await t.api('POST', '/api/orders/pay', { order_id: 'nope' }));
    conforms('get', '/api/orders', await t.api('GET', '/api/orders?status=paid'));
    conforms('get', '/api/orders/{order_id}', await t.api('GET', '/api/orders/oa-1'));
    conforms('get', '/api/orders/{order_id}', await t.api('GET', '/api/orders/nope'));

    const id = paid.commission.id as string;
    conforms('get', '/api/commissions', await t.api('GET', '/api/commissions?ref_code=oa'));
    conforms('get', '/api/commissions/{id}', await t.api('GET', `/api/commissions/${id}`));
    conforms('post', '/api/commissions/{id}/approve', await t.api('POST', `/api/commissions/${id}/approve`));
    conforms('post', '/api/commissions/{id}/mark-paid', await t.api('POST', `/api/commissions/${id}/mark-paid`));
    conforms('post', '/api/commissions/{id}/void', await t.api('POST', `/api/commissions/${id}/void`));
    conforms('post', '/api/commissions/{id}/approve', await t.api('POST', '/api/commissions/nope/approve'));

    const w1 = conforms('post', '/api/withdrawals', await t.api('POST', '/api/withdrawals', { ref_code: 'oa', amount: 5 })).json().withdrawal.id;
    const w2 = conforms('post', '/api/withdrawals', await t.api('POST', '/api/withdrawals', { ref_code: 'oa', amount: 5 })).json().withdrawal.id;
    conforms('post', '/api/withdrawals', await t.api('POST', '/api/withdrawals', { ref_code: 'oa', amount: 500 }));
    conforms('post', '/api/withdrawals', await t.api('POST', '/api/withdrawals', { ref_code: 'nobody', amount: 1 }));
    conforms('get', '/api/withdrawals', await t.api('GET', '/api/withdrawals?status=requested'));
    conforms('get', '/api/withdrawals/{id}', await t.api('GET', `/api/withdrawals/${w1}`));
    conforms('post', '/api/withdrawals/{id}/mark-paid', await t.api('POST', `/api/withdrawals/${w1}/mark-paid`));
    conforms('post', '/api/withdrawals/{id}/reject', await t.api('POST', `/api/withdrawals/${w2}/reject`));
    conforms('post', '/api/withdrawals/{id}/reject', await t.api('POST', `/api/withdrawals/${w1}/reject`));

    const summary = conforms('get', '/api/affiliate/summary', await t.api('GET', '/api/affiliate/summary')).json();
    expect(summary.summary).toEqual([expect.objectContaining({ ref_code: 'oa', clicks: 1, mailboxes: 1, balance: 15 })]);
    conforms('get', '/api/affiliate/summary', await t.api('GET', '/api/affiliate/summary?from=bad'));
    expect(conforms('get', '/api/reports/daily', await t.api('GET', '/api/reports/daily')).json().items).toHaveLength(30);

    // payouts (docs/api.md#payouts)
    conforms('post', '/api/withdrawals', await t.api('POST', '/api/withdrawals', { ref_code: 'oa', amount: 5 }));
    conforms('get', '/api/payouts/owed', await t.api('GET', '/api/payouts/owed'));
    conforms('post', '/api/payout-batches', await t.api('POST', '/api/payout-batches', { method: 'wise' }));
    conforms('post', '/api/payout-batches', await t.api('POST', '/api/payout-batches', { method: 'cash' }));
    const batch = conforms('post', '/api/payout-batches', await t.api('POST', '/api/payout-batches', { method: 'paypal' })).json().batch;
    conforms('get', '/api/payout-batches', await t.api('GET', '/api/payout-batches'));
    conforms('get', '/api/payout-batches/{id}', await t.api('GET', `/api/payout-batches/${batch.id}`));
    conforms('get', '/api/payout-batches/{id}', await t.api('GET', '/api/payout-batches/nope'));
    conforms('get', '/api/payout-batches/{id}/file', await t.api('GET', `/api/payout-batches/${batch.id}/file`));
    conforms('get', '/api/payout-batches/{id}/file', await t.api('GET', '/api/payout-batches/nope/file'));
    conforms('post', '/api/payout-batches/{id}/mark-paid', await t.api('POST', `/api/payout-batches/${batch.id}/mark-paid`));
    conforms('post', '/api/payout-batches/{id}/mark-paid', await t.api('POST', '/api/payout-batches/nope/mark-paid'));

    // CSV exports (docs/api.md#csv-exports): documented as text/csv downloads, with the JSON lists' filters and 400s
    for (const path of ['/api/orders.csv', '/api/commissions.csv', '/api/withdrawals.csv', '/api/affiliate/summary.csv']) {
      const res = conforms('get', path, await t.api('GET', path));
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toMatch(/^attachment; filename="/);
      expect(res.body.split('\r\n').length).toBeGreaterThan(2);
      expect(ops.find((o) => o.path === path)?.responses[200]?.mediaType).toBe('text/csv');
    }
    expect(conforms('get', '/api/commissions.csv', await t.api('GET', '/api/commissions.csv?status=nope')).statusCode).toBe(400);
    expect(conforms('get', '/api/affiliate/summary.csv', await t.api('GET', '/api/affiliate/summary.csv?from=bad')).statusCode).toBe(400);
    // refunds and commission rules (docs/ledger.md#the-ledger)
    const refunded = conforms('post', '/api/orders/refund', await t.api('POST', '/api/orders/refund', { order_id: 'oa-1', amount: 10 })).json();
    expect(refunded.clawback).toMatchObject({ kind: 'clawback', commission: -2, currency: 'USD', status: 'paid' });
    expect(conforms('post', '/api/orders/refund', await t.api('POST', '/api/orders/refund', { order_id: 'oa-1', amount: 1000 })).statusCode).toBe(422);
    expect(conforms('post', '/api/orders/refund', await t.api('POST', '/api/orders/refund', { order_id: 'nope' })).statusCode).toBe(404);
    conforms('post', '/api/orders', await t.api('POST', '/api/orders', { order_id: 'oa-3', email: 'buyer@svc.test', amount: 9, product: 'Pro' }));
    expect(conforms('post', '/api/orders/refund', await t.api('POST', '/api/orders/refund', { order_id: 'oa-3' })).statusCode).toBe(409);
    expect(conforms('post', '/api/orders/refund', await t.api('POST', '/api/orders/refund', { order_id: 'oa-2' })).json().order.status).toBe('refunded');
    expect(conforms('get', '/api/commissions', await t.api('GET', '/api/commissions?kind=clawback')).json().items).toHaveLength(1);
    conforms('get', '/api/orders', await t.api('GET', '/api/orders?status=partially_refunded'));
    const rule = conforms('post', '/api/commission-rules', await t.api('POST', '/api/commission-rules', { product: 'Pro', flat: 3, max_orders: 2 })).json().rule;
    conforms('post', '/api/commission-rules', await t.api('POST', '/api/commission-rules', { product: 'Pro', flat: 3, rate: 5 }));
    conforms('post', '/api/commission-rules', await t.api('POST', '/api/commission-rules', { ref_code: 'nobody', rate: 5 }));
    conforms('get', '/api/commission-rules', await t.api('GET', '/api/commission-rules?ref_code=oa'));
    expect(conforms('patch', '/api/commission-rules/{id}', await t.api('PATCH', `/api/commission-rules/${rule.id}`, { rate: 7.5 })).json().rule).toMatchObject({ rate: 7.5, flat: null });
    conforms('patch', '/api/commission-rules/{id}', await t.api('PATCH', '/api/commission-rules/nope', { rate: 7.5 }));
    conforms('delete', '/api/commission-rules/{id}', await t.api('DELETE', `/api/commission-rules/${rule.id}`));
    conforms('delete', '/api/commission-rules/{id}', await t.api('DELETE', `/api/commission-rules/${rule.id}`));
  });

  it('for mail: inbound, reading with the token and with the key, HTML, attachments, deletion, health', async () => {
    const box = conforms('post', '/api/mailboxes', await t.api('POST', '/api/mailboxes', { name: 'reader' })).json().mailbox;
    const auth = { authorization: `Bearer ${box.token}` };
    const sent = conforms(
      'post',
      '/api/inbound',
      await t.api('POST', '/api/inbound', {
        to: box.address,
        from: 'Shop <shop@example.com>',
        subject: 'Receipt',
        text: 'thanks',
        html: '<p>thanks</p>',
        attachments: [{ filename: 'r.pdf', content_type: 'application/pdf', content_base64: Buffer.from('%PDF').toString('base64') }],
      }),
    ).json().message;
    conforms('post', '/api/inbound', await t.api('POST', '/api/inbound', { to: 'nobody@svc.test' }));
    conforms('post', '/api/inbound', await t.api('POST', '/api/inbound', { subject: 'no to' }));

    const base = `/mailboxes/${box.address}/messages`;
    conforms('get', '/mailboxes/{address}/messages', await t.request('GET', base, undefined, auth));
    conforms('get', '/mailboxes/{address}/messages', await t.request('GET', base));
    const message = conforms('get', '/mailboxes/{address}/messages/{id}', await t.request('GET', `${base}/${sent.id}`, undefined, auth)).json().message;
    conforms('get', '/mailboxes/{address}/messages/{id}', await t.request('GET', `${base}/msg_nope`, undefined, auth));
    conforms('get', '/mailboxes/{address}/messages/{id}/html', await t.request('GET', `${base}/${sent.id}/html?token=${box.token}`));
    conforms('get', '/mailboxes/{address}/messages/{id}/html', await t.request('GET', `${base}/${sent.id}/html?token=${box.token}&remote_images=true`));
    const file = `${base}/${sent.id}/attachments/${message.attachments[0].id}`;
    expect(conforms('get', '/mailboxes/{address}/messages/{id}/attachments/{attachmentId}', await t.request('GET', file, undefined, auth)).body).toBe('%PDF');

    conforms('get', '/api/mailboxes/{address}/messages', await t.api('GET', `/api${base}`));
    conforms('get', '/api/mailboxes/{address}/messages/{id}', await t.api('GET', `/api${base}/${sent.id}`));
    conforms('get', '/api/mailboxes/{address}/messages/{id}/html', await t.api('GET', `/api${base}/${sent.id}/html`));
    conforms('get', '/api/mailboxes/{address}/messages/{id}/attachments/{attachmentId}', await t.api('GET', `/api${file}`));
    conforms('get', '/api/mailboxes/{address}/messages', await t.api('GET', '/api/mailboxes/nobody@svc.test/messages'));
    conforms('get', '/mailboxes/{address}/messages', await t.request('GET', `${base}?q=hello`, undefined, auth));
    conforms('get', '/api/mailboxes/{address}/messages', await t.api('GET', `/api${base}?q=${'x'.repeat(201)}`));
    expect(conforms('get', '/mailboxes/{address}/messages/wait', await t.request('GET', `${base}/wait?timeout=5`, undefined, auth)).json().message.id).toBe(sent.id);
    expect(conforms('get', '/api/mailboxes/{address}/messages/wait', await t.api('GET', `/api${base}/wait?timeout=0&after=${sent.id}`)).json().message).toBeNull();
    conforms('get', '/mailboxes/{address}/messages/wait', await t.request('GET', `${base}/wait?timeout=99`, undefined, auth));
    const rpc = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'openapi-test', version: '1' } } };
    const mcpHeaders = { accept: 'application/json, text/event-stream', authorization: `Bearer ${TEST_API_KEY}` };
    expect(conforms('post', '/mcp', await t.request('POST', '/mcp', rpc, mcpHeaders)).json().result.serverInfo.name).toBe('svc');
    conforms('post', '/mcp', await t.request('POST', '/mcp', rpc, { accept: 'application/json, text/event-stream' }));
    expect(conforms('get', '/mcp', await t.request('GET', '/mcp', undefined, mcpHeaders)).statusCode).toBe(405);
    expect(conforms('delete', '/mcp', await t.request('DELETE', '/mcp', undefined, mcpHeaders)).statusCode).toBe(405);
    expect(conforms('patch', '/mailboxes/{address}/messages/{id}', await t.request('PATCH', `${base}/${sent.id}`, { seen: false }, auth)).json().message.seen).toBe(false);
    conforms('patch', '/mailboxes/{address}/messages/{id}', await t.request('PATCH', `${base}/${sent.id}`, { seen: 'no' }, auth));
    conforms('patch', '/mailboxes/{address}/messages/{id}', await t.request('PATCH', `${base}/msg_nope`, { seen: true }, auth));
    conforms('patch', '/api/mailboxes/{address}/messages/{id}', await t.api('PATCH', `/api${base}/${sent.id}`, { seen: true }));
    const source = conforms('get', '/mailboxes/{address}/messages/{id}/source', await t.request('GET', `${base}/${sent.id}/source`, undefined, auth));
    expect(source.headers['content-type']).toMatch(/^message\/rfc822/);
    expect(source.body).toContain('Subject: Receipt');
    conforms('get', '/api/mailboxes/{address}/messages/{id}/source', await t.api('GET', `/api${base}/${sent.id}/source`));
    conforms('delete', '/mailboxes/{address}/messages/{id}', await t.request('DELETE', `${base}/${sent.id}`, undefined, auth));
    conforms('delete', '/api/mailboxes/{address}/messages/{id}', await t.api('DELETE', `/api${base}/${sent.id}`));

    // the mail domains and catch-all
    conforms('get', '/api/domains', await t.api('GET', '/api/domains'));
    conforms('get', '/api/domains', await t.api('GET', '/api/domains?cursor=nope'));
    conforms('post', '/api/domains', await t.api('POST', '/api/domains', { domain: 'Catch.Example', catch_all: true }));
    conforms('post', '/api/domains', await t.api('POST', '/api/domains', { domain: 'catch.example' }));
    conforms('post', '/api/domains', await t.api('POST', '/api/domains', { domain: 'not a domain' }));
    conforms('patch', '/api/domains/{domain}', await t.api('PATCH', '/api/domains/catch.example', { active: true }));
    conforms('patch', '/api/domains/{domain}', await t.api('PATCH', '/api/domains/missing.example', { active: true }));
    conforms('patch', '/api/domains/{domain}', await t.api('PATCH', '/api/domains/catch.example', {}));
    conforms('post', '/api/inbound', await t.api('POST', '/api/inbound', { to: 'anyone@catch.example', subject: 'caught' }));
    conforms('get', '/api/mailboxes/without-token', await t.api('GET', '/api/mailboxes/without-token'));
    conforms('get', '/api/mailboxes/without-token', await t.api('GET', '/api/mailboxes/without-token?limit=0'));
    conforms('delete', '/api/domains/{domain}', await t.api('DELETE', '/api/domains/catch.example'));
    conforms('post', '/api/domains', await t.api('POST', '/api/domains', { domain: 'empty.example' }));
    conforms('delete', '/api/domains/{domain}', await t.api('DELETE', '/api/domains/empty.example'));
    conforms('delete', '/api/domains/{domain}', await t.api('DELETE', '/api/domains/empty.example'));

    conforms('get', '/healthz', await t.request('GET', '/healthz'));
    conforms('get', '/readyz', await t.request('GET', '/readyz'));
  });

  it('for the affiliate portal (portal session) and its admin routes', async () => {
    const admin = await t.admin();
    conforms('post', '/api/affiliates', await t.api('POST', '/api/affiliates', { ref_code: 'op1' }));
    const invite = conforms('post', '/admin/api/affiliates/{ref_code}/invite', await admin.call('POST', '/admin/api/affiliates/op1/invite')).json();
    conforms('post', '/admin/api/affiliates/{ref_code}/invite', await admin.call('POST', '/admin/api/affiliates/nobody/invite'));
    const token = invite.invite_url.split('#token=')[1];
    conforms('post', '/portal/api/accept-invite', await t.request('POST', '/portal/api/accept-invite', { token, password: 'short' }));
    const signedIn = conforms('post', '/portal/api/accept-invite', await t.request('POST', '/portal/api/accept-invite', { token, password: PORTAL_PASSWORD }));
    const p = portalClient(t, 'op1', signedIn);
    conforms('post', '/portal/api/login', await t.request('POST', '/portal/api/login', { ref_code: 'op1', password: 'wrong-password' }));
    conforms('post', '/portal/api/login', await t.request('POST', '/portal/api/login', { ref_code: 'op1', password: PORTAL_PASSWORD }));
    conforms('post', '/portal/api/login', await t.request('POST', '/portal/api/login', { login: 'op1', password: PORTAL_PASSWORD }));
    conforms('post', '/portal/api/login', await t.request('POST', '/portal/api/login', { password: PORTAL_PASSWORD }));
    conforms('post', '/portal/api/forgot-password', await t.request('POST', '/portal/api/forgot-password', { login: 'op1' }));
    conforms('post', '/portal/api/forgot-password', await t.request('POST', '/portal/api/forgot-password', {}));
    conforms('post', '/portal/api/reset-password', await t.request('POST', '/portal/api/reset-password', { token: 'nope', password: PORTAL_PASSWORD }));
    conforms('post', '/portal/api/confirm-email', await t.request('POST', '/portal/api/confirm-email', { token: 'nope' }));
    conforms('post', '/portal/api/confirm-email', await t.request('POST', '/portal/api/confirm-email', {}));
    expect(conforms('post', '/portal/api/confirm-email/resend', await p.call('POST', '/portal/api/confirm-email/resend')).json()).toMatchObject({ success: true });
    conforms('get', '/admin/api/outbound-mail', await admin.call('GET', '/admin/api/outbound-mail'));
    conforms('get', '/admin/api/outbound-mail', await admin.call('GET', '/admin/api/outbound-mail?status=nope'));
    conforms('post', '/admin/api/outbound-mail/{id}/resend', await admin.call('POST', '/admin/api/outbound-mail/mail_nope/resend'));
    expect(conforms('get', '/portal/api/signup', await t.request('GET', '/portal/api/signup')).json()).toEqual({ success: true, signup: 'closed' });
    conforms('post', '/portal/api/signup', await t.request('POST', '/portal/api/signup', { ref_code: 'op2', name: 'N', email: 'op2@example.com', password: PORTAL_PASSWORD }));
    await admin.call('PATCH', '/admin/api/settings', { affiliate_signup: 'review' });
    // the sign-in and sign-up pages read it without a session
    expect((await t.request('GET', '/portal/api/signup')).json()).toEqual({ success: true, signup: 'review' });
    conforms('post', '/portal/api/signup', await t.request('POST', '/portal/api/signup', { ref_code: 'op2', name: 'N', email: 'op2@example.com', password: PORTAL_PASSWORD }));
    conforms('post', '/portal/api/signup', await t.request('POST', '/portal/api/signup', { ref_code: 'op2', name: 'N', email: 'op2@example.com', password: PORTAL_PASSWORD }));
    await admin.call('PATCH', '/admin/api/settings', { affiliate_signup: 'open' });
    conforms('post', '/portal/api/signup', await t.request('POST', '/portal/api/signup', { ref_code: 'op3', name: 'N', email: 'op3@example.com', password: PORTAL_PASSWORD }));
    await admin.call('PATCH', '/admin/api/settings', { affiliate_signup: 'closed' });
    conforms('get', '/portal/api/session', await p.call('GET', '/portal/api/session'));
    conforms('get', '/portal/api/me', await p.call('GET', '/portal/api/me'));
    conforms('get', '/portal/api/me', await t.request('GET', '/portal/api/me'));
    expect(conforms('patch', '/portal/api/me', await p.call('PATCH', '/portal/api/me', { payout_details: { method: 'other', note: 'Bank 1' }, current_password: PORTAL_PASSWORD })).statusCode).toBe(200);
    expect(conforms('patch', '/portal/api/me', await p.call('PATCH', '/portal/api/me', { payout_details: { method: 'other', note: 'Bank 2' } })).json().error.code).toBe('password_required');
    expect(conforms('patch', '/portal/api/me', await p.call('PATCH', '/portal/api/me', { payout_details: { method: 'other', note: 'Bank 2' }, current_password: 'wrong-one' })).json().error.code).toBe('password_required');
    conforms('patch', '/portal/api/me', await p.call('PATCH', '/portal/api/me', { payout_details: 7 }));
    expect(conforms('patch', '/portal/api/me', await p.call('PATCH', '/portal/api/me', { notify: { commissions: false } })).json().affiliate.notify).toEqual({ commissions: false, payouts: true });
    conforms('patch', '/portal/api/me', await p.call('PATCH', '/portal/api/me', { notify: { commissions: 'no' } }));
    conforms('patch', '/portal/api/me', await p.call('PATCH', '/portal/api/me', { name: 'x' }, { 'x-csrf-token': 'wrong' }));
    conforms('get', '/portal/api/summary', await p.call('GET', '/portal/api/summary?from=2026-01-01&to=2026-01-15'));
    conforms('get', '/portal/api/summary', await p.call('GET', '/portal/api/summary?from=bad'));
    conforms('get', '/portal/api/commissions', await p.call('GET', '/portal/api/commissions'));
    conforms('get', '/portal/api/withdrawals', await p.call('GET', '/portal/api/withdrawals?limit=0'));
    conforms('get', '/portal/api/withdrawals', await p.call('GET', '/portal/api/withdrawals'));
    conforms('post', '/portal/api/withdrawals', await p.call('POST', '/portal/api/withdrawals', { amount: 1 }));
    conforms('post', '/portal/api/withdrawals', await p.call('POST', '/portal/api/withdrawals', { amount: -1 }));
    conforms('get', '/admin/api/payout-details', await admin.call('GET', '/admin/api/payout-details?ref_codes=op1'));
    conforms('get', '/admin/api/payout-details', await admin.call('GET', '/admin/api/payout-details'));
    conforms('post', '/portal/api/password', await p.call('POST', '/portal/api/password', { current_password: 'wrong-one', new_password: 'another-password' }));
    conforms('post', '/portal/api/password', await p.call('POST', '/portal/api/password', { current_password: PORTAL_PASSWORD, new_password: 'another-password' }));
    conforms('post', '/portal/api/logout', await p.call('POST', '/portal/api/logout'));
    conforms('post', '/portal/api/logout', await p.call('POST', '/portal/api/logout'));
  });

  it('for the mail.tm-compatible API, in both formats', async () => {
    const ld = { accept: 'application/ld+json' };
    const json = { accept: 'application/json' };
    const domains = conforms('get', '/mailtm/domains', await t.request('GET', '/mailtm/domains', undefined, ld)).json();
    conforms('get', '/mailtm/domains', await t.request('GET', '/mailtm/domains?page=x', undefined, json));
    const domainId = domains['hydra:member'][0].id;
    conforms('get', '/mailtm/domains/{id}', await t.request('GET', `/mailtm/domains/${domainId}`, undefined, json));
    conforms('get', '/mailtm/domains/{id}', await t.request('GET', '/mailtm/domains/nope', undefined, ld));
    const credentials = { address: 'oa-mailtm@svc.test', password: 'secret-pass' };
    conforms('post', '/mailtm/accounts', await t.request('POST', '/mailtm/accounts', credentials, ld));
    conforms('post', '/mailtm/accounts', await t.request('POST', '/mailtm/accounts', credentials, json));
    conforms('post', '/mailtm/accounts', await t.request('POST', '/mailtm/accounts', { address: 1 }, json));
    const token = conforms('post', '/mailtm/token', await t.request('POST', '/mailtm/token', credentials)).json();
    conforms('post', '/mailtm/token', await t.request('POST', '/mailtm/token', { ...credentials, password: 'wrong-pass' }));
    conforms('post', '/mailtm/token', await t.request('POST', '/mailtm/token', {}));
    const bearer = { authorization: `Bearer ${token.token}` };
    conforms('get', '/mailtm/me', await t.request('GET', '/mailtm/me', undefined, { ...bearer, ...ld }));
    conforms('get', '/mailtm/me', await t.request('GET', '/mailtm/me'));
    conforms('get', '/mailtm/accounts/{id}', await t.request('GET', `/mailtm/accounts/${token.id}`, undefined, { ...bearer, ...json }));
    conforms('get', '/mailtm/accounts/{id}', await t.request('GET', '/mailtm/accounts/nope', undefined, bearer));
    const sent = (
      await t.api('POST', '/api/inbound', {
        to: credentials.address,
        subject: 'mail.tm',
        text: 'hi',
        html: '<p>hi</p>',
        attachments: [{ filename: 'a.txt', content_type: 'text/plain', content_base64: 'aGk=' }],
      })
    ).json().message;
    conforms('get', '/mailtm/messages', await t.request('GET', '/mailtm/messages', undefined, { ...bearer, ...ld }));
    conforms('get', '/mailtm/messages', await t.request('GET', '/mailtm/messages?page=1', undefined, { ...bearer, ...json }));
    conforms('get', '/mailtm/messages', await t.request('GET', '/mailtm/messages?page=0', undefined, bearer));
    conforms('get', '/mailtm/messages', await t.request('GET', '/mailtm/messages'));
    const message = conforms('get', '/mailtm/messages/{id}', await t.request('GET', `/mailtm/messages/${sent.id}`, undefined, { ...bearer, ...ld })).json();
    conforms('get', '/mailtm/messages/{id}', await t.request('GET', `/mailtm/messages/${sent.id}`, undefined, { ...bearer, ...json }));
    conforms('get', '/mailtm/messages/{id}', await t.request('GET', '/mailtm/messages/msg_nope', undefined, bearer));
    const patch = { ...bearer, 'content-type': 'application/merge-patch+json' };
    conforms('patch', '/mailtm/messages/{id}', await t.request('PATCH', `/mailtm/messages/${sent.id}`, JSON.stringify({ seen: false }), patch));
    conforms('patch', '/mailtm/messages/{id}', await t.request('PATCH', `/mailtm/messages/${sent.id}`, JSON.stringify({ seen: 1 }), patch));
    conforms('patch', '/mailtm/messages/{id}', await t.request('PATCH', '/mailtm/messages/msg_nope', JSON.stringify({ seen: true }), patch));
    conforms('get', '/mailtm/sources/{id}', await t.request('GET', `/mailtm/sources/${sent.id}`, undefined, { ...bearer, ...ld }));
    conforms('get', '/mailtm/sources/{id}', await t.request('GET', `/mailtm/sources/${sent.id}`, undefined, { ...bearer, ...json }));
    conforms('get', '/mailtm/sources/{id}', await t.request('GET', '/mailtm/sources/msg_nope', undefined, bearer));
    expect(conforms('get', '/mailtm/messages/{id}/download', await t.request('GET', `/mailtm${message.downloadUrl}`, undefined, bearer)).body).toContain('Subject: mail.tm');
    conforms('get', '/mailtm/messages/{id}/download', await t.request('GET', `/mailtm${message.downloadUrl}`));
    expect(conforms('get', '/mailtm/messages/{id}/attachment/{attachmentId}', await t.request('GET', `/mailtm${message.attachments[0].downloadUrl}`, undefined, bearer)).body).toBe('hi');
    conforms('get', '/mailtm/messages/{id}/attachment/{attachmentId}', await t.request('GET', `/mailtm/messages/${sent.id}/attachment/att_nope`, undefined, bearer));
    conforms('delete', '/mailtm/messages/{id}', await t.request('DELETE', `/mailtm/messages/${sent.id}`, undefined, bearer));
    conforms('delete', '/mailtm/messages/{id}', await t.request('DELETE', `/mailtm/messages/${sent.id}`, undefined, bearer));
    conforms('delete', '/mailtm/accounts/{id}', await t.request('DELETE', '/mailtm/accounts/nope', undefined, bearer));
    conforms('delete', '/mailtm/accounts/{id}', await t.request('DELETE', `/mailtm/accounts/${token.id}`, undefined, bearer));
    conforms('delete', '/mailtm/accounts/{id}', await t.request('DELETE', `/mailtm/accounts/${token.id}`, undefined, bearer));
  });

  it('for the admin users and password routes (admin session)', async () => {
    const admin = await t.admin();
    conforms('get', '/admin/api/admin-users', await admin.call('GET', '/admin/api/admin-users'));
    conforms('get', '/admin/api/admin-users', await t.request('GET', '/admin/api/admin-users'));
    conforms('post', '/admin/api/admin-users', await admin.call('POST', '/admin/api/admin-users', { username: 'oa-admin' }));
    conforms('post', '/admin/api/admin-users', await admin.call('POST', '/admin/api/admin-users', { username: 'oa-admin' }));
    conforms('post', '/admin/api/admin-users', await admin.call('POST', '/admin/api/admin-users', { username: 'x y' }));
    conforms('post', '/admin/api/admin-users', await admin.call('POST', '/admin/api/admin-users', { username: 'z' }, { 'x-csrf-token': 'wrong' }));
    conforms('delete', '/admin/api/admin-users/{username}', await admin.call('DELETE', '/admin/api/admin-users/oa-admin'));
    conforms('delete', '/admin/api/admin-users/{username}', await admin.call('DELETE', '/admin/api/admin-users/oa-admin'));
    conforms('delete', '/admin/api/admin-users/{username}', await admin.call('DELETE', '/admin/api/admin-users/admin'));
    conforms('post', '/admin/api/password', await admin.call('POST', '/admin/api/password', { current_password: 'wrong', new_password: 'whatever-long' }));
    conforms('post', '/admin/api/password', await admin.call('POST', '/admin/api/password', { current_password: TEST_ADMIN_PASSWORD, new_password: TEST_ADMIN_PASSWORD }));
  });

  it('for the admin area: session, settings, API key, affiliates, deliveries, and the document itself', async () => {
    const admin = await t.admin();
    conforms('get', '/openapi.json', await t.request('GET', '/openapi.json'));
    conforms('get', '/admin/api/session', await admin.call('GET', '/admin/api/session'));
    conforms('get', '/admin/api/session', await t.request('GET', '/admin/api/session'));
    conforms('get', '/admin/api/settings', await admin.call('GET', '/admin/api/settings'));
    conforms('patch', '/admin/api/settings', await admin.call('PATCH', '/admin/api/settings', { commission_rate: 12.5 }));
    conforms('patch', '/admin/api/settings', await admin.call('PATCH', '/admin/api/settings', { commission_rate: 'x' }));
    conforms('patch', '/admin/api/settings', await admin.call('PATCH', '/admin/api/settings', { webhook_url: 'http://127.0.0.1:9/hook' }, { 'x-csrf-token': 'wrong' }));
    conforms('get', '/admin/api/api-key', await admin.call('GET', '/admin/api/api-key'));
    // rotating last among the key's users: nothing after this test calls /api
    conforms('post', '/admin/api/api-key/rotate', await admin.call('POST', '/admin/api/api-key/rotate'));
    conforms('patch', '/api/affiliates/{ref_code}', await admin.call('PATCH', '/admin/api/affiliates/oa', { status: 'disabled' }));
    conforms('patch', '/api/affiliates/{ref_code}', await admin.call('PATCH', '/admin/api/affiliates/nobody', { status: 'disabled' }));
    conforms('patch', '/api/affiliates/{ref_code}', await admin.call('PATCH', '/admin/api/affiliates/oa', { status: 'gone' }));

    conforms('post', '/admin/api/webhooks/test', await admin.call('POST', '/admin/api/webhooks/test'));
    conforms('patch', '/admin/api/settings', await admin.call('PATCH', '/admin/api/settings', { webhook_url: 'http://127.0.0.1:9/hook' }));
    const sent = conforms('post', '/admin/api/webhooks/test', await admin.call('POST', '/admin/api/webhooks/test')).json();
    conforms('get', '/admin/api/deliveries', await admin.call('GET', '/admin/api/deliveries?limit=1'));
    conforms('get', '/admin/api/deliveries', await admin.call('GET', '/admin/api/deliveries?status=nope'));
    conforms('get', '/admin/api/deliveries/stats', await admin.call('GET', '/admin/api/deliveries/stats'));
    conforms('get', '/admin/api/deliveries/{id}', await admin.call('GET', `/admin/api/deliveries/${sent.delivery.id}`));
    conforms('get', '/admin/api/deliveries/{id}', await admin.call('GET', '/admin/api/deliveries/dlv_nope'));
    conforms('post', '/admin/api/deliveries/{id}/redeliver', await admin.call('POST', `/admin/api/deliveries/${sent.delivery.id}/redeliver`));
    conforms('get', '/admin/api/adapters', await admin.call('GET', '/admin/api/adapters'));
    conforms('get', '/admin/api/event-types', await admin.call('GET', '/admin/api/event-types'));

    // billing integrations: unset secret, then a signed Lemon Squeezy event and an unknown Stripe one
    for (const provider of ['stripe', 'paddle', 'lemonsqueezy']) {
      conforms('post', `/integrations/${provider}`, await t.request('POST', `/integrations/${provider}`, '{}', { 'content-type': 'application/json' }));
    }
    conforms('patch', '/admin/api/settings', await admin.call('PATCH', '/admin/api/settings', { lemonsqueezy_webhook_secret: 'ls-secret', stripe_webhook_secret: 'whsec_x' }));
    const ls = JSON.stringify({ meta: { event_name: 'order_created' }, data: { type: 'orders', id: '7', attributes: { status: 'paid', user_email: 'ls@x.test', total: 1000, currency: 'USD' } } });
    const lsSig = createHmac('sha256', 'ls-secret').update(ls).digest('hex');
    conforms('post', '/integrations/lemonsqueezy', await t.request('POST', '/integrations/lemonsqueezy', ls, { 'content-type': 'application/json', 'x-signature': lsSig }));
    const st = JSON.stringify({ id: 'evt_oa', object: 'event', type: 'customer.created', data: { object: {} } });
    const stSig = Stripe.webhooks.generateTestHeaderString({ payload: st, secret: 'whsec_x', timestamp: Math.floor(t.clock.now() / 1000) });
    conforms('post', '/integrations/stripe', await t.request('POST', '/integrations/stripe', st, { 'content-type': 'application/json', 'stripe-signature': stSig }));
    conforms('get', '/admin/api/integrations/events', await admin.call('GET', '/admin/api/integrations/events?limit=1'));
    conforms('get', '/admin/api/integrations/events', await admin.call('GET', '/admin/api/integrations/events?provider=nope'));
    conforms('get', '/admin/api/integrations/status', await admin.call('GET', '/admin/api/integrations/status'));
    conforms('get', '/api/clicks', await t.api('GET', '/api/clicks?limit=2'));
    conforms('get', '/api/clicks', await t.api('GET', '/api/clicks?from=bad'));
    conforms('post', '/admin/api/maintenance/retention', await admin.call('POST', '/admin/api/maintenance/retention'));
    // docs/api.md#fraud-review: an order with the affiliate's own email opens a case
    await admin.call('POST', '/admin/api/affiliates', { ref_code: 'oafraud', email: 'oa@fraud.example' });
    await admin.call('POST', '/admin/api/affiliates', { ref_code: 'oafraud2', email: 'oa2@fraud.example' });
    for (const [id, ref] of [['oa-f1', 'oafraud'], ['oa-f2', 'oafraud2']] as const) {
      await admin.call('POST', '/admin/api/orders', { order_id: id, email: `${ref === 'oafraud' ? 'oa' : 'oa2'}@fraud.example`, amount: 10, product: 'p', ref_code: ref });
      await admin.call('POST', '/admin/api/orders/pay', { order_id: id });
    }
    const fraudList = await admin.call('GET', '/admin/api/fraud/cases?status=open');
    const fraudCases = conforms('get', '/api/fraud/cases', fraudList).json().items as { id: string }[];
    conforms('get', '/api/fraud/cases', await admin.call('GET', '/admin/api/fraud/cases?signal=nope'));
    conforms('get', '/api/fraud/open-count', await admin.call('GET', '/admin/api/fraud/open-count'));
    conforms('get', '/api/fraud/cases/{id}', await admin.call('GET', `/admin/api/fraud/cases/${fraudCases[0]?.id}`));
    conforms('get', '/api/fraud/cases/{id}', await admin.call('GET', '/admin/api/fraud/cases/fc_none'));
    conforms('post', '/api/fraud/cases/{id}/release', await admin.call('POST', `/admin/api/fraud/cases/${fraudCases[0]?.id}/release`, { note: 'fine' }));
    conforms('post', '/api/fraud/cases/{id}/reject', await admin.call('POST', `/admin/api/fraud/cases/${fraudCases[0]?.id}/reject`));
    conforms('post', '/api/fraud/cases/{id}/reject', await admin.call('POST', `/admin/api/fraud/cases/${fraudCases[1]?.id}/reject`, {}));
    conforms('post', '/api/fraud/cases/{id}/release', await admin.call('POST', `/admin/api/fraud/cases/${fraudCases[1]?.id}/release`));
    conforms('post', '/api/fraud/cases/{id}/release', await admin.call('POST', '/admin/api/fraud/cases/fc_none/release', { note: 1 }));
    expect((await admin.call('GET', '/admin/api/fraud/open-count')).json()).toEqual({ success: true, open: 0 });

    conforms('post', '/admin/api/logout', await admin.call('POST', '/admin/api/logout'));
    conforms('post', '/admin/api/login', await t.request('POST', '/admin/api/login', { username: 'admin', password: 'wrong-password' }));
    conforms('post', '/admin/api/login', await t.request('POST', '/admin/api/login', { username: 'admin', password: TEST_ADMIN_PASSWORD }));
  });

  it('has exercised every operation but the event streams (covered in mail-events and mailtm)', () => {
    const exercised = new Set([...seen].map((s) => s.split(' ').slice(0, 2).join(' ')));
    expect(ops.map((o) => key(o.method, o.path)).filter((k) => !exercised.has(k))).toEqual(['GET /mailboxes/{address}/events', 'GET /mailtm/.well-known/mercure']);
    expect(seen.size).toBeGreaterThan(55);
  });
});
