// Fraud review's cost on the hot paths (docs/api.md#fraud-review): attributed pay (create + pay of an order
// whose mailbox is attributed) and GET /go, with every rule off against every rule on (`hold`), side by side:
// two service processes, each on its own database, measured in alternating rounds so that drift hits both.
//   npm run build && node bench/fraud-rules.mjs               (two temporary SQLite files)
//   SVC_BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/fraud-rules.mjs   (two fresh databases there)
// Both services trust 127.0.0.1 as a proxy, and every request says it comes from another public address
// (X-Forwarded-For), spread over 65,536 /24 networks, so the click window and the network hashes do their
// work for every click and no network reaches the burst limit. The affiliate signed in to the portal from 20
// other networks, so the payment's sign-in check has rows to look at.
// Env: BENCH_SECONDS (default 4 per round), BENCH_ROUNDS (default 3), BENCH_PAY_CONCURRENCY (16),
// BENCH_GO_CONCURRENCY (64).
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cpuMs, serviceNodeFlags } from './cpu.mjs';

const DIST = resolve(import.meta.dirname, '../dist');
const KEY = 'bench_api_key_0123456789abcdef';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PAY_CONCURRENCY = Number(process.env.BENCH_PAY_CONCURRENCY ?? 16);
const GO_CONCURRENCY = Number(process.env.BENCH_GO_CONCURRENCY ?? 64);
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
const OFF = { self_referral: 'off', duplicate_payout: 'off', click_burst: 'off', refund_rate: 'off' };
const ON = { self_referral: 'hold', duplicate_payout: 'hold', click_burst: 'hold', refund_rate: 'hold' };

if (process.argv[2] === 'serve') await serve(process.argv[3], process.argv[4]);
else await main();

// ---------- child: one service, alone in its process ----------
async function serve(url, rules) {
  const { loadConfig } = await import(pathToFileURL(join(DIST, 'config.js')).href);
  const { createService } = await import(pathToFileURL(join(DIST, 'server.js')).href);
  const config = loadConfig({
    DATABASE_URL: url,
    SVC_API_KEY: KEY,
    SVC_ADMIN_PASSWORD: 'bench-password',
    PORT: '0',
    SMTP_PORT: 'off',
    LOG_LEVEL: 'silent',
    SVC_WORKER: 'off',
    SVC_TRUST_PROXY: '127.0.0.1',
  });
  const service = await createService(config);
  const address = await service.start();
  await service.ctx.services.settings.update({ fraud_rules: rules === 'on' ? ON : OFF });
  // the same program on both: an affiliate with an email at its own domain who signed in to the portal from
  // 20 networks none of the customers come from
  const { services } = service.ctx;
  await services.affiliates.create({ ref_code: 'bench', email: 'owner@bench-shop.example' }).catch(() => {});
  for (let n = 0; n < 20; n++) await services.fraud.signedIn('bench', await services.clicks.networkHash(`192.0.2.${n + 1}`));
  process.send({ port: Number(new URL(address).port) });
  process.on('disconnect', () => process.exit(0));
  process.on('message', async (m) => {
    if (m === 'stop') {
      await service.destroy();
      process.exit(0);
    }
  });
}

