// SMTP intake of svc, measured with a raw SMTP client (node:net, Nagle off, one command at a time,
// every reply awaited: no client library's own pacing in the figures). Issue 22 /
// docs/architecture.md#outsider-bytes-never-run-on-the-event-loop: moving MIME parsing, sanitising and code
// finding off the main thread must keep intake fast. Run after `npm run build`, on 127.0.0.1 only:
//
//   node bench/smtp-intake.mjs                      svc against maildev 3.0.0 (default mode, `rate`)
//   BENCH_MODE=line node bench/smtp-intake.mjs      svc: a 10,000-character single-line text body against a small one
//   BENCH_MODE=memory node bench/smtp-intake.mjs    svc: RSS every BENCH_MEMORY_STEP mails over BENCH_MEMORY_COUNT
//   BENCH_AGAINST=/path/to/other/dist node bench/smtp-intake.mjs   rate: svc against another build of svc instead of maildev
//
// rate: 10 KB newsletter mails (text and HTML, quoted-printable, a code in the subject) over
//   BENCH_CONNECTIONS (8) connections; svc and maildev alternate (svc, maildev, maildev, svc, …),
//   BENCH_RUNS (4) runs each of BENCH_COUNT (3000) mails after BENCH_WARMUP (200); each run is a fresh
//   child process (svc with its own SQLite database and one mailbox, maildev with its own directory and
//   its in-memory store capped at 500 mails, svc's default mailbox_max_messages). Prints msg/s per run
//   and svc/maildev per pair of runs: min–max and median. Each run also prints the CPU time its server
//   used per mail (from /proc: the server's process, and apart from it its child processes, svc's
//   content pool): unlike msg/s it hardly moves when something else loads the machine. maildev is not a dependency of svc: install
//   it outside the repository, `npm i --prefix /work/.tmp-maildev --no-save maildev@3.0.0`, and point
//   BENCH_MAILDEV at that folder (default /work/.tmp-maildev).
// line: one connection, one mail after another; BENCH_ROUNDS (5) rounds of BENCH_COUNT (200) small
//   mails and BENCH_COUNT long ones (small first in odd rounds, long first in even ones). BENCH_LINE_KIND=words (default: Latin words and spaces) or
//   cyrillic (one unbroken Cyrillic run, no space). Prints ms per mail for each and the ratio.
// memory: BENCH_MEMORY_COUNT (80000) mails of 10 KB over the connections, svc's RSS (and heap) every
//   BENCH_MEMORY_STEP (10000); flat after the first steps means nothing is kept per mail.
//
// Bounds: every run stops after BENCH_MAX_SECONDS (600; the memory run 1800) and every SMTP reply is
// awaited at most 30 s. BENCH_DIST measures another build (default ./dist). Children are forked with
// an IPC channel and exit when it closes, so none stays behind when this process is killed (even with
// SIGKILL) or its output is piped into `head`.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cpuOf, serviceNodeFlags } from './cpu.mjs';

const DIST = process.env.BENCH_DIST ? resolve(process.env.BENCH_DIST) : resolve(import.meta.dirname, '../dist');
const AGAINST = process.env.BENCH_AGAINST ? resolve(process.env.BENCH_AGAINST) : null;
const MAILDEV = resolve(process.env.BENCH_MAILDEV ?? '/work/.tmp-maildev');
const API_KEY = 'bench_api_key_0123456789abcdef';
const MAILBOX = 'bench@svc.test';
const SENDER = 'no-reply@acme.example';
const MODE = process.env.BENCH_MODE ?? 'rate';
const CONNECTIONS = int('BENCH_CONNECTIONS', 8);
const RUNS = int('BENCH_RUNS', 4);
const COUNT = int('BENCH_COUNT', MODE === 'line' ? 200 : 3000);
const WARMUP = int('BENCH_WARMUP', 200);
const ROUNDS = int('BENCH_ROUNDS', 5);
const MEMORY_COUNT = int('BENCH_MEMORY_COUNT', 80_000);
const MEMORY_STEP = int('BENCH_MEMORY_STEP', 10_000);
const MAX_SECONDS = int('BENCH_MAX_SECONDS', MODE === 'memory' ? 1800 : 600);
const REPLY_TIMEOUT_MS = 30_000;
const MAILDEV_MAX_EMAILS = 500;

