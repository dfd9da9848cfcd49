// Orders from Stripe webhooks vs the API: Stripe `invoice.paid` events (signed, each a new attributed
// order with its commission) for ONE hot affiliate, against POST /api/orders + /api/orders/pay of the same
// kind of order, on the same database in the same run, alternating, 16 requests in flight over real HTTP.
// Prints orders/s of each and the ratio (target >= 0.8). Runs against the built dist/.
//   npm run build && node bench/integrations.mjs          (a temporary SQLite file)
//   BENCH_DATABASE_URL='postgres://…?options=-c%20search_path%3D<empty schema>' node bench/integrations.mjs
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Stripe from 'stripe';

const DIST = resolve(import.meta.dirname, '../dist');
const KEY = 'bench_api_key_0123456789abcdef';
const SECRET = 'whsec_bench_0123456789abcdefghij';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 16;

if (process.argv[2] === 'serve') {
  const { loadConfig } = await import(pathToFileURL(join(DIST, 'config.js')).href);
  const { createService } = await import(pathToFileURL(join(DIST, 'server.js')).href);
  const config = loadConfig({ DATABASE_URL: process.argv[3], SVC_API_KEY: KEY, SVC_ADMIN_PASSWORD: 'bench-password', PORT: '0', SMTP_PORT: 'off', LOG_LEVEL: 'silent', SVC_WORKER: 'off' });
  const service = await createService(config);
  const address = await service.start();
  process.send({ port: Number(new URL(address).port), kind: config.database.kind });
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (m) => {
    if (m === 'stop') {
      await service.destroy();
      process.exit(0);
    }
  });
} else {
  await main();
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-integrations-'));
  const url = process.env.BENCH_DATABASE_URL ?? `sqlite:${join(dir, 'bench.db')}`;
  const child = fork(new URL(import.meta.url).pathname, ['serve', url], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const { port, kind } = await new Promise((ok, fail) => {
    child.once('message', ok);
    child.once('exit', (code) => fail(new Error(`service exited with ${code}`)));
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const call = (method, path, body, headers = {}) =>
    new Promise((ok, fail) => {
      const payload = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
      const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => ok({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      });
      req.on('error', fail);
      req.end(payload);
    });
  const api = (method, path, body) => call(method, path, body, { 'x-api-key': KEY });
  const must = (res, status, what) => {
    if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.body}`);
    return res;
  };

  // setup: the Stripe secret (through the admin API), one hot affiliate and its buyer's mailbox
  const login = must(await call('POST', '/admin/api/login', { username: 'admin', password: 'bench-password' }), 200, 'login');
  const cookie = String(login.headers['set-cookie']).split(';')[0];
  const csrf = JSON.parse(login.body).csrf_token;
  must(await call('PATCH', '/admin/api/settings', { stripe_webhook_secret: SECRET }, { cookie, 'x-csrf-token': csrf }), 200, 'settings');
  must(await api('POST', '/api/affiliates', { ref_code: 'hot' }), 201, 'affiliate');
  must(await api('POST', '/api/mailboxes', { name: 'hot-buyer', ref: 'hot' }), 201, 'mailbox');

  let seq = 0;
  const viaStripe = async () => {
    const n = ++seq;
    const event = {
      id: `evt_bench_${n}`,
      object: 'event',
      type: 'invoice.paid',
      data: { object: { id: `in_bench_${n}`, object: 'invoice', amount_paid: 1900, currency: 'usd', customer_email: 'hot-buyer@svc.test', lines: { data: [{ description: 'Team plan' }] } } },
    };
    const payload = JSON.stringify(event);
    const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET });
    const res = await call('POST', '/integrations/stripe', payload, { 'stripe-signature': signature });
    if (res.status !== 200 || !res.body.includes('"outcome":"applied"')) throw new Error(`stripe: ${res.status} ${res.body}`);
  };
  const viaApi = async () => {
    const id = `api_bench_${++seq}`;
    must(await api('POST', '/api/orders', { order_id: id, email: 'hot-buyer@svc.test', amount: 19, product: 'Team plan' }), 201, 'order');
    const paid = must(await api('POST', '/api/orders/pay', { order_id: id }), 200, 'pay');
    if (!paid.body.includes('"commission":{')) throw new Error(`no commission: ${paid.body}`);
  };
  const run = async (one) => {
    const until = performance.now() + SECONDS * 1000;
    let done = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < until) {
          await one();
          done++;
        }
      }),
    );
    return done / SECONDS;
  };

  await run(viaApi); // warm-up, not counted
  const stripe = [];
  const baseline = [];
  for (let r = 0; r < ROUNDS; r++) {
    baseline.push(await run(viaApi));
    stripe.push(await run(viaStripe));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const s = median(stripe);
  const b = median(baseline);
  console.log(`database: ${kind}, ${CONCURRENCY} in flight, ${ROUNDS} alternating rounds of ${SECONDS} s, one hot affiliate`);
  console.log(`POST /api/orders + /pay: ${baseline.map((x) => x.toFixed(0)).join(', ')} orders/s (median ${b.toFixed(0)})`);
  console.log(`Stripe invoice.paid:     ${stripe.map((x) => x.toFixed(0)).join(', ')} orders/s (median ${s.toFixed(0)})`);
  console.log(`ratio stripe / api: ${(s / b).toFixed(2)} (target >= 0.8)`);
  child.send('stop');
  await new Promise((ok) => child.once('exit', ok));
  agent.destroy();
  rmSync(dir, { recursive: true, force: true });
}