function start(url, rules) {
  return new Promise((done, reject) => {
    const child = fork(new URL(import.meta.url).pathname, ['serve', url, rules], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [...process.execArgv, ...serviceNodeFlags()] });
    child.once('message', (m) => done({ child, rules, ...m }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
  });
}

/** A public address per request: the /24 changes every request (65,536 of them), the host every 65,536. */
function publicAddress(i) {
  const net = i % 65_536;
  return `11.${net >> 8}.${net & 255}.${1 + ((i >> 16) % 250)}`;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-fraud-'));
  const pg = process.env.SVC_BENCH_POSTGRES_URL;
  const run = Date.now().toString(36);
  const made = [];
  const dbUrl = async (name) => {
    if (!pg) return `sqlite:${join(dir, `${name}.db`)}`;
    const { default: pgLib } = await import('pg');
    const admin = new pgLib.Client({ connectionString: pg });
    await admin.connect();
    const db = `svc_bench_fraud_${name}_${run}`;
    await admin.query(`create database ${db}`);
    await admin.end();
    made.push(db);
    const u = new URL(pg);
    u.pathname = `/${db}`;
    return u.toString();
  };
  const services = { off: await start(await dbUrl('off'), 'off'), on: await start(await dbUrl('on'), 'on') };
  const agent = new http.Agent({ keepAlive: true, maxSockets: Math.max(PAY_CONCURRENCY, GO_CONCURRENCY) });

  const call = (s, method, path, body, from = '198.51.100.7', headers = {}) => {
    const payload = body ? JSON.stringify(body) : undefined;
    return new Promise((done, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: s.port,
          method,
          path,
          agent,
          headers: { 'x-api-key': KEY, 'x-forwarded-for': from, 'user-agent': BROWSER, ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
        },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            done({ status: res.statusCode, json: text.startsWith('{') ? JSON.parse(text) : undefined });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  };

  // mailboxes made through the public route from public networks (their referrals carry a network)
  const ref = 'bench';
  const mailboxes = {};
  for (const s of Object.values(services)) {
    await call(s, 'PATCH', `/api/affiliates/${ref}`, { payout_details: { method: 'paypal', email: 'owner@bench-shop.example' } });
    mailboxes[s.rules] = [];
    for (let i = 0; i < 200; i++) {
      const res = await call(s, 'POST', '/mailboxes', { ref }, publicAddress(1_000 + i));
      mailboxes[s.rules].push(res.json.mailbox.address);
    }
  }

  let order = 0;
  const pay = async (s, i) => {
    const id = `o-${s.rules}-${run}-${order++}`;
    const email = mailboxes[s.rules][i % 200];
    const created = await call(s, 'POST', '/api/orders', { order_id: id, email, amount: 49.9, product: 'pro' });
    if (created.status !== 201) throw new Error(`order ${created.status}`);
    const paid = await call(s, 'POST', '/api/orders/pay', { order_id: id });
    if (paid.status !== 200 || !paid.json.commission) throw new Error(`pay ${paid.status}`);
    if (paid.json.commission.hold) throw new Error('a commission was held: the bench should raise no case');
  };
  let click = 0;
  const go = async (s) => {
    const res = await call(s, 'GET', `/go/${ref}`, undefined, publicAddress(click++));
    if (res.status !== 302) throw new Error(`go ${res.status}`);
  };

  const measure = async (s, concurrency, one) => {
    let i = 0;
    let done = 0;
    const cpu0 = cpuMs(s.child.pid);
    const t0 = performance.now();
    const until = t0 + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < until) {
          await one(s, i++);
          done++;
        }
      }),
    );
    const secs = (performance.now() - t0) / 1000;
    return { rate: done / secs, cpu: (cpuMs(s.child.pid) - cpu0) / done };
  };

  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const results = { pay: { off: [], on: [] }, go: { off: [], on: [] } };
  console.log(`fraud rules, ${pg ? 'PostgreSQL' : 'SQLite'}: ${ROUNDS} rounds of ${SECONDS} s each, off and on alternating (pay ${PAY_CONCURRENCY} in flight, /go ${GO_CONCURRENCY})`);
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, concurrency, one] of [['pay', PAY_CONCURRENCY, pay], ['go', GO_CONCURRENCY, go]]) {
      const order = r % 2 ? ['on', 'off'] : ['off', 'on'];
      for (const rules of order) {
        const m = await measure(services[rules], concurrency, one);
        results[name][rules].push(m);
        console.log(`  round ${r + 1} ${name.padEnd(3)} rules ${rules.padEnd(3)} ${m.rate.toFixed(0).padStart(6)} req/s   service CPU ${m.cpu.toFixed(3)} ms/req`);
      }
    }
  }
  for (const name of ['pay', 'go']) {
    const ratios = results[name].on.map((m, k) => m.rate / results[name].off[k].rate);
    const cpu = results[name].on.map((m, k) => m.cpu / results[name].off[k].cpu);
    console.log(
      `${name === 'pay' ? 'attributed pay' : '/go'}: rules on / off ${median(ratios).toFixed(2)} (rounds ${ratios.map((x) => x.toFixed(2)).join(', ')}; target >= 0.90); service CPU per request on / off ${median(cpu).toFixed(2)}`,
    );
  }
  const cases = await call(services.on, 'GET', '/api/fraud/cases');
  console.log(`cases opened by the run with every rule on: ${cases.json.items.length} (none expected)`);

  for (const s of Object.values(services)) {
    s.child.send('stop');
    await new Promise((done) => s.child.once('exit', done));
  }
  agent.destroy();
  rmSync(dir, { recursive: true, force: true });
  if (pg) {
    const { default: pgLib } = await import('pg');
    const admin = new pgLib.Client({ connectionString: pg });
    await admin.connect();
    for (const db of made) await admin.query(`drop database if exists ${db} with (force)`);
    await admin.end();
  }
}
