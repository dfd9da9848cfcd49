// Inbound mail throughput and memory: POST /api/inbound (10 KB and 1 MB) over real HTTP, and SMTP;
// and what a hostile mail costs everybody else: intake and read latency of a 1 MB deeply nested HTML
// mail with the p99 of /healthz polled meanwhile by a second client (README.md#mail-limits).
// Run after `npm run build`:  node bench/inbound.mjs   (BENCH_QUICK=1: skip the SMTP and memory runs)
// Env: BENCH_MEMORY_COUNT (10 KB messages for the memory run, default 20000; the issue asks 100000),
//      BENCH_CONCURRENCY (default 16). SQLite in a temp directory. The load generator runs in a forked
//      child process, so the RSS printed is the server's alone.
import { fork } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import pino from 'pino';
import { loadConfig } from '../dist/config.js';
import { insertMailbox } from '../dist/mail/mailboxes/mailbox.repository.js';
import { newMailboxToken } from '../dist/mail/mailboxes/mailbox-token.js';
import { createService } from '../dist/server.js';
import { SmtpGateway } from '../dist/mail/smtp/smtp-gateway.js';

const API_KEY = 'bench_api_key_0123456789abcdef';
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const MEMORY_COUNT = Number(process.env.BENCH_MEMORY_COUNT ?? 20000);


const mb = (n) => `${(n / 1024 / 1024).toFixed(0)} MB`;

if (process.argv[2] === 'client') {
  await client(Number(process.argv[3]), Number(process.argv[4]));
} else {
  await server();
}

async function run(count, make, label, onProgress) {
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await make(i);
      if (onProgress) onProgress(i + 1);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const secs = (performance.now() - started) / 1000;
  return `${label}: ${count} messages in ${secs.toFixed(1)} s = ${(count / secs).toFixed(0)} msg/s`;
}

/** The load generator: reports each result line to the server process. */
async function client(port, smtpPort) {
  const say = (line) => process.send({ line });
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const post = (body) =>
    new Promise((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port, path: '/api/inbound', method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length, 'x-api-key': API_KEY } },
        (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 201 ? resolve() : reject(new Error(`status ${res.statusCode}`))));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const inboundBody = (bytes, i) =>
    Buffer.from(JSON.stringify({ to: 'Bench <bench@svc.test>', from: 'sender@example.org', subject: `bench ${i}`, text: 'x'.repeat(bytes) }));

  const body10k = inboundBody(10 * 1024, 0);
  // BENCH_SMOKE=1 (test/integration/benches.test.ts): a few messages, to prove the script still runs
  const smoke = process.env.BENCH_SMOKE === '1';
  await run(smoke ? 10 : 300, () => post(body10k), 'warm-up');
  say(await run(smoke ? 50 : 5000, () => post(body10k), 'HTTP /api/inbound 10 KB'));
  await hostile(port, agent, say);
  if (process.env.BENCH_QUICK === '1') {
    agent.destroy();
    process.exit(0);
  }
  const body1m = inboundBody(1024 * 1024, 0);
  say(await run(150, () => post(body1m), 'HTTP /api/inbound 1 MB '));

  const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true, pool: true, maxConnections: CONCURRENCY, maxMessages: Number.POSITIVE_INFINITY });
  const raw10k = Buffer.from(`From: Sender <sender@example.org>\r\nTo: bench@svc.test\r\nSubject: smtp bench\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n${`${'y'.repeat(78)}\r\n`.repeat(128)}`);
  say(await run(2000, () => smtp.sendMail({ envelope: { from: 'sender@example.org', to: ['bench@svc.test'] }, raw: raw10k }), 'SMTP 10 KB             '));
  smtp.close();

  const step = Math.max(1, Math.floor(MEMORY_COUNT / 10));
  say(`memory run: ${MEMORY_COUNT} x 10 KB over HTTP`);
  const line = await run(MEMORY_COUNT, (i) => post(inboundBody(10 * 1024, i)), 'HTTP /api/inbound 10 KB (memory run)', (done) => {
    if (done % step === 0) process.send({ rssAfter: done });
  });
  say(line);
  agent.destroy();
  process.exit(0);
}

