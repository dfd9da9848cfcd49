import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestService, type TestService } from '../helpers/service.js';

describeEachDatabase('order list: each order with its affiliate and commission', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers ref_code and {id, commission, status} beside each order, null when there is none', async () => {
    expect((await t.api('POST', '/api/affiliates', { ref_code: 'lister', commission_rate: 12.5 })).statusCode).toBe(201);
    const address = (await t.api('POST', '/api/mailboxes', { ref_code: 'lister' })).json().mailbox.address as string;
    await t.api('POST', '/api/orders', { order_id: 'ol-1', email: address, amount: 80, product: 'Pro' });
    const paid = (await t.api('POST', '/api/orders/pay', { order_id: 'ol-1' })).json();
    await t.api('POST', `/api/commissions/${paid.commission.id}/approve`);
    t.clock.advance(1000);
    await t.api('POST', '/api/orders', { order_id: 'ol-2', email: 'stranger@example.com', amount: 10, product: 'Pro' });
    await t.api('POST', '/api/orders/pay', { order_id: 'ol-2' });
    t.clock.advance(1000);
    await t.api('POST', '/api/orders', { order_id: 'ol-3', email: address, amount: 5, product: 'Pro' });

    const res = await t.api('GET', '/api/orders');
    expect(res.statusCode).toBe(200);
    const rows = res.json().items.map((o: { order_id: string; status: string; ref_code: string | null; commission: unknown }) => [o.order_id, o.status, o.ref_code, o.commission]);
    expect(rows).toEqual([
      ['ol-3', 'created', null, null],
      ['ol-2', 'paid', null, null],
      ['ol-1', 'paid', 'lister', { id: paid.commission.id, commission: 10, status: 'approved', void_reason: null }],
    ]);
    // under /admin/api (the admin list) too
    const admin = await t.admin();
    expect((await admin.call('GET', '/admin/api/orders?q=ol-1')).json().items[0]).toMatchObject({ ref_code: 'lister', commission: { commission: 10 } });
  });
});
