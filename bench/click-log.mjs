// Benchmark of the click log on PostgreSQL (docs/api.md#click-log, docs/scaling.md); run `npm run build` first:
//   SVC_BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/click-log.mjs
// (a) GET /go/<code> on two services side by side, each on a database of its own: one writing one click
//     batch at a time (SVC_CLICK_BATCHES=1), one with the default batches in flight. Alternating rounds of
//     the same keep-alive load; prints both rates, their ratio (target >= 2) and that every answered click
//     is stored and counted.
// (b) 10,000,000 clicks over 120 days loaded into the day partitions (and their daily counters): the
//     summary for all affiliates (target < 50 ms), then a retention run removing the 30 oldest days
//     (target < 5 s) while /go keeps a load going, with /go's latency p99 during the run (target < 20 ms).
// BENCH_PG_DELAY_MS=1 puts a proxy between the services and PostgreSQL that holds every packet that long each
// way (a database on another machine); 0 (default) connects directly.
// BENCH_BASE_DIST=/path/to/other/dist runs the first service from that build (the one before).
// Env: BENCH_SECONDS (default 4 per round), BENCH_ROUNDS (default 3), BENCH_CONCURRENCY (default 64),
// BENCH_CLICKS (default 10000000), BENCH_SKIP_LOG=1 to run only (a).
import { fork } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cpuMs, postgresCpu, postgresCpuSince, serviceNodeFlags } from './cpu.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const CLICKS = Number(process.env.BENCH_CLICKS ?? 10_000_000);
const DAYS = 120;
// today and the 89 whole days before it are kept: the 30 oldest of the 120 days go
const RETENTION_DAYS = 89;
const AFFILIATES = 200;
const API_KEY = 'bench_api_key_0123456789abcdef';
const DAY_MS = 86_400_000;
const role = process.argv[2];


// ---------- child: a TCP proxy to PostgreSQL that delays every chunk each way ----------
async function runProxy(target, delayMs) {
  const { hostname, port } = new URL(target);
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port || 5432), hostname);
    const pipe = (from, to) => {
      from.on('data', (chunk) => setTimeout(() => to.write(chunk), delayMs));
      from.on('close', () => setTimeout(() => to.destroy(), delayMs));
      from.on('error', () => {});
    };
    pipe(client, upstream);
    pipe(upstream, client);
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('message', (m) => m === 'stop' && process.exit(0));
}

// ---------- child: the real service ----------
async function runService(databaseUrl, batches, dist = '../dist') {
  const { loadConfig } = await import(`${dist}/config.js`);
  const { createService } = await import(`${dist}/server.js`);
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    SVC_API_KEY: API_KEY,
    SVC_ADMIN_PASSWORD: 'bench-admin-password',
    PORT: '0',
    SMTP_PORT: 'off',
    LOG_LEVEL: 'silent',
    SVC_WORKER: 'off',
    ...(batches === 'default' ? {} : { SVC_CLICK_BATCHES: batches }),
  });
  const service = await createService(config);
  const address = await service.start();
  await service.ctx.services.affiliates.create({ ref_code: 'bench' }).catch(() => {});
  process.send({ port: Number(new URL(address).port), batches: config.clickBatchesInFlight });
  process.on('message', async (m) => {
    if (m === 'stop') {
      await service.destroy();
      process.exit(0);
    }
    if (m?.retention) {
      await service.ctx.services.settings.update({ click_retention_days: m.retention });
      const t0 = performance.now();
      const result = await service.ctx.services.clickLog.run();
      process.send({ retention: result, ms: performance.now() - t0 });
    }
  });
}

function startChild(args) {
  return new Promise((resolve, reject) => {
    const execArgv = args[0] === 'proxy' ? process.execArgv : [...process.execArgv, ...serviceNodeFlags()];
    const child = fork(new URL(import.meta.url).pathname, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
    child.once('message', (m) => resolve({ child, port: m.port, batches: m.batches }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`child ${args[0]} exited with ${code}`)));
  });
}

function stopChild(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', resolve);
    child.send('stop');
  });
}

/** Keeps `concurrency` keep-alive requests to /go/<code> in flight until `until()` is true; counts 302s and keeps every latency. */
async function load(port, concurrency, until) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let done = 0;
  let failed = 0;
  const latencies = [];
  const one = () =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const req = http.request({ host: '127.0.0.1', port, path: '/go/bench', agent, headers: { 'user-agent': 'bench/1.0' } }, (res) => {
        res.resume();
        res.on('end', () => {
          latencies.push(performance.now() - t0);
          if (res.statusCode === 302) done++;
          else failed++;
          resolve();
        });
      });
      req.on('error', () => {
        failed++;
        resolve();
      });
      req.end();
    });
  const worker = async () => {
    while (!until()) await one();
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  return { done, failed, rps: done / elapsed, latencies };
}

const forSeconds = (s) => {
  const deadline = performance.now() + s * 1000;
  return () => performance.now() >= deadline;
};
const percentile = (xs, p) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
};

