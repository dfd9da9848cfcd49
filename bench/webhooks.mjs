// Delivery throughput and latency against a local receiver. Run after `npm run build`:
//   node bench/webhooks.mjs                     (SQLite in a temp dir)
//   BENCH_DATABASE_URL=postgres://… node bench/webhooks.mjs
// Prints events delivered per second (target 1,000/s) and the median time from an event's commit to
// the webhook arriving (target < 50 ms): from `POST /api/orders/pay` answered when that route exists,
// else from recordEvent + kick (said in the output).
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../dist/config.js';
import { recordEvent } from '../dist/platform/events/outbox.js';
import { createService } from '../dist/server.js';

const N = Number(process.env.BENCH_EVENTS ?? 5000);
const LATENCY_SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const API_KEY = 'bench_api_key_0123456789abcdef';

const arrivals = new Map();
let onReceive = () => {};
const receiver = http.createServer((req, res) => {
  const id = req.headers['x-svc-event-id'];
  req.resume();
  req.on('end', () => {
    if (!arrivals.has(id)) arrivals.set(id, performance.now());
    res.writeHead(204).end();
    onReceive(id);
  });
});
receiver.keepAliveTimeout = 60_000;
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

let dir;
let databaseUrl = process.env.BENCH_DATABASE_URL;
let pgSchema;
if (!databaseUrl) {
  dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  databaseUrl = `sqlite:${join(dir, 'svc.db')}`;
} else {
  pgSchema = `bench_${Date.now().toString(36)}`;
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  await c.query(`create schema "${pgSchema}"`);
  await c.end();
}

const config = loadConfig({
  DATABASE_URL: databaseUrl,
  SVC_API_KEY: API_KEY,
  SVC_ADMIN_PASSWORD: 'bench-admin-password',
  SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
  HOST: '127.0.0.1',
  PORT: '0',
  SMTP_PORT: 'off',
  LOG_LEVEL: 'silent',
});
const service = await createService(config, { logger: pino({ level: 'silent' }), databaseOptions: { pgSchema, poolMax: 20 } });
const { ctx } = service;
await ctx.services.settings.update({ webhook_url: hookUrl });

// 1. Throughput: N events already committed, then the worker starts and drains them.
const BATCH = 500;
for (let i = 0; i < N; i += BATCH) {
  await ctx.db.transaction().execute(async (tx) => {
    for (let j = i; j < Math.min(N, i + BATCH); j++) {
      await recordEvent(tx, ctx.clock, 'order.paid', { order: { id: `bench-${j}`, email: 'b@svc.test', amount: 10, product: 'p', status: 'paid' }, commission: null, ref_code: null });
    }
  });
}
const allIn = new Promise((resolve) => {
  onReceive = () => {
    if (arrivals.size >= N) resolve();
  };
});
const t0 = performance.now();
const address = await service.start();
const guard = setTimeout(() => {
  console.log(`timed out: ${arrivals.size}/${N} received`);
  process.exit(1);
}, 50_000);
await allIn;
clearTimeout(guard);
const seconds = (performance.now() - t0) / 1000;
console.log(`database: ${ctx.dialect}`);
console.log(`throughput: ${N} events delivered in ${seconds.toFixed(2)} s = ${Math.round(N / seconds)} events/s (target 1000/s; each event also goes to the logging adapter)`);

// 2. Latency: one event at a time, from commit (or pay answered) to the webhook received.
const hasPay = await fetch(`${address}/api/orders/pay`, { method: 'POST', headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' }, body: '{"order_id":"nope"}' }).then((r) => r.status !== 404 || r.json().then((b) => b?.error?.code === 'order_not_found'));
const latencyGuard = setTimeout(() => {
  console.log(`latency phase timed out after ${latencies.length} samples`);
  process.exit(1);
}, 50_000);
const latencies = [];
let early = 0;
for (let i = 0; i < LATENCY_SAMPLES; i++) {
  let id;
  const got = new Promise((resolve) => {
    onReceive = (rid) => {
      if (rid === id) resolve(performance.now());
    };
  });
  let start;
  if (hasPay) {
    const orderId = `lat-${i}`;
    const headers = { 'x-api-key': API_KEY, 'content-type': 'application/json' };
    await fetch(`${address}/api/orders`, { method: 'POST', headers, body: JSON.stringify({ order_id: orderId, email: `buyer${i}@svc.test`, amount: 19.99, product: 'Pro' }) });
    const pending = fetch(`${address}/api/orders/pay`, { method: 'POST', headers, body: JSON.stringify({ order_id: orderId }) });
    // The event id is not in the pay answer; match the first order.paid for this order instead.
    const byOrder = new Promise((resolve) => {
      onReceive = () => resolve(performance.now());
    });
    const res = await pending;
    start = performance.now();
    await res.text();
    const at = await byOrder;
    // The kick comes before the answer is written, so the webhook can arrive first: counted as 0.
    if (at < start) early++;
    latencies.push(Math.max(0, at - start));
    continue;
  }
  const ev = await ctx.db.transaction().execute((tx) => recordEvent(tx, ctx.clock, 'order.paid', { order: { id: `lat-${i}` }, commission: null, ref_code: null }));
  id = ev.id;
  start = performance.now();
  ctx.outbox.kick();
  if (arrivals.has(id)) latencies.push(arrivals.get(id) - start);
  else latencies.push((await got) - start);
}
latencies.sort((a, b) => a - b);
const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))].toFixed(1);
console.log(
  `latency (${hasPay ? 'pay answered' : 'recordEvent committed + kick; pay not on this branch'} -> webhook received), ${latencies.length} samples: median ${pct(0.5)} ms, p90 ${pct(0.9)} ms, max ${latencies[latencies.length - 1].toFixed(1)} ms (target median < 50 ms)`,
);

clearTimeout(latencyGuard);
if (hasPay) console.log(`${early} of ${latencies.length} webhooks arrived before the pay answer was read`);
await service.destroy();
receiver.closeAllConnections();
receiver.close();
if (dir) rmSync(dir, { recursive: true, force: true });
if (pgSchema) {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  await c.query(`drop schema if exists "${pgSchema}" cascade`);
  await c.end();
}
