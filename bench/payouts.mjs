// Payout batches (issue 26, docs/api.md#payouts): a batch of BENCH_ROWS (10,000) requested withdrawals is made and
// its file streamed, over real HTTP, for PayPal (CSV) and SEPA (pain.001 XML); the target is under 5 s for
// both steps on SQLite with flat memory. The service runs as its own process (`node dist/main.js`) so its
// RSS is measured alone (sampled from /proc/<pid>/status every 20 ms); the bench seeds the withdrawals with
// one INSERT … SELECT per method straight into the database. Also printed: the batch's mark-paid (every
// withdrawal paid in one transaction, one event each), which has no target.
//   npm run build && node bench/payouts.mjs          (a temporary SQLite file)
//   BENCH_ROWS=50000 node bench/payouts.mjs          (a bigger batch: the peak RSS must not follow)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pino from 'pino';
import { loadConfig } from '../dist/config.js';
import { createService } from '../dist/server.js';
import { serviceNodeFlags } from './cpu.mjs';

const KEY = 'bench_api_key_0123456789abcdef';
const ROWS = Number(process.env.BENCH_ROWS ?? 10_000);
const AFFILIATES = 100;
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-payouts-'));
const url = `sqlite:${join(dir, 'bench.db')}`;
const env = { DATABASE_URL: url, SVC_API_KEY: KEY, SVC_ADMIN_PASSWORD: 'bench-password', LOG_LEVEL: 'silent', SVC_WORKER: 'off', SMTP_PORT: 'off' };

