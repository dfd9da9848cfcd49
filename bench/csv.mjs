// CSV export of 1,000,000 commissions (issue 13): rows/s over real HTTP and the service's resident memory,
// which must stay flat whatever the number of rows. The service runs as its own process (`node dist/main.js`)
// so its RSS is measured alone (sampled from /proc/<pid>/status every 20 ms); the bench seeds the rows with
// one INSERT … SELECT straight into the database, then streams:
//   1. GET /api/commissions.csv?ref_code=small   100,000 rows
//   2. GET /api/commissions.csv                  1,000,000 rows
//   3. the same, with a client that hangs up after 1 MB: the service must stop reading (its CPU goes idle)
// and prints peak RSS for each next to the idle baseline, measured in the same run.
//   npm run build && node bench/csv.mjs                       (a temporary SQLite file)
//   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/svc_dev_csv node bench/csv.mjs   (a new schema there, dropped after)
//   BENCH_ROWS=200000 node bench/csv.mjs                      (a smaller run; the filtered part is a tenth)
//   NODE_OPTIONS=--max-old-space-size=48 node bench/csv.mjs   (the service's heap capped: a file built in memory would not fit)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import pino from 'pino';
import { loadConfig } from '../dist/config.js';
import { createService } from '../dist/server.js';

const KEY = 'bench_api_key_0123456789abcdef';
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const SMALL = Math.floor(ROWS / 10);
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-csv-'));
const pgBase = process.env.BENCH_POSTGRES_URL;
const schema = `bench_csv_${Date.now().toString(36)}`;

