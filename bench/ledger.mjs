// Ledger throughput: orders created+paid (attributed, with commission and outbox event), refunds (of
// pending commissions, and clawbacks of paid ones), commission mark-paid, and withdrawals, all for ONE
// hot affiliate, over real HTTP with 16 requests in flight. Runs against the built dist/.
//   npm run build && node bench/ledger.mjs            (a temporary SQLite file)
//   BENCH_DATABASE_URL='postgres://…?options=-c%20search_path%3D<empty schema>' node bench/ledger.mjs
//   BENCH_DIST=/path/to/other/checkout/dist node bench/ledger.mjs   (the same figures for another build,
//   e.g. main before a change; a figure whose route that build lacks is skipped)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';

const DIST = process.env.BENCH_DIST ? resolve(process.env.BENCH_DIST) : resolve(import.meta.dirname, '../dist');
const { loadConfig } = await import(pathToFileURL(join(DIST, 'config.js')).href);
const { createService } = await import(pathToFileURL(join(DIST, 'server.js')).href);

const KEY = 'bench_api_key_0123456789abcdef';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONCURRENCY = 16;
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
const url = process.env.BENCH_DATABASE_URL ?? `sqlite:${join(dir, 'bench.db')}`;
const config = loadConfig({ DATABASE_URL: url, SVC_API_KEY: KEY, SVC_ADMIN_PASSWORD: 'bench-password', PORT: '0', LOG_LEVEL: 'silent', SVC_WORKER: 'off' });
const service = await createService(config, { logger: pino({ level: 'silent' }) });
const address = await service.start();

async function call(method, path, body) {
  const res = await fetch(`${address}${path}`, {
    method,
    headers: { 'x-api-key': KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  return { status: res.status, json };
}

/** Runs `one(i)` with CONCURRENCY in flight for SECONDS (or `limit` calls); prints requests per second. */
async function measure(name, one, limit = Number.POSITIVE_INFINITY) {
  let i = 0;
  let done = 0;
  const latencies = [];
  const until = performance.now() + SECONDS * 1000;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until && i < limit) {
        const n = i++;
        const t0 = performance.now();
        await one(n);
        latencies.push(performance.now() - t0);
        done++;
      }
    }),
  );
  const secs = (performance.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  const p = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]?.toFixed(2);
  console.log(`${name.padEnd(38)} ${(done / secs).toFixed(0).padStart(6)} req/s   p50 ${p(0.5)} ms   p99 ${p(0.99)} ms   (${done} requests)`);
  return done;
}

const run = Date.now().toString(36);
const ref = `bench_${run}`;
await call('POST', '/api/affiliates', { ref_code: ref });
const emails = [];
for (let i = 0; i < 200; i++) emails.push((await call('POST', '/api/mailboxes', { ref_code: ref })).json.mailbox.address);

console.log(`database: ${config.database.kind}, ${CONCURRENCY} in flight, up to ${SECONDS} s per figure`);
const created = await measure('POST /api/orders', async (n) => {
  const r = await call('POST', '/api/orders', { order_id: `${run}-${n}`, email: emails[n % emails.length], amount: 19.99, product: 'bench' });
  if (r.status !== 201) throw new Error(JSON.stringify(r.json));
});
const commissions = [];
const paid = await measure(
  'POST /api/orders/pay (attributed)',
  async (n) => {
    const r = await call('POST', '/api/orders/pay', { order_id: `${run}-${n}` });
    if (r.status !== 200) throw new Error(JSON.stringify(r.json));
    commissions[n] = r.json.commission.id; // by order index: the halves below are halves of the orders
  },
  created,
);
await measure('POST /api/orders/pay (replay)', async (n) => {
  const r = await call('POST', '/api/orders/pay', { order_id: `${run}-${n % paid}` });
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
});
// The second half of the orders is refunded while its commission is still pending (reduced, then voided);
// the first half is marked paid and then partly refunded, which books a clawback against the balance.
const half = Math.floor(commissions.length / 2);
// a build without the route answers the generic 404 `not_found`; with it, an unknown order is `order_not_found`
const canRefund = (await call('POST', '/api/orders/refund', { order_id: `${run}-missing` })).json.error?.code === 'order_not_found';
if (canRefund) {
  await measure(
    'POST /api/orders/refund (pending commission)',
    async (n) => {
      const r = await call('POST', '/api/orders/refund', { order_id: `${run}-${half + n}` });
      if (r.status !== 200) throw new Error(JSON.stringify(r.json));
    },
    commissions.length - half,
  );
} else {
  console.log(`${'POST /api/orders/refund'.padEnd(38)} (not in this build)`);
}
await measure(
  'POST /api/commissions/{id}/mark-paid',
  async (n) => {
    const r = await call('POST', `/api/commissions/${commissions[n]}/mark-paid`);
    if (r.status !== 200) throw new Error(JSON.stringify(r.json));
  },
  half,
);
if (canRefund) {
  await measure(
    'POST /api/orders/refund (clawback)',
    async (n) => {
      const r = await call('POST', '/api/orders/refund', { order_id: `${run}-${n}`, amount: 5 });
      if (r.status !== 200) throw new Error(JSON.stringify(r.json));
    },
    half,
  );
}
await measure('POST /api/withdrawals (0.01 each)', async () => {
  const r = await call('POST', '/api/withdrawals', { ref_code: ref, amount: 0.01 });
  if (r.status !== 201 && r.status !== 422) throw new Error(JSON.stringify(r.json));
});
await measure('GET /api/commissions (50, filtered)', async () => {
  const r = await call('GET', `/api/commissions?ref_code=${ref}&status=paid`);
  if (r.status !== 200) throw new Error(JSON.stringify(r.json));
});

await service.destroy();
rmSync(dir, { recursive: true, force: true });