function int(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a positive whole number (got ${raw})`);
  return n;
}


// ---------- children: each a server alone in its process; it exits when its parent goes ----------

/** Answers the parent's questions over IPC; `cleanup` runs (synchronously) before any exit. */
function childProtocol(ready, stop, cleanup) {
  const leave = (code) => {
    cleanup();
    process.exit(code);
  };
  // The parent died or stopped listening (killed, or its output piped into `head`): do not stay behind.
  process.on('disconnect', () => leave(0));
  process.on('SIGTERM', () => leave(0));
  process.on('SIGINT', () => leave(0));
  process.on('message', (m) => {
    if (m === 'rss') process.send({ rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed });
    if (m === 'stop') stop().then(() => leave(0), () => leave(1));
  });
  process.send({ ready });
}

/**
 * svc from the build in DIST on a fresh SQLite file, one mailbox created through its API. The SMTP
 * gateway is the service's own class, built as src/context.ts builds it but with the per-IP caps
 * (10 connections, 120 mails a minute) lifted: the whole load comes from one address here.
 */
async function serveSvc(dist = DIST) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-smtp-'));
  // A start that fails (e.g. a native module built for another Node.js) leaves no directory behind.
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  const load = (p) => import(pathToFileURL(join(dist, p)).href);
  // The gateway moved to mail/smtp/ with the areas (2026-11); BENCH_AGAINST may name a build from before.
  const loadGateway = () => load('mail/smtp/smtp-gateway.js').catch((err) => (err.code === 'ERR_MODULE_NOT_FOUND' ? load('smtp/smtp-gateway.js') : Promise.reject(err)));
  const [{ loadConfig }, { createService }, { SmtpGateway }, pino] = await Promise.all([load('config.js'), load('server.js'), loadGateway(), import('pino')]);
  const env = {
    DATABASE_URL: `sqlite:${join(dir, 'svc.db')}`,
    SVC_API_KEY: API_KEY,
    SVC_ADMIN_PASSWORD: 'bench-admin-password',
    PORT: '0',
    LOG_LEVEL: 'silent',
    SVC_WORKER: 'off',
  };
  // The service's own SMTP listener stays off (the gateway below is the one measured). Builds before
  // SMTP was on by default do not know `off`: there, leaving SMTP_PORT unset is off.
  let config;
  try {
    config = loadConfig({ ...env, SMTP_PORT: 'off' });
  } catch {
    config = loadConfig(env);
  }
  const service = await createService(config, { logger: pino.default({ level: 'silent' }) });
  const base = await service.start();
  const created = await postJson(`${base}/api/mailboxes`, { name: 'bench', domain: 'svc.test' });
  if (created.status !== 201) throw new Error(`creating the mailbox answered ${created.status}: ${created.body}`);
  const { ctx } = service;
  const gateway = new SmtpGateway(
    ctx.services.mail,
    { port: 0, host: '127.0.0.1', maxBytes: config.inboundMaxBytes, hostname: 'svc.test', maxConnectionsPerIp: 1000, messagesPerMinutePerIp: 1e9 },
    ctx.clock,
    ctx.logger,
  );
  await gateway.start();
  childProtocol(
    { smtpPort: gateway.address().port },
    async () => {
      await gateway.stop();
      await service.destroy();
    },
    () => rmSync(dir, { recursive: true, force: true }),
  );
}

/** maildev 3.0.0 through its programmatic API, SMTP and web UI each on a free port of 127.0.0.1. */
async function serveMaildev() {
  const dir = mkdtempSync(join(tmpdir(), 'maildev-bench-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  // Without a mail directory maildev keeps mail in memory and writes each .eml under tmpdir()/maildev:
  // this run's own directory, not one shared with anything else on the machine.
  process.env.TMPDIR = dir;
  const { MailDev } = await import(pathToFileURL(join(MAILDEV, 'node_modules/maildev/dist/index.js')).href);
  const maildev = new MailDev({ smtp: 0, ip: '127.0.0.1', web: 0, webIp: '127.0.0.1', silent: true, maxEmails: MAILDEV_MAX_EMAILS });
  const servers = await maildev.start();
  childProtocol(
    { smtpPort: servers.smtp.getAddress().port, webPort: servers.api?.getAddress()?.port },
    () => maildev.stop(),
    () => rmSync(dir, { recursive: true, force: true }),
  );
}

function postJson(url, body) {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((ok, fail) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': payload.length, 'x-api-key': API_KEY } }, (res) => {
      let text = '';
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () => ok({ status: res.statusCode, body: text }));
    });
    req.on('error', fail);
    req.end(payload);
  });
}

// ---------- the parent: starts children, sends mail, prints ----------

const children = new Set();

function killChildren() {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
}

function startChild(kind) {
  return new Promise((ok, fail) => {
    const execArgv = [...process.execArgv, ...serviceNodeFlags()];
    const child = fork(new URL(import.meta.url).pathname, [kind], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv });
    children.add(child);
    child.on('exit', () => children.delete(child));
    child.once('message', (m) => ok({ child, ...m.ready }));
    child.once('error', fail);
    child.once('exit', (code) => fail(new Error(`${kind} exited with ${code} before it was ready`)));
  });
}

async function stopChild(server) {
  const exited = new Promise((ok) => server.child.once('exit', ok));
  server.child.send('stop');
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

function rssOf(server) {
  return new Promise((ok) => {
    server.child.once('message', (m) => ok(m));
    server.child.send('rss');
  });
}

/** One SMTP connection that sends a command and waits for its reply, one at a time. */
class SmtpClient {
  static open(port) {
    return new Promise((ok, fail) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.setNoDelay(true);
      socket.once('error', fail);
      socket.once('connect', async () => {
        socket.off('error', fail);
        const client = new SmtpClient(socket);
        try {
          await client.expect(220);
          await client.command('EHLO bench.example', 250);
          ok(client);
        } catch (err) {
          socket.destroy();
          fail(err);
        }
      });
    });
  }

  constructor(socket) {
    this.socket = socket;
    this.pending = '';
    this.lines = [];
    this.replies = [];
    this.waiting = null;
    this.failure = null;
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      this.pending += chunk;
      // A reply ends with a line whose fourth character is a space ("250 ok"; "250-…" lines continue it).
      for (let end = this.pending.indexOf('\r\n'); end >= 0; end = this.pending.indexOf('\r\n')) {
        const line = this.pending.slice(0, end);
        this.pending = this.pending.slice(end + 2);
        this.lines.push(line);
        if (line.length < 4 || line[3] === ' ') {
          this.replies.push({ code: Number(line.slice(0, 3)), text: this.lines.join('\n') });
          this.lines = [];
        }
      }
      this.wake();
    });
    socket.on('error', (err) => {
      this.failure = err;
      this.wake();
    });
    socket.on('close', () => {
      this.failure ??= new Error('the server closed the connection');
      this.wake();
    });
  }

  wake() {
    if (this.waiting && (this.replies.length > 0 || this.failure)) {
      const w = this.waiting;
      this.waiting = null;
      w();
    }
  }

  async expect(code) {
    if (this.replies.length === 0 && !this.failure) {
      let timer;
      await new Promise((ok) => {
        this.waiting = ok;
        timer = setTimeout(() => {
          this.failure ??= new Error(`no SMTP reply within ${REPLY_TIMEOUT_MS / 1000} s`);
          this.wake();
        }, REPLY_TIMEOUT_MS);
      });
      clearTimeout(timer);
    }
    const reply = this.replies.shift();
    if (!reply) throw this.failure;
    if (reply.code !== code) throw new Error(`expected ${code}, got: ${reply.text}`);
    return reply;
  }

  command(line, code) {
    this.socket.write(`${line}\r\n`);
    return this.expect(code);
  }

  /** One mail: MAIL FROM, RCPT TO, DATA, the (dot-stuffed) message and its end, each reply awaited. */
  async send(data) {
    await this.command(`MAIL FROM:<${SENDER}>`, 250);
    await this.command(`RCPT TO:<${MAILBOX}>`, 250);
    await this.command('DATA', 354);
    this.socket.write(data);
    await this.expect(250);
  }

  async close() {
    await this.command('QUIT', 221).catch(() => {});
    this.socket.destroy();
  }
}

/** `count` mails over `connections` connections, the next mail to whichever connection is free; msg/s. */
async function sendMany(port, count, connections, mailOf, deadline, onDone) {
  let next = 0;
  let done = 0;
  let failed = false;
  const clients = await Promise.all(Array.from({ length: Math.min(connections, count) }, () => SmtpClient.open(port)));
  const started = performance.now();
  try {
    await Promise.all(
      clients.map(async (client) => {
        while (next < count && !failed) {
          if (Date.now() > deadline) throw new Error(`run stopped after BENCH_MAX_SECONDS=${MAX_SECONDS} (${done} of ${count} mails sent)`);
          await client.send(mailOf(next++));
          done++;
          if (onDone) await onDone(done);
        }
      }),
    );
  } catch (err) {
    // the other connections stop after their current mail
    failed = true;
    for (const c of clients) c.socket.destroy();
    throw err;
  }
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(clients.map((c) => c.close()));
  return { seconds, rate: count / seconds };
}

// ---------- the mails ----------

/** Quoted-printable (RFC 2045) of UTF-8 text, lines of at most 76 characters. */
function quotedPrintable(text) {
  const out = [];
  for (const line of text.split('\n')) {
    let encoded = '';
    for (const byte of Buffer.from(line, 'utf8')) {
      encoded += (byte >= 33 && byte <= 126 && byte !== 61) || byte === 32 ? String.fromCharCode(byte) : `=${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
    if (encoded.endsWith(' ')) encoded = `${encoded.slice(0, -1)}=20`;
    let rest = encoded;
    while (rest.length > 76) {
      let cut = 75;
      // never split an =XX escape
      const eq = rest.lastIndexOf('=', cut);
      if (eq > cut - 3) cut = eq;
      out.push(`${rest.slice(0, cut)}=`);
      rest = rest.slice(cut);
    }
    out.push(rest);
  }
  return out.join('\r\n');
}

