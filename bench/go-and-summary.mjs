// Benchmark of the attribution hot path and the summary (run `npm run build` first):
//   node bench/go-and-summary.mjs
// (a) GET /go/<code> on the real service (SQLite, every click stored) against a bare node:http server
//     doing the same 302 with Set-Cookie, driven by the same keep-alive client in this process while
//     each server runs in its own child process. Prints both rates and the ratio.
// (b) Summary latency with 1,000,000 clicks, 100,000 mailboxes and 10,000 orders loaded.
// Env: BENCH_SECONDS (default 4 per round), BENCH_ROUNDS (default 3), BENCH_CONCURRENCY (default 64),
// BENCH_SKIP_SUMMARY=1 to run only (a).
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serviceNodeFlags } from './cpu.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 64);
const API_KEY = 'bench_api_key_0123456789abcdef';
const role = process.argv[2];

if (role === 'bare') await runBare();
else if (role === 'service') await runService(process.argv[3]);
else await main();

// ---------- child: bare node:http ----------
async function runBare() {
  const server = http.createServer((req, res) => {
    const code = req.url.slice('/go/'.length);
    const target = new URL('http://127.0.0.1/');
    target.searchParams.set('ref', code);
    res.writeHead(302, {
      location: target.toString(),
      'set-cookie': `svc_ref=${code}; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax`,
      'cache-control': 'no-store',
      'content-length': '0',
    });
    res.end();
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('message', (m) => m === 'stop' && server.close(() => process.exit(0)));
}

// ---------- child: the real service ----------
async function runService(dbPath) {
  const { loadConfig } = await import('../dist/config.js');
  const { createService } = await import('../dist/server.js');
  const config = loadConfig({
    DATABASE_URL: `sqlite:${dbPath}`,
    SVC_API_KEY: API_KEY,
    SVC_ADMIN_PASSWORD: 'bench-admin-password',
    PORT: '0',
    SMTP_PORT: 'off',
    LOG_LEVEL: 'silent',
    SVC_WORKER: 'off',
  });
  const service = await createService(config);
  const address = await service.start();
  await service.ctx.services.affiliates.create({ ref_code: 'bench' }).catch(() => {});
  process.send({ port: Number(new URL(address).port) });
  process.on('message', async (m) => {
    if (m === 'stop') {
      await service.destroy();
      process.exit(0);
    }
  });
}

function startChild(args) {
  return new Promise((resolve, reject) => {
    const execArgv = [...process.execArgv, ...serviceNodeFlags()];
    const child = fork(new URL(import.meta.url).pathname, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv });
    child.once('message', (m) => resolve({ child, port: m.port }));
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

/** CPU time (user + system) a process has used so far, in ms; Linux /proc, clock ticks of 10 ms. */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * Keeps CONCURRENCY keep-alive requests in flight for `seconds`; counts 302 answers, and the server
 * process's CPU per answer: on a small machine the client in this process may be what caps both rates,
 * and CPU per request compares the servers whatever the client manages.
 */
async function load(port, path, seconds, pid) {
  const cpu0 = pid ? cpuMs(pid) : Number.NaN;
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  let done = 0;
  let failed = 0;
  const deadline = performance.now() + seconds * 1000;
  const one = () =>
    new Promise((resolve) => {
      const req = http.request({ host: '127.0.0.1', port, path, agent, headers: { 'user-agent': 'bench/1.0' } }, (res) => {
        res.resume();
        res.on('end', () => {
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
    while (performance.now() < deadline) await one();
  };
  const start = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  const cpu = pid ? cpuMs(pid) - cpu0 : Number.NaN;
  return { done, failed, rps: done / elapsed, cpuUsPerReq: (cpu * 1000) / Math.max(1, done + failed), cpuShare: cpu / 1000 / elapsed };
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const dbPath = join(dir, 'svc.db');
  try {
    console.log(`(a) /go: ${CONCURRENCY} concurrent keep-alive requests; ${ROUNDS} alternating rounds of ${SECONDS}s per server`);
    // Both servers run side by side and are measured in alternating rounds, so a change in the
    // machine's load during the run hits both alike; the best round of each is compared.
    const bare = await startChild(['bare']);
    const svc = await startChild(['service', dbPath]);
    let answered = 0;
    await load(bare.port, '/go/bench', 1);
    answered += (await load(svc.port, '/go/bench', 1)).done;
    const bareRounds = [];
    const svcRounds = [];
    for (let r = 0; r < ROUNDS; r++) {
      bareRounds.push(await load(bare.port, '/go/bench', SECONDS, bare.child.pid));
      const s = await load(svc.port, '/go/bench', SECONDS, svc.child.pid);
      answered += s.done;
      svcRounds.push(s);
    }
    await stopChild(bare.child);
    await stopChild(svc.child);
    const best = (rounds) => rounds.reduce((a, b) => (b.rps > a.rps ? b : a));
    const bareResult = best(bareRounds);
    const svcResult = best(svcRounds);
    const ratios = bareRounds.map((b, i) => (svcRounds[i].rps / b.rps).toFixed(3));
    const { default: Database } = await import('better-sqlite3');
    const sqlite = new Database(dbPath);
    const stored = sqlite.prepare("select count(*) as n from clicks where ref_code = 'bench'").get().n;
    const counted = sqlite.prepare("select coalesce(sum(clicks), 0) as n from daily_stats where ref_code = 'bench'").get().n;
    const expected = answered;
    console.log(`  bare node:http : best ${bareResult.rps.toFixed(0)} req/s; rounds ${bareRounds.map((r) => r.rps.toFixed(0)).join(', ')}`);
    console.log(`  svc /go        : best ${svcResult.rps.toFixed(0)} req/s; rounds ${svcRounds.map((r) => r.rps.toFixed(0)).join(', ')}`);
    console.log(`  ratio          : ${(svcResult.rps / bareResult.rps).toFixed(3)} best/best; per round ${ratios.join(', ')} (target >= 0.6)`);
    const cpuLine = (rounds) => rounds.map((r) => `${r.cpuUsPerReq.toFixed(0)} µs (${Math.round(r.cpuShare * 100)}% of a core)`).join(', ');
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(`  server CPU/req : bare ${cpuLine(bareRounds)}`);
    console.log(`                   svc  ${cpuLine(svcRounds)}`);
    const cpuRatio = median(bareRounds.map((r) => r.cpuUsPerReq)) / median(svcRounds.map((r) => r.cpuUsPerReq));
    console.log(`  CPU ratio      : ${cpuRatio.toFixed(3)} (bare CPU per request / svc CPU per request, medians: the rate ratio if the client were not a limit)`);
    console.log(`  clicks stored  : ${stored} of ${expected} answered (daily_stats says ${counted}) ${stored === expected && counted === expected ? 'OK' : 'MISMATCH'}`);

    if (process.env.BENCH_SKIP_SUMMARY === '1') return;
    // ---------- (b) summary with a large data set ----------
    console.log('(b) summary: loading 1,000,000 clicks, 100,000 mailboxes, 10,000 orders ...');
    const t0 = performance.now();
    loadFixtures(sqlite);
    sqlite.close();
    console.log(`  fixtures loaded in ${((performance.now() - t0) / 1000).toFixed(1)}s`);

    const svc2 = await startChild(['service', dbPath]);
    const measure = async (label, path) => {
      const times = [];
      let body;
      for (let i = 0; i < 55; i++) {
        const s = performance.now();
        const res = await fetch(`http://127.0.0.1:${svc2.port}${path}`, { headers: { 'x-api-key': API_KEY } });
        body = await res.json();
        if (i >= 5) times.push(performance.now() - s);
      }
      times.sort((a, b) => a - b);
      const med = times[Math.floor(times.length / 2)];
      const p95 = times[Math.floor(times.length * 0.95)];
      console.log(`  ${label}: median ${med.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms (50 calls; ${body.summary?.length ?? body.items?.length} rows; totals clicks ${body.totals?.clicks ?? '-'})`);
    };
    await measure('summary, all affiliates, all time     ', '/api/affiliate/summary');
    await measure('summary, one affiliate, 30-day range  ', '/api/affiliate/summary?ref_code=aff_7&from=2026-02-01&to=2026-03-02');
    await measure('summary, all affiliates, 30-day range ', '/api/affiliate/summary?from=2026-02-01&to=2026-03-02');
    await measure('daily report, last 30 days            ', '/api/reports/daily?from=2026-02-01&to=2026-03-02');
    await stopChild(svc2.child);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Bulk fixtures straight into SQLite with batched multi-row INSERTs, consistent with each other:
 * every click, mailbox, referral, order and commission is also in daily_stats, balances match paid
 * commissions. 200 affiliates, 90 days.
 */
function loadFixtures(sqlite) {
  const AFFILIATES = 200;
  const DAYS = 90;
  // BENCH_SMOKE=1 (test/integration/benches.test.ts): a hundredth of the data, to prove the script still runs
  const scale = process.env.BENCH_SMOKE === '1' ? 0.01 : 1;
  const CLICKS = 1_000_000 * scale;
  const MAILBOXES = 100_000 * scale;
  const ORDERS = 10_000 * scale;
  const start = Date.UTC(2026, 0, 1);
  const dayOf = (ms) => new Date(ms).toISOString().slice(0, 10);
  const stats = new Map();
  const bump = (ref, day, col, n) => {
    const key = `${ref}|${day}`;
    let row = stats.get(key);
    if (!row) {
      row = { ref, day, clicks: 0, mailboxes: 0, orders: 0, pending: 0, approved: 0, paid: 0, void: 0 };
      stats.set(key, row);
    }
    row[col] += n;
  };
  let seed = 42;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const refOf = (i) => `aff_${i % AFFILIATES}`;
  const timeOf = () => start + Math.floor(rand() * DAYS * 86_400_000);

  const batchInsert = (table, columns, rows) => {
    const per = Math.floor(30000 / columns.length);
    const stmts = new Map();
    const run = sqlite.transaction((all) => {
      for (let i = 0; i < all.length; i += per) {
        const chunk = all.slice(i, i + per);
        let stmt = stmts.get(chunk.length);
        if (!stmt) {
          const one = `(${columns.map(() => '?').join(',')})`;
          stmt = sqlite.prepare(`insert into ${table} (${columns.join(',')}) values ${Array(chunk.length).fill(one).join(',')}`);
          stmts.set(chunk.length, stmt);
        }
        stmt.run(chunk.flat());
      }
    });
    run(rows);
  };

  const balances = new Map();
  batchInsert(
    'affiliates',
    ['ref_code', 'name', 'email', 'status', 'commission_rate_bp', 'created_at', 'updated_at'],
    Array.from({ length: AFFILIATES }, (_, i) => [refOf(i), `Affiliate ${i}`, null, 'active', null, start, start]),
  );

  const CHUNK = Math.min(100_000, CLICKS);
  for (let done = 0; done < CLICKS; done += CHUNK) {
    const rows = [];
    for (let i = done; i < done + CHUNK; i++) {
      const ref = refOf(i);
      const at = timeOf();
      bump(ref, dayOf(at), 'clicks', 1);
      rows.push([ref, at, 'x'.repeat(64), 'Mozilla/5.0', null, null]);
    }
    batchInsert('clicks', ['ref_code', 'created_at', 'ip_hash', 'user_agent', 'referer', 'network_click_ids'], rows);
  }

  const mailboxRows = [];
  const referralRows = [];
  const addresses = [];
  for (let i = 0; i < MAILBOXES; i++) {
    const ref = refOf(i);
    const at = timeOf();
    const address = `m${i}@svc.test`;
    addresses.push([address, ref]);
    bump(ref, dayOf(at), 'mailboxes', 1);
    mailboxRows.push([address, `m${i}`, 'svc.test', ref, 'h'.repeat(64), at]);
    referralRows.push([`ref_${i}`, address, ref, 'cookie', null, at]);
  }
  batchInsert('mailboxes', ['address', 'local_part', 'domain', 'ref_code', 'token_hash', 'created_at'], mailboxRows);
  batchInsert('referrals', ['id', 'mailbox_address', 'ref_code', 'source', 'network_click_ids', 'created_at'], referralRows);

  const orderRows = [];
  const commissionRows = [];
  const statuses = ['pending', 'approved', 'paid', 'void'];
  for (let i = 0; i < ORDERS; i++) {
    const [email, ref] = addresses[i * 7];
    const created = timeOf();
    const paidAt = created + 3_600_000;
    const amount = 1000 + Math.floor(rand() * 100_000);
    const commission = Math.floor((amount * 1000 + 5000) / 10_000);
    const status = statuses[i % 4];
    orderRows.push([`ord_${i}`, email, amount, 'Pro plan', 'paid', ref, created, paidAt]);
    commissionRows.push([`com_${i}`, `ord_${i}`, ref, amount, 1000, commission, status, paidAt, paidAt, null, null, null]);
    bump(ref, dayOf(paidAt), 'orders', 1);
    bump(ref, dayOf(paidAt), status, commission);
    if (status === 'paid') balances.set(ref, (balances.get(ref) ?? 0) + commission);
  }
  batchInsert('orders', ['order_id', 'email', 'amount_cents', 'product', 'status', 'ref_code', 'created_at', 'paid_at'], orderRows);
  batchInsert(
    'commissions',
    ['id', 'order_id', 'ref_code', 'amount_cents', 'rate_bp', 'commission_cents', 'status', 'created_at', 'updated_at', 'approved_at', 'paid_at', 'voided_at'],
    commissionRows,
  );

  batchInsert(
    'daily_stats',
    ['ref_code', 'day', 'clicks', 'mailboxes', 'orders', 'commission_pending_cents', 'commission_approved_cents', 'commission_paid_cents', 'commission_void_cents'],
    [...stats.values()].map((r) => [r.ref, r.day, r.clicks, r.mailboxes, r.orders, r.pending, r.approved, r.paid, r.void]),
  );
  // The all-time counters the summary reads without a date range, as bumpDailyStats keeps them.
  const counters = 'clicks, mailboxes, orders, commission_pending_cents, commission_approved_cents, commission_paid_cents, commission_void_cents, withdrawals_requested_cents, withdrawals_paid_cents';
  const sums = counters
    .split(', ')
    .map((c) => `sum(${c})`)
    .join(', ');
  sqlite.exec(`delete from affiliate_stats; insert into affiliate_stats (ref_code, ${counters}) select ref_code, ${sums} from daily_stats group by ref_code`);
  // the balance lives in the all-time rows (stripe 0 here, the only one this seeding writes)
  const setBalance = sqlite.prepare('update affiliate_stats set balance_cents = ? where ref_code = ? and stripe = 0');
  sqlite.transaction(() => {
    for (const [ref, cents] of balances) setBalance.run(cents, ref);
  })();
  sqlite.pragma('wal_checkpoint(TRUNCATE)');
  sqlite.exec('analyze');
}