// ---- seed (in this process: migrations, then a few statements) ----------------------------------------
{
  const t0 = performance.now();
  const config = loadConfig({ ...env, PORT: '0' });
  const service = await createService(config, { logger: pino({ level: 'silent' }) });
  const db = service.ctx.db;
  const now = Date.now();
  for (let a = 0; a < AFFILIATES; a++) await sql`insert into affiliates (ref_code, status, created_at, updated_at) values (${`aff${a}`}, 'active', ${now}, ${now})`.execute(db);
  // euros, so that SEPA may pay; a debtor for the SEPA file
  for (const [key, value] of [
    ['currency', 'EUR'],
    ['sepa_debtor_name', 'Bench Société GmbH'],
    ['sepa_debtor_iban', 'FR1420041010050500013M02606'],
  ]) {
    await sql`insert into settings (key, value, updated_at) values (${key}, ${JSON.stringify(value)}, ${now})`.execute(db);
  }
  const paypal = JSON.stringify({ method: 'paypal', email: 'bench@example.com' });
  const sepa = JSON.stringify({ method: 'sepa', iban: 'DE89370400440532013000', account_holder: 'Zoë Müller-Łukasz' });
  for (const [method, payout, offset] of [
    ['paypal', paypal, 0],
    ['sepa', sepa, ROWS],
  ]) {
    await sql`
      with recursive s(i) as (select 1 union all select i + 1 from s where i < ${ROWS})
      insert into withdrawals (id, ref_code, amount_cents, status, created_at, updated_at, payout, payout_method)
      select 'wd_bench_' || (10000000 + ${offset} + i), 'aff' || (i % ${AFFILIATES}), 100 + i % 9901, 'requested',
             cast(${now} as bigint) + i, cast(${now} as bigint) + i, ${payout}, ${method}
      from s`.execute(db);
  }
  await service.destroy();
  console.log(`database: sqlite; seeded ${ROWS.toLocaleString('en')} requested withdrawals per method (paypal, sepa) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

// ---- the service, alone in its process ----------------------------------------------------------------
const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const base = `http://127.0.0.1:${port}`;
// BENCH_SERVICE_ARGS (serviceNodeFlags), e.g. '--max-old-space-size=64': is the peak live data or garbage not yet collected?
const child = spawn(process.execPath, [...serviceNodeFlags(), 'dist/main.js'], { env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(port), SVC_BASE_URL: base }, stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((resolve, reject) => {
  child.stdout.on('data', (d) => d.toString().includes('listening on') && resolve());
  child.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
});

// the service goes with the bench, also when a check throws
process.on('exit', () => child.kill('SIGTERM'));
const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0);
const mb = (k) => `${(k / 1024).toFixed(1)} MB`;

/** Runs `work` while sampling the service's RSS; answers its result, the seconds and the peak RSS (and of its anonymous part: heap and malloc, not mapped files). */
async function measured(work) {
  const start = kb('VmRSS');
  const startAnon = kb('RssAnon');
  let peak = start;
  let peakAnon = startAnon;
  const sample = () => {
    peak = Math.max(peak, kb('VmRSS'));
    peakAnon = Math.max(peakAnon, kb('RssAnon'));
  };
  const sampler = setInterval(sample, 20);
  const t0 = performance.now();
  const result = await work();
  const secs = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  sample();
  // growth: how far this step's peak rose over the RSS it started from (RSS seldom shrinks, so the steps' peaks add up)
  return { result, secs, peak, peakAnon, growth: peak - start, growthAnon: peakAnon - startAnon };
}

async function call(method, path, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': KEY, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json();
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** Streams a file; counts bytes, lines and the SEPA transactions. */
async function download(path) {
  const res = await fetch(`${base}${path}`, { headers: { 'x-api-key': KEY } });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  let bytes = 0;
  let txs = 0;
  // a tag split between two chunks is counted once: the carry is shorter than the tag
  const tag = '<CdtTrfTxInf>';
  const decoder = new TextDecoder();
  let carry = '';
  for await (const chunk of res.body) {
    bytes += chunk.length;
    const text = carry + decoder.decode(chunk, { stream: true });
    txs += text.split(tag).length - 1;
    carry = text.slice(-(tag.length - 1));
  }
  return { bytes, txs };
}

await new Promise((r) => setTimeout(r, 300));
const idle = kb('VmRSS');
const idleAnon = kb('RssAnon');
console.log(`service idle RSS: ${mb(idle)} (anonymous ${mb(idleAnon)})`);

const batches = [];
for (const method of ['paypal', 'sepa']) {
  const made = await measured(() => call('POST', '/api/payout-batches', { method }));
  const batch = made.result.batch;
  if (batch.count !== ROWS) throw new Error(`${method}: batch of ${batch.count}, expected ${ROWS}`);
  const file = await measured(() => download(`/api/payout-batches/${batch.id}/file`));
  const total = made.secs + file.secs;
  console.log(
    `${method.padEnd(6)} batch of ${batch.count.toLocaleString('en')} (${batch.total} ${batch.currency}) made in ${made.secs.toFixed(2)} s, file ${(file.result.bytes / 1048576).toFixed(1)} MB streamed in ${file.secs.toFixed(2)} s${method === 'sepa' ? ` (${file.result.txs.toLocaleString('en')} CdtTrfTxInf)` : ''}: ${total.toFixed(2)} s in all ${total < 5 ? '(under 5 s)' : '(OVER 5 s)'}; peak RSS ${mb(Math.max(made.peak, file.peak))} (+${mb(Math.max(made.peak, file.peak) - idle)} over idle; making rose +${mb(made.growth)} over its start, anonymous +${mb(made.growthAnon)}; the file +${mb(file.growth)}, anonymous +${mb(file.growthAnon)})`,
  );
  if (method === 'sepa' && file.result.txs !== ROWS) throw new Error(`sepa file has ${file.result.txs} transactions`);
  batches.push(batch);
}
// after the files, so that their peaks are not measured on top of this one's
for (const batch of batches) {
  const paid = await measured(() => call('POST', `/api/payout-batches/${batch.id}/mark-paid`));
  console.log(`${batch.method.padEnd(6)} batch marked paid (${ROWS.toLocaleString('en')} withdrawals, one transaction, one withdrawal.paid each) in ${paid.secs.toFixed(2)} s; peak RSS ${mb(paid.peak)}`);
}
console.log(`service peak RSS over the whole run (VmHWM): ${mb(kb('VmHWM'))}`);

child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
rmSync(dir, { recursive: true, force: true });