/** /healthz from a separate connection, one request after another, while `work` runs: latency p99 and max. */
async function healthzDuring(port, work) {
  const probeAgent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times = [];
  let done = false;
  const get = () =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      http
        .get({ host: '127.0.0.1', port, path: '/healthz', agent: probeAgent }, (res) => {
          res.resume();
          res.on('end', () => resolve(performance.now() - started));
        })
        .on('error', reject);
    });
  const prober = (async () => {
    while (!done) times.push(await get());
  })();
  await new Promise((r) => setTimeout(r, 50));
  const started = performance.now();
  const result = await work();
  const ms = performance.now() - started;
  done = true;
  await prober;
  probeAgent.destroy();
  times.sort((a, b) => a - b);
  const p99 = times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] ?? 0;
  return { ms, result, p99, max: times[times.length - 1] ?? 0, probes: times.length };
}

/** A 1 MB mail of nested <div>: stored, then read, each with /healthz measured meanwhile. */
async function hostile(port, agent, say) {
  const depth = Math.floor((1024 * 1024) / 11);
  const html = `${'<div>'.repeat(depth)}x${'</div>'.repeat(depth)}`;
  const body = Buffer.from(JSON.stringify({ to: 'bench@svc.test', subject: 'nested', text: 'text', html }));
  const request = (method, path, payload) =>
    new Promise((resolve, reject) => {
      const headers = { 'x-api-key': API_KEY, ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}) };
      const req = http.request({ host: '127.0.0.1', port, path, method, agent, headers }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      req.end(payload);
    });
  const fmt = (label, r) => `${label}: ${r.ms.toFixed(0)} ms (status ${r.result.status}); concurrent /healthz p99 ${r.p99.toFixed(1)} ms, max ${r.max.toFixed(1)} ms over ${r.probes} probes`;
  const stored = await healthzDuring(port, () => request('POST', '/api/inbound', body));
  say(fmt('1 MB nested HTML intake', stored));
  const id = JSON.parse(stored.result.body).message?.id;
  const read = await healthzDuring(port, () => request('GET', `/api/mailboxes/bench@svc.test/messages/${id}`));
  say(fmt('1 MB nested HTML read  ', read));
}

async function server() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const config = loadConfig({
    DATABASE_URL: `sqlite:${join(dir, 'svc.db')}`,
    SVC_API_KEY: API_KEY,
    SVC_ADMIN_PASSWORD: 'bench-admin-password',
    PORT: '0',
    SMTP_PORT: 'off',
    LOG_LEVEL: 'silent',
    SVC_WORKER: 'off',
  });
  const service = await createService(config, { logger: pino({ level: 'silent' }) });
  const base = await service.start();
  const { port } = new URL(base);
  const { hash } = newMailboxToken();
  await insertMailbox(service.ctx.db, { address: 'bench@svc.test', local_part: 'bench', domain: 'svc.test', ref_code: null, token_hash: hash, created_at: Date.now() });

  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 50);
  const gateway = new SmtpGateway(
    service.ctx.services.mail,
    { port: 0, host: '127.0.0.1', maxBytes: config.inboundMaxBytes, hostname: 'svc.test', maxConnectionsPerIp: 1000, messagesPerMinutePerIp: 1e9 },
    service.ctx.clock,
    service.ctx.logger,
  );
  await gateway.start();
  console.log(`svc inbound bench: SQLite, concurrency ${CONCURRENCY}, node ${process.version}; server RSS at start ${mb(process.memoryUsage().rss)}`);
  const child = fork(new URL(import.meta.url).pathname, ['client', String(port), String(gateway.address().port)], { env: process.env });
  await new Promise((resolve, reject) => {
    child.on('message', (m) => {
      if (m.line) console.log(m.line);
      if (m.rssAfter) console.log(`  after ${String(m.rssAfter).padStart(7)}: server rss ${mb(process.memoryUsage().rss)}, heap ${mb(process.memoryUsage().heapUsed)}`);
    });
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`client exited ${code}`))));
  });
  clearInterval(sampler);
  console.log(`server peak RSS ${mb(peakRss)}`);
  await gateway.stop();
  await service.destroy();
  rmSync(dir, { recursive: true, force: true });
}