let url = `sqlite:${join(dir, 'bench.db')}`;
if (pgBase) {
  const client = new pg.Client({ connectionString: pgBase });
  await client.connect();
  await client.query(`create schema "${schema}"`);
  await client.end();
  url = `${pgBase}${pgBase.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
}
const env = { DATABASE_URL: url, SVC_API_KEY: KEY, SVC_ADMIN_PASSWORD: 'bench-password', LOG_LEVEL: 'silent', SVC_WORKER: 'off', SMTP_PORT: 'off' };

// ---- seed (in this process: migrations, then one statement) -------------------------------------------
{
  const t0 = performance.now();
  const config = loadConfig({ ...env, PORT: '0' });
  const service = await createService(config, { logger: pino({ level: 'silent' }) });
  const db = service.ctx.db;
  const now = Date.now();
  for (const ref of ['small', 'big']) await sql`insert into affiliates (ref_code, status, created_at, updated_at) values (${ref}, 'active', ${now}, ${now})`.execute(db);
  // i = 1..ROWS; seven rows per millisecond, so pages also cut through rows with the same created_at.
  // Text that a spreadsheet would evaluate, and a comma, in every tenth order id: the cells are quoted and prefixed.
  await sql`
    with recursive s(i) as (select 1 union all select i + 1 from s where i < ${ROWS})
    insert into commissions (id, order_id, ref_code, amount_cents, rate_bp, commission_cents, status, created_at, updated_at)
    select 'com_bench_' || (10000000 + i),
           case when i % 10 = 0 then '=ord,' || i else 'ord-' || i end,
           case when i <= ${SMALL} then 'small' else 'big' end,
           1000 + i % 5000, 1000, 100 + (i % 5000) / 10,
           case i % 4 when 0 then 'pending' when 1 then 'approved' when 2 then 'paid' else 'void' end,
           cast(${now - ROWS} as bigint) + i / 7, cast(${now} as bigint)
    from s`.execute(db);
  await service.destroy();
  console.log(`database: ${config.database.kind}; seeded ${ROWS.toLocaleString('en')} commissions in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

// ---- the service, alone in its process ----------------------------------------------------------------
const port = await new Promise((resolve) => {
  const s = createServer().listen(0, '127.0.0.1', () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const base = `http://127.0.0.1:${port}`;
const child = spawn(process.execPath, ['dist/main.js'], { env: { ...process.env, ...env, HOST: '127.0.0.1', PORT: String(port), SVC_BASE_URL: base }, stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((resolve, reject) => {
  child.stdout.on('data', (d) => d.toString().includes('listening on') && resolve());
  child.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
});

const status = () => readFileSync(`/proc/${child.pid}/status`, 'utf8');
const kb = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status())?.[1] ?? 0);
const cpuTicks = () => {
  const f = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(f[11]) + Number(f[12]); // utime + stime
};
const mb = (k) => `${(k / 1024).toFixed(1)} MB`;

/** Streams one export; counts records and bytes; samples the service's RSS while it runs. */
async function stream(path, stopAfterBytes = Number.POSITIVE_INFINITY) {
  let peak = kb('VmRSS');
  let lines = 0;
  // peak RSS per tenth of the rows streamed so far (by SMALL rows): flat memory means no upward trend
  const tenths = [];
  const sampler = setInterval(() => {
    const rss = kb('VmRSS');
    peak = Math.max(peak, rss);
    const t = Math.floor(lines / SMALL);
    tenths[t] = Math.max(tenths[t] ?? 0, rss);
  }, 20);
  const controller = new AbortController();
  const t0 = performance.now();
  const res = await fetch(`${base}${path}`, { headers: { 'x-api-key': KEY }, signal: controller.signal });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  let bytes = 0;
  try {
    for await (const chunk of res.body) {
      bytes += chunk.length;
      for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
      if (bytes >= stopAfterBytes) {
        controller.abort();
        break;
      }
    }
  } catch (err) {
    if (err.name !== 'AbortError') throw err;
  }
  const secs = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, kb('VmRSS'));
  return { rows: lines - 1, bytes, secs, peak, tenths };
}

// warm up (JIT, pools, first page), then the idle baseline
await stream('/api/commissions.csv?ref_code=small&status=paid');
await new Promise((r) => setTimeout(r, 500));
const idle = kb('VmRSS');
console.log(`service idle RSS after a warm-up export: ${mb(idle)}`);

// baseline in the same run: the same 100k rows read as a client pages the JSON list (500 a page)
{
  const t0 = performance.now();
  let rows = 0;
  let cursor = '';
  do {
    const res = await fetch(`${base}/api/commissions?ref_code=small&limit=500${cursor ? `&cursor=${cursor}` : ''}`, { headers: { 'x-api-key': KEY } });
    const page = await res.json();
    rows += page.items.length;
    cursor = page.next_cursor ?? '';
  } while (cursor);
  const secs = (performance.now() - t0) / 1000;
  console.log(`baseline: JSON list, ${rows.toLocaleString('en')} rows in pages of 500 ${Math.round(rows / secs).toLocaleString('en').padStart(9)} rows/s  ${secs.toFixed(1).padStart(5)} s`);
}

const results = [];
for (const [label, path, expected] of [
  [`${SMALL.toLocaleString('en')} rows (ref_code=small)`, '/api/commissions.csv?ref_code=small', SMALL],
  [`${ROWS.toLocaleString('en')} rows (no filter)`, '/api/commissions.csv', ROWS],
]) {
  const r = await stream(path);
  if (r.rows !== expected) throw new Error(`${path}: ${r.rows} rows, expected ${expected}`);
  results.push(r);
  console.log(
    `${label.padEnd(30)} ${Math.round(r.rows / r.secs).toLocaleString('en').padStart(9)} rows/s  ${(r.bytes / r.secs / 1048576).toFixed(1).padStart(5)} MB/s  ${r.secs.toFixed(1).padStart(5)} s  ${(r.bytes / 1048576).toFixed(0)} MB   peak RSS ${mb(r.peak)} (+${mb(r.peak - idle)} over idle)`,
  );
}
const [small, big] = results;
console.log(`peak RSS per ${SMALL.toLocaleString('en')} rows of the ${ROWS.toLocaleString('en')}-row export: ${big.tenths.map((k) => (k / 1024).toFixed(0)).join(', ')} MB`);
console.log(`memory: peak RSS at ${ROWS / SMALL}x the rows is ${((big.peak / small.peak) * 100).toFixed(0)} % of the smaller export's (${mb(small.peak)} -> ${mb(big.peak)})`);

// a client that hangs up: the service stops reading pages (no CPU spent after the disconnect)
const cut = await stream('/api/commissions.csv', 1024 * 1024);
await new Promise((r) => setTimeout(r, 300));
const before = cpuTicks();
await new Promise((r) => setTimeout(r, 1000));
const spent = cpuTicks() - before;
console.log(`disconnect after ${(cut.bytes / 1048576).toFixed(1)} MB (${cut.rows.toLocaleString('en')} rows): service CPU in the next second ${spent * 10} ms (ticks of 10 ms)`);
console.log(`service peak RSS over the whole run (VmHWM): ${mb(kb('VmHWM'))}`);

child.kill('SIGTERM');
await new Promise((r) => child.once('exit', r));
rmSync(dir, { recursive: true, force: true });
if (pgBase) {
  const client = new pg.Client({ connectionString: pgBase });
  await client.connect();
  await client.query(`drop schema "${schema}" cascade`);
  await client.end();
}