/** The DATA of one message: CRLF line ends, dot-stuffed, with the end-of-data line. */
function smtpData(message) {
  const crlf = message.replace(/\r?\n/g, '\r\n');
  return Buffer.from(`${crlf.replace(/^\./gm, '..')}\r\n.\r\n`, 'utf8');
}

/** About 10 KB: a sign-in code in the subject and the text, a 6 KB newsletter HTML (styles, a table, two remote images). */
function newsletter(i) {
  const code = String(100000 + ((i * 7919) % 900000));
  const text = `Hi Sam,\n\nYour verification code is ${code}. It expires in 10 minutes.\n\n${'Thanks for being with us. Your order history, invoices and settings are in your account.\n'.repeat(40)}`;
  const row = '<tr><td style="padding:8px;border-bottom:1px solid #e5e7eb;color:#111827">Linen shirt, sand, M</td><td class="amount" style="text-align:right">€49.00</td></tr>\n';
  const html = `<html><head><style>.btn{background-color:#1a56db;color:#fff;padding:14px 28px;border-radius:6px} @media (max-width:620px){.c{width:100%!important}}</style></head>\n<body style="background:#f2f4f8"><table class="c" width="600" cellpadding="0"><tr><td style="background:#0b1f44;color:#fff;padding:32px"><img src="https://img.example-cdn.com/logo.png" width="120" alt="logo"><h1>Your code</h1></td></tr>\n${row.repeat(30)}<tr><td><a class="btn" href="https://app.example/start">Get started</a><img src="https://t.example/o.gif" width="1" height="1" alt=""></td></tr></table></body></html>`;
  const boundary = `=_bench_${i}`;
  return smtpData(
    [
      `From: Acme <${SENDER}>`,
      `To: Bench <${MAILBOX}>`,
      `Subject: Your Acme sign-in code ${code}`,
      `Date: ${new Date(Date.UTC(2026, 10, 26, 12, 0, i % 60)).toUTCString()}`,
      `Message-ID: <bench-${i}-${code}@acme.example>`,
      'MIME-Version: 1.0',
      `Content-Type: multipart/alternative; boundary="${boundary}"`,
      '',
      `--${boundary}`,
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      quotedPrintable(text),
      `--${boundary}`,
      'Content-Type: text/html; charset=utf-8',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      quotedPrintable(html),
      `--${boundary}--`,
      '',
    ].join('\n'),
  );
}

