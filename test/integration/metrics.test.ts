import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EventData } from '../../src/platform/events/catalogue.js';
import { recordEvent } from '../../src/platform/events/outbox.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const TOKEN = 'metrics-token-0123456789';

const withdrawalData = (n: number): EventData<'withdrawal.requested'> => ({
  withdrawal: { id: `wd_${n}`, ref_code: 'm', amount: n, currency: 'USD', status: 'requested', payout: null, batch_id: null, created_at: '2026-01-15T12:00:00.000Z' },
  ref_code: 'm',
});

/** The value of one sample line (`name{labels} value`) in the Prometheus text. */
function sample(text: string, line: string): number | undefined {
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

it('serves no /metrics without SVC_METRICS_TOKEN', async () => {
  const t = await startTestService('sqlite');
  try {
    const res = await t.request('GET', '/metrics', undefined, { authorization: `Bearer ${TOKEN}` });
    expect(res.statusCode).toBe(404);
    expect(t.service.ctx.metrics).toBeUndefined();
  } finally {
    await t.close();
  }
});

describeEachDatabase('/metrics', (dialect) => {
  let t: TestService;
  let rx: WebhookReceiver;
  beforeAll(async () => {
    rx = await startReceiver();
    t = await startTestService(dialect, { env: { SVC_METRICS_TOKEN: TOKEN } });
    const admin = await t.admin();
    expect((await admin.call('PATCH', '/admin/api/settings', { webhook_url: `${rx.url}/hook` })).statusCode).toBe(200);
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
  });
  const scrape = async () => {
    const res = await t.request('GET', '/metrics', undefined, { authorization: `Bearer ${TOKEN}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.body;
  };

  it('needs the token', async () => {
    const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: TOKEN }];
    for (const headers of attempts) {
      const res = await t.request('GET', '/metrics', undefined, headers);
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
    }
  });

  it('counts stored clicks, delivery attempts by outcome, and reads the delivery queue from the database', async () => {
    expect((await t.api('POST', '/api/affiliates', { ref_code: 'm' })).statusCode).toBe(201);
    const before = await scrape();
    expect(sample(before, 'svc_clicks_recorded_total')).toBe(0);
    expect(sample(before, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) await t.request('GET', '/go/m');
    await t.request('GET', '/go/nobody'); // not stored, not counted

    const db = t.service.ctx.db;
    rx.respond = (req) => (JSON.parse(req.body).data.withdrawal?.id === 'wd_2' ? { status: 500 } : { status: 204 });
    for (const n of [1, 2, 3]) await recordEvent(db, t.clock, 'withdrawal.requested', withdrawalData(n));
    await t.service.ctx.dispatcher.drain();
    const text = await scrape();
    expect(sample(text, 'svc_clicks_recorded_total')).toBe(3);
    // webhook: 3 delivered (affiliate.created of m, wd_1, wd_3), 1 retry (wd_2); the logging adapter: 4 delivered
    expect(sample(text, 'svc_delivery_attempt_seconds_count{target="webhook",outcome="delivered"}')).toBe(3);
    expect(sample(text, 'svc_delivery_attempt_seconds_count{target="webhook",outcome="retry"}')).toBe(1);
    expect(sample(text, 'svc_delivery_attempt_seconds_count{target="adapter",outcome="delivered"}')).toBe(4);
    expect(sample(text, 'svc_deliveries_pending')).toBe(1);
    expect(sample(text, 'svc_deliveries_failed')).toBe(0);
    expect(sample(text, 'svc_outbox_unfanned_events')).toBe(0);
    t.clock.advance(90_000);
    expect(sample(await scrape(), 'svc_delivery_oldest_pending_seconds')).toBe(90);
    await recordEvent(db, t.clock, 'withdrawal.requested', withdrawalData(4));
    expect(sample(await scrape(), 'svc_outbox_unfanned_events')).toBe(1);
  });
});
