// Public mailbox creation (POST /mailboxes, rate limited per client IP) over real HTTP with 16 requests
// in flight, from many clients: X-Forwarded-For (the service trusts loopback) changes every 20 requests,
// so no client reaches the limit of 30 a minute and every request is a creation. Runs against dist/.
//   npm run build && node bench/mailbox-create.mjs        (a temporary SQLite file)
//   BENCH_DATABASE_URL='postgres://…?options=-c%20search_path%3D<empty schema>' node bench/mailbox-create.mjs
//   BENCH_DIST=/path/to/other/checkout/dist node bench/mailbox-create.mjs   (another build, e.g. before a change)
// BENCH_SECONDS (5 per round), BENCH_ROUNDS (3), BENCH_CONCURRENCY (16). Prints creations per second, the
// service process's CPU and the local PostgreSQL's CPU per creation, and any answer other than 201.
import { fork } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const DIST = process.env.BENCH_DIST ? resolve(process.env.BENCH_DIST) : resolve(import.meta.dirname, '../dist');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const PER_CLIENT = 20;

if (process.argv[2] === 'serve') {
  const { loadConfig } = await import(pathToFileURL(join(DIST, 'config.js')).href);
  const { createService } = await import(pathToFileURL(join(DIST, 'server.js')).href);
  const config = loadConfig({
    DATABASE_URL: process.argv[3],
    SVC_API_KEY: 'bench_api_key_0123456789abcdef',
    SVC_ADMIN_PASSWORD: 'bench-password',
    SVC_TRUST_PROXY: 'loopback',
    PORT: '0',
    SMTP_PORT: 'off',
    LOG_LEVEL: 'silent',
    SVC_WORKER: 'off',
  });
  const service = await createService(config);
  const address = await service.start();
  process.send({ port: Number(new URL(address).port) });
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

function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU (ms) so far of each local PostgreSQL process. */
function postgresCpu() {
  const byPid = new Map();
  for (const pid of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/stat`, 'utf8').includes('(postgres)')) byPid.set(pid, cpuMs(pid));
    } catch {
      // the process ended meanwhile
    }
  }
  return byPid;
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const url = process.env.BENCH_DATABASE_URL ?? `sqlite:${join(dir, 'bench.db')}`;
  const { child, port } = await new Promise((resolve, reject) => {
    const c = fork(new URL(import.meta.url).pathname, ['serve', url], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    c.once('message', (m) => resolve({ child: c, ...m }));
    c.once('error', reject);
    c.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  // a different range every run, so a run on a database a previous run used starts with fresh clients
  const base = Math.floor(Math.random() * 200) * 65536;
  let n = 0;
  const post = () => {
    const client = base + Math.floor(n++ / PER_CLIENT);
    const ip = `10.${(client >> 16) & 255}.${(client >> 8) & 255}.${client & 255}`;
    return new Promise((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port, method: 'POST', path: '/mailboxes', agent, headers: { 'content-type': 'application/json', 'content-length': 2, 'x-forwarded-for': ip } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode));
        },
      );
      req.on('error', reject);
      req.end('{}');
    });
  };
  try {
    for (let i = 0; i < 200; i++) await post(); // warm-up: statements prepared, JIT warm
    for (let round = 1; round <= ROUNDS; round++) {
      let done = 0;
      const other = new Map();
      const cpu0 = cpuMs(child.pid);
      const pg0 = url.startsWith('postgres') ? postgresCpu() : undefined;
      const start = performance.now();
      const until = start + SECONDS * 1000;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (performance.now() < until) {
            const status = await post();
            if (status === 201) done++;
            else other.set(status, (other.get(status) ?? 0) + 1);
          }
        }),
      );
      const seconds = (performance.now() - start) / 1000;
      const cpu = cpuMs(child.pid) - cpu0;
      let pg = '';
      if (pg0) {
        let sum = 0;
        for (const [pid, ms] of postgresCpu()) sum += ms - (pg0.get(pid) ?? 0);
        pg = `, PostgreSQL CPU ${((sum * 1000) / Math.max(1, done)).toFixed(0)} µs`;
      }
      const others = [...other].map(([s, c]) => `${c}×${s}`).join(', ');
      console.log(`round ${round}: ${(done / seconds).toFixed(0)} creations/s, service CPU ${((cpu * 1000) / Math.max(1, done)).toFixed(0)} µs${pg} per creation${others ? `; other answers: ${others}` : ''}`);
    }
  } finally {
    agent.destroy();
    child.removeAllListeners('exit');
    await new Promise((r) => {
      child.once('exit', r);
      child.send('stop');
    });
    rmSync(dir, { recursive: true, force: true });
  }
}