/**
 * A plain-text mail whose body is `body` as is (8bit, no line folding). The subject names a code but
 * holds none, so the code is looked for in the text, as for most sign-in mail.
 */
function plainMail(i, body) {
  return smtpData(
    [`From: Acme <${SENDER}>`, `To: ${MAILBOX}`, `Message-ID: <line-${i}@acme.example>`, 'Subject: Your Acme sign-in code', 'MIME-Version: 1.0', 'Content-Type: text/plain; charset=utf-8', 'Content-Transfer-Encoding: 8bit', '', body, ''].join('\n'),
  );
}

function longLine(kind) {
  const unit = kind === 'cyrillic' ? 'абвгдежзийклмнопрстуфхцчшщэюя' : 'Thanks for being with us, your order history and invoices are in your account. ';
  return unit.repeat(Math.ceil(10_000 / unit.length)).slice(0, 10_000);
}

// ---------- modes ----------

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const span = (xs, digits) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;
const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MB`;

async function rateMode() {
  const bodies = Array.from({ length: 64 }, (_, i) => newsletter(i));
  const bytes = bodies.reduce((n, b) => n + b.length, 0) / bodies.length;
  const other = AGAINST ? 'base' : 'maildev';
  console.log(
    `SMTP intake: ${bytes.toFixed(0)}-byte newsletter mails, ${CONNECTIONS} connections, ${COUNT} mails per run after ${WARMUP} warm-up, ${RUNS} runs each alternating; node ${process.version}, svc ${DIST}, ${other} ${AGAINST ?? MAILDEV}`,
  );
  const results = { svc: [], [other]: [] };
  const cpu = { svc: [], [other]: [] };
  for (let i = 0; i < RUNS; i++) {
    for (const kind of i % 2 === 0 ? ['svc', other] : [other, 'svc']) {
      const server = await startChild(kind);
      try {
        const deadline = Date.now() + MAX_SECONDS * 1000;
        await sendMany(server.smtpPort, WARMUP, CONNECTIONS, (n) => bodies[n % bodies.length], deadline);
        const before = cpuOf(server.child.pid);
        const { rate, seconds } = await sendMany(server.smtpPort, COUNT, CONNECTIONS, (n) => bodies[n % bodies.length], deadline);
        const after = cpuOf(server.child.pid);
        const perMail = { own: ((after.own - before.own) * 1000) / COUNT, pool: ((after.descendants - before.descendants) * 1000) / COUNT };
        results[kind].push(rate);
        cpu[kind].push(perMail);
        console.log(
          `  run ${i + 1} ${kind.padEnd(7)} ${rate.toFixed(0).padStart(6)} msg/s (${seconds.toFixed(1)} s); CPU per mail ${perMail.own.toFixed(2)} ms in its process, ${perMail.pool.toFixed(2)} ms in its children`,
        );
      } finally {
        await stopChild(server);
      }
    }
  }
  const ratios = results.svc.map((s, i) => s / results[other][i]);
  for (const kind of ['svc', other]) {
    const own = median(cpu[kind].map((c) => c.own));
    const pool = median(cpu[kind].map((c) => c.pool));
    console.log(`${kind.padEnd(7)} ${span(results[kind], 0)} msg/s, median ${median(results[kind]).toFixed(0)}; CPU per mail (median) ${own.toFixed(2)} ms in its process + ${pool.toFixed(2)} ms in its children`);
  }
  console.log(`svc/${other} per pair of runs: ${span(ratios, 2)}, median ${median(ratios).toFixed(2)}`);
}

async function lineMode() {
  const kind = process.env.BENCH_LINE_KIND === 'cyrillic' ? 'cyrillic' : 'words';
  const line = longLine(kind);
  const small = 'Hi Sam,\nYour verification code is 482913. It expires in 10 minutes.\n';
  const long = `${small}${line}\n`;
  console.log(`SMTP intake, one connection, one mail after another: a ${line.length}-character single-line body (${kind}) against a ${small.length}-character one; ${ROUNDS} rounds of ${COUNT} each; node ${process.version}, svc ${DIST}`);
  const server = await startChild('svc');
  try {
    const deadline = Date.now() + MAX_SECONDS * 1000;
    await sendMany(server.smtpPort, WARMUP, 1, (n) => plainMail(n, n % 2 ? long : small), deadline);
    const ms = { small: [], long: [] };
    for (let r = 0; r < ROUNDS; r++) {
      // small then long, long then small, …: a drift of the machine over the run falls on both alike
      const order = [['small', small], ['long', long]];
      for (const [name, body] of r % 2 === 0 ? order : order.reverse()) {
        const { seconds } = await sendMany(server.smtpPort, COUNT, 1, (n) => plainMail(n, body), deadline);
        ms[name].push((seconds * 1000) / COUNT);
      }
      console.log(`  round ${r + 1}: small ${ms.small[r].toFixed(2)} ms/mail, long line ${ms.long[r].toFixed(2)} ms/mail`);
    }
    const s = median(ms.small);
    const l = median(ms.long);
    console.log(`median small ${s.toFixed(2)} ms/mail (${span(ms.small, 2)}), long line ${l.toFixed(2)} ms/mail (${span(ms.long, 2)}): long/small ${(l / s).toFixed(2)}`);
  } finally {
    await stopChild(server);
  }
}

async function memoryMode() {
  const bodies = Array.from({ length: 64 }, (_, i) => newsletter(i));
  console.log(`svc RSS over ${MEMORY_COUNT} SMTP mails of ~10 KB, ${CONNECTIONS} connections, every ${MEMORY_STEP}; node ${process.version}, svc ${DIST}`);
  const server = await startChild('svc');
  try {
    const at = await rssOf(server);
    console.log(`  at start:      rss ${mb(at.rss)}, heap ${mb(at.heap)}`);
    let lastPrinted = 0;
    let stepStarted = performance.now();
    const { rate } = await sendMany(server.smtpPort, MEMORY_COUNT, CONNECTIONS, (n) => bodies[n % bodies.length], Date.now() + MAX_SECONDS * 1000, async (done) => {
      if (done % MEMORY_STEP !== 0 || done === lastPrinted) return;
      lastPrinted = done;
      const m = await rssOf(server);
      const stepRate = MEMORY_STEP / ((performance.now() - stepStarted) / 1000);
      stepStarted = performance.now();
      console.log(`  after ${String(done).padStart(7)}: rss ${mb(m.rss)}, heap ${mb(m.heap)} (${stepRate.toFixed(0)} msg/s)`);
    });
    console.log(`${MEMORY_COUNT} mails at ${rate.toFixed(0)} msg/s`);
  } finally {
    await stopChild(server);
  }
}

async function main() {
  // Output piped into `head`: the first failed write ends the run, children first.
  process.stdout.on('error', (err) => {
    killChildren();
    process.exit(err.code === 'EPIPE' ? 0 : 1);
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      killChildren();
      process.exit(130);
    });
  }
  process.on('exit', killChildren);
  try {
    if (MODE === 'rate') await rateMode();
    else if (MODE === 'line') await lineMode();
    else if (MODE === 'memory') await memoryMode();
    else throw new Error(`BENCH_MODE must be rate, line or memory (got ${MODE})`);
  } catch (err) {
    console.error(err);
    process.exitCode = 1;
  } finally {
    killChildren();
  }
}

// Last, once every declaration above is initialised.
const role = process.argv[2];
if (role === 'svc') await serveSvc();
else if (role === 'base') await serveSvc(AGAINST);
else if (role === 'maildev') await serveMaildev();
else await main();