async function main() {
  const base = process.env.SVC_BENCH_POSTGRES_URL ?? process.env.SVC_TEST_POSTGRES_URL;
  if (!base) {
    console.log('click-log bench: SKIPPED, set SVC_BENCH_POSTGRES_URL (or SVC_TEST_POSTGRES_URL) to a PostgreSQL it may create databases on');
    return;
  }
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  const names = [`svc_bench_clicks_one_${process.pid}`, `svc_bench_clicks_many_${process.pid}`];
  const urlOf = (name) => {
    const u = new URL(base);
    u.pathname = `/${name}`;
    return u.toString();
  };
  for (const name of names) await admin.query(`create database ${name}`);
  const children = [];
  try {
    const delay = Number(process.env.BENCH_PG_DELAY_MS ?? 0);
    let serviceUrl = urlOf;
    if (delay > 0) {
      const proxy = await startChild(['proxy', base, String(delay)]);
      children.push(proxy.child);
      serviceUrl = (name) => {
        const u = new URL(urlOf(name));
        u.host = `127.0.0.1:${proxy.port}`;
        return u.toString();
      };
    }
    const where = delay > 0 ? `behind a proxy holding each packet ${delay} ms each way` : 'on this machine';
    console.log(`(a) /go on PostgreSQL ${where}: ${CONCURRENCY} concurrent keep-alive requests; ${ROUNDS} alternating rounds of ${SECONDS}s per service`);
    // BENCH_BASE_DIST: the one-batch service is another build (the commit before batches in flight), not this one with SVC_CLICK_BATCHES=1
    const baseDist = process.env.BENCH_BASE_DIST ? pathToFileURL(resolve(process.env.BENCH_BASE_DIST)).href : undefined;
    const one = await startChild(['service', serviceUrl(names[0]), process.env.BENCH_ONE_BATCHES ?? '1', ...(baseDist ? [baseDist] : [])]);
    children.push(one.child);
    const many = await startChild(['service', serviceUrl(names[1]), process.env.BENCH_MANY_BATCHES ?? 'default']);
    children.push(many.child);
    const answered = [0, 0];
    answered[0] += (await load(one.port, CONCURRENCY, forSeconds(1))).done;
    answered[1] += (await load(many.port, CONCURRENCY, forSeconds(1))).done;
    const rounds = [[], []];
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, svc] of [one, many].entries()) {
        const pg0 = postgresCpu();
        const own0 = cpuMs(svc.child.pid);
        const res = await load(svc.port, CONCURRENCY, forSeconds(SECONDS));
        res.serviceUs = ((cpuMs(svc.child.pid) - own0) * 1000) / Math.max(1, res.done);
        res.postgresUs = (postgresCpuSince(pg0) * 1000) / Math.max(1, res.done);
        answered[i] += res.done;
        rounds[i].push(res);
      }
    }
    const best = (rs) => Math.max(...rs.map((r) => r.rps));
    for (const [i, svc] of [one, many].entries()) {
      const db = new pg.Client({ connectionString: urlOf(names[i]) });
      await db.connect();
      const stored = Number((await db.query("select count(*) as n from clicks where ref_code = 'bench'")).rows[0].n);
      const counted = Number((await db.query("select coalesce(sum(clicks), 0) as n from daily_stats where ref_code = 'bench'")).rows[0].n);
      await db.end();
      const label = svc.batches === 1 || svc.batches === undefined ? (i === 0 && baseDist ? 'base build          ' : 'one batch at a time ') : `${svc.batches} batches in flight `;
      console.log(`  ${label}: best ${best(rounds[i]).toFixed(0)} req/s; rounds ${rounds[i].map((r) => r.rps.toFixed(0)).join(', ')}; p99 ${percentile(rounds[i].flatMap((r) => r.latencies), 0.99).toFixed(1)} ms`);
      console.log(`  ${' '.repeat(label.length)}  CPU per click: service ${rounds[i].map((r) => r.serviceUs.toFixed(0)).join(', ')} µs, PostgreSQL ${rounds[i].map((r) => r.postgresUs.toFixed(0)).join(', ')} µs`);
      console.log(`  ${' '.repeat(label.length)}  clicks stored ${stored} of ${answered[i]} answered (daily_stats says ${counted}) ${stored === answered[i] && counted === answered[i] ? 'OK' : 'MISMATCH'}`);
    }
    const ratios = rounds[0].map((r, i) => (rounds[1][i].rps / r.rps).toFixed(2));
    console.log(`  ratio              : ${(best(rounds[1]) / best(rounds[0])).toFixed(2)} best/best; per round ${ratios.join(', ')} (target >= 2)`);
    for (const child of children) await stopChild(child);
    children.length = 0;

    if (process.env.BENCH_SKIP_LOG === '1') return;
    // ---------- (b) a large click log ----------
    const url = urlOf(names[1]);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    const first = today - (DAYS - 1) * DAY_MS;
    console.log(`(b) loading ${CLICKS.toLocaleString('en')} clicks over ${DAYS} days for ${AFFILIATES} affiliates into the day partitions ...`);
    const t0 = performance.now();
    const { openDatabase } = await import('../dist/platform/db/database.js');
    const { parseDatabaseUrl } = await import('../dist/config.js');
    const { createDayPartitions } = await import('../dist/platform/db/day-partitions.js');
    const handle = openDatabase(parseDatabaseUrl(url));
    await handle.db.transaction().execute((tx) =>
      createDayPartitions(
        tx,
        'clicks',
        Array.from({ length: DAYS }, (_, i) => first + i * DAY_MS),
      ),
    );
    await handle.destroy();
    await db.query(`insert into affiliates (ref_code, status, created_at, updated_at) select 'aff_' || g, 'active', ${first}, ${first} from generate_series(0, ${AFFILIATES - 1}) g on conflict do nothing`);
    // in day order, so each partition is written once; 4 statements so none holds a transaction too long
    const parts = 4;
    for (let p = 0; p < parts; p++) {
      const from = Math.floor((CLICKS * p) / parts);
      const to = Math.floor((CLICKS * (p + 1)) / parts) - 1;
      await db.query(`insert into clicks (ref_code, created_at, ip_hash, user_agent, referer)
        select 'aff_' || (g % ${AFFILIATES}), ${first} + floor(g::float8 * ${DAYS * DAY_MS} / ${CLICKS})::bigint, md5(g::text),
          'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36', 'https://blog.example/post'
        from generate_series(${from}, ${to}) g`);
    }
    await db.query(`insert into daily_stats (ref_code, day, stripe, clicks)
      select ref_code, to_char(to_timestamp(created_at / 1000) at time zone 'UTC', 'YYYY-MM-DD'), 0, count(*) from clicks where ref_code like 'aff\\_%' group by 1, 2
      on conflict (ref_code, day, stripe) do update set clicks = daily_stats.clicks + excluded.clicks`);
    await db.query(`insert into affiliate_stats (ref_code, stripe, clicks)
      select ref_code, 0, sum(clicks) from daily_stats where ref_code like 'aff\\_%' group by 1
      on conflict (ref_code, stripe) do update set clicks = affiliate_stats.clicks + excluded.clicks`);
    await db.query('analyze');
    const size = (await db.query("select sum(pg_total_relation_size(c.oid)) as bytes from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'clicks'::regclass")).rows[0].bytes;
    console.log(`  loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s; the click partitions take ${(Number(size) / 1024 ** 3).toFixed(2)} GiB (${(Number(size) / CLICKS).toFixed(0)} bytes per click, indexes included)`);

    const svc = await startChild(['service', url, 'default']);
    children.push(svc.child);
    const times = [];
    let body;
    for (let i = 0; i < 55; i++) {
      const s = performance.now();
      const res = await fetch(`http://127.0.0.1:${svc.port}/api/affiliate/summary`, { headers: { 'x-api-key': API_KEY } });
      body = await res.json();
      if (i >= 5) times.push(performance.now() - s);
    }
    console.log(`  summary, all affiliates, all time: median ${percentile(times, 0.5).toFixed(1)} ms, p95 ${percentile(times, 0.95).toFixed(1)} ms (50 calls; ${body.summary.length} rows; totals clicks ${body.totals.clicks}) (target < 50 ms)`);

    const quiet = await load(svc.port, 16, forSeconds(SECONDS));
    console.log(`  /go alone, 16 concurrent: ${quiet.rps.toFixed(0)} req/s, p99 ${percentile(quiet.latencies, 0.99).toFixed(1)} ms`);
    let finished = false;
    const retention = new Promise((resolve) => svc.child.once('message', resolve));
    const during = load(svc.port, 16, () => finished);
    await new Promise((r) => setTimeout(r, 500));
    svc.child.send({ retention: RETENTION_DAYS });
    const report = await retention;
    finished = true;
    const loaded = await during;
    const left = Number((await db.query('select count(*) as n from clicks')).rows[0].n);
    console.log(`  retention at click_retention_days ${RETENTION_DAYS} (today and the ${RETENTION_DAYS} days before it kept): ${report.ms.toFixed(0)} ms, removed ${report.retention.removed_clicks.toLocaleString('en')} clicks in ${report.retention.removed_days} day partitions (target < 5 s); ${left.toLocaleString('en')} clicks left`);
    console.log(`  /go during the run, 16 concurrent: ${loaded.rps.toFixed(0)} req/s, p99 ${percentile(loaded.latencies, 0.99).toFixed(1)} ms, max ${Math.max(...loaded.latencies).toFixed(1)} ms (target p99 < 20 ms)`);
    const after = await (await fetch(`http://127.0.0.1:${svc.port}/api/affiliate/summary`, { headers: { 'x-api-key': API_KEY } })).json();
    const expected = body.totals.clicks + quiet.done + loaded.done;
    console.log(`  summary totals after: ${after.totals.clicks} clicks, the ${body.totals.clicks} before plus /go's ${quiet.done + loaded.done} since: ${after.totals.clicks === expected ? 'OK' : 'MISMATCH'}`);
    await db.end();
  } finally {
    for (const child of children) await stopChild(child);
    for (const name of names) await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

if (role === 'proxy') await runProxy(process.argv[3], Number(process.argv[4]));
else if (role === 'service') await runService(process.argv[3], process.argv[4], process.argv[5]);
else await main();
