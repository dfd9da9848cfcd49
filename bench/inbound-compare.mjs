// The inbound rate of 10 KB mails on two builds, alternating, in one session (issue 15: sanitising,
// source keeping and code extraction must not cost more than 10 %). Each run is a fresh child process
// with its own SQLite database, serving POST /api/inbound over real HTTP to a load generator in this
// process. Each run also prints the CPU time its server used per mail (bench/cpu.mjs). Run after `npm run build`:
//   node bench/inbound-compare.mjs /work/wt/base/dist ./dist   (BENCH_RUNS, default 4; BENCH_COUNT, default 3000)
// The mail: a subject with a code, about 4 KB of text and 6 KB of newsletter HTML (styles, a table, a
// button, two remote images), so every stage of the intake has its share of work.
import { fork } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cpuOf } from './cpu.mjs';

const API_KEY = 'bench_api_key_0123456789abcdef';
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const RUNS = Number(process.env.BENCH_RUNS ?? 4);
const COUNT = Number(process.env.BENCH_COUNT ?? 3000);

if (process.argv[2] === 'serve') await serve(process.argv[3]);
else await compare(process.argv[2], process.argv[3]);

/** Child: the service of one build on a free port; answers its port, exits when told. */
async function serve(dist) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const load = (p) => import(pathToFileURL(join(resolve(dist), p)).href);
  // The mailboxes moved to mail/ with the areas (2026-11); a build from before has them at the top.
  const loadEither = (now, before) => load(now).catch((err) => (err.code === 'ERR_MODULE_NOT_FOUND' ? load(before) : Promise.reject(err)));
  const [{ loadConfig }, { insertMailbox }, { newMailboxToken }, { createService }, pino] = await Promise.all([
    load('config.js'),
    loadEither('mail/mailboxes/mailbox.repository.js', 'mailboxes/mailbox.repository.js'),
    loadEither('mail/mailboxes/mailbox-token.js', 'mailboxes/mailbox-token.js'),
    load('server.js'),
    import('pino'),
  ]);
  const env = { DATABASE_URL: `sqlite:${join(dir, 'svc.db')}`, SVC_API_KEY: API_KEY, SVC_ADMIN_PASSWORD: 'bench-admin-password', PORT: '0', LOG_LEVEL: 'silent', SVC_WORKER: 'off' };
  // SMTP off: builds from before SMTP was on by default do not know `off`, and there leaving it unset is off.
  let config;
  try {
    config = loadConfig({ ...env, SMTP_PORT: 'off' });
  } catch {
    config = loadConfig(env);
  }
  const service = await createService(config, { logger: pino.default({ level: 'silent' }) });
  const base = await service.start();
  const { hash } = newMailboxToken();
  await insertMailbox(service.ctx.db, { address: 'bench@svc.test', local_part: 'bench', domain: 'svc.test', ref_code: null, token_hash: hash, created_at: Date.now() });
  process.send({ port: Number(new URL(base).port) });
  process.on('message', async () => {
    await service.destroy();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
}

function mail(i) {
  const text = `Hi Sam,\n\nYour verification code is ${String(100000 + (i % 900000))}. It expires in 10 minutes.\n\n${'Thanks for being with us. Your order history, invoices and settings are in your account. '.repeat(45)}`;
  const row = '<tr><td style="padding:8px;border-bottom:1px solid #e5e7eb;color:#111827">Linen shirt, sand, M</td><td class="amount" style="text-align:right">€49.00</td></tr>';
  const html = `<html><head><style>.btn{background-color:#1a56db;color:#fff;padding:14px 28px;border-radius:6px} @media (max-width:620px){.c{width:100%!important}}</style></head><body style="background:#f2f4f8"><table class="c" width="600" cellpadding="0"><tr><td style="background:#0b1f44;color:#fff;padding:32px"><img src="https://img.example-cdn.com/logo.png" width="120" alt="logo"><h1>Your code</h1></td></tr>${row.repeat(30)}<tr><td><a class="btn" href="https://app.example/start">Get started</a><img src="https://t.example/o.gif" width="1" height="1" alt=""></td></tr></table></body></html>`;
  return Buffer.from(JSON.stringify({ to: 'Bench <bench@svc.test>', from: 'Acme <no-reply@acme.example>', subject: `Your Acme sign-in code ${i}`, text, html }));
}

/** msg/s over COUNT messages after a warm-up; `measured` is called when the counted part begins. */
async function rate(port, measured) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const bodies = Array.from({ length: 64 }, (_, i) => mail(i));
  const post = (body) =>
    new Promise((ok, fail) => {
      const req = http.request(
        { host: '127.0.0.1', port, path: '/api/inbound', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-api-key': API_KEY } },
        (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 201 ? ok() : fail(new Error(`status ${res.statusCode}`))));
        },
      );
      req.on('error', fail);
      req.end(body);
    });
  const run = async (count) => {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < count) await post(bodies[next++ % bodies.length]);
      }),
    );
    return count / ((performance.now() - started) / 1000);
  };
  await run(300);
  measured();
  const r = await run(COUNT);
  agent.destroy();
  return r;
}

async function once(dist) {
  const child = fork(new URL(import.meta.url).pathname, ['serve', dist], { stdio: 'inherit' });
  const port = await new Promise((ok) => child.once('message', (m) => ok(m.port)));
  let before;
  const r = await rate(port, () => {
    before = cpuOf(child.pid);
  });
  const after = cpuOf(child.pid);
  child.send('stop');
  await new Promise((ok) => child.once('exit', ok));
  return { rate: r, cpu: { own: ((after.own - before.own) * 1000) / COUNT, pool: ((after.descendants - before.descendants) * 1000) / COUNT } };
}

async function compare(baseDist, branchDist) {
  console.log(`inbound 10 KB (${mail(0).length} bytes of JSON), SQLite, concurrency ${CONCURRENCY}, ${COUNT} messages per run, ${RUNS} runs each, alternating; node ${process.version}`);
  const results = { base: [], branch: [] };
  for (let i = 0; i < RUNS; i++) {
    for (const [name, dist] of i % 2 === 0 ? [['base', baseDist], ['branch', branchDist]] : [['branch', branchDist], ['base', baseDist]]) {
      const r = await once(dist);
      results[name].push(r);
      console.log(`  run ${i + 1} ${name.padEnd(6)} ${r.rate.toFixed(0)} msg/s; CPU per mail ${r.cpu.own.toFixed(2)} ms in its process, ${r.cpu.pool.toFixed(2)} ms in its children`);
    }
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const b = median(results.base.map((r) => r.rate));
  const n = median(results.branch.map((r) => r.rate));
  console.log(`median base ${b.toFixed(0)} msg/s (${baseDist}), branch ${n.toFixed(0)} msg/s (${branchDist}): ratio ${(n / b).toFixed(3)} (${((n / b - 1) * 100).toFixed(1)} %)`);
  const cpu = (rs) => {
    const own = median(rs.map((r) => r.cpu.own));
    const pool = median(rs.map((r) => r.cpu.pool));
    return `${own.toFixed(2)} ms in its process + ${pool.toFixed(2)} ms in its children = ${(own + pool).toFixed(2)} ms`;
  };
  console.log(`CPU per mail (median): base ${cpu(results.base)}; branch ${cpu(results.branch)}`);
}
