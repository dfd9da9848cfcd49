// Work that grows with stored data (docs/architecture.md#work-that-grows-with-stored-data): with
// BENCH_MESSAGES (1,000,000) messages stored in BENCH_MAILBOXES (100,000) mailboxes on
// SQLite, what a search of one mailbox and one SMTP message to 100 mailboxes cost the service's event loop.
// Run after `npm run build`:
//
//   node bench/data-size.mjs                                   1,000,000 messages (seeding takes minutes)
//   BENCH_MESSAGES=2000 BENCH_MAILBOXES=200 node bench/data-size.mjs   a few seconds (CI)
//
// The messages are written straight into the database in the shape the intake writes them (content, copy,
// search row as search-text.ts makes it), after the service's migrations and before it starts: storing a
// million through SMTP would take hours, and the figures measured are the search and the intake on top of them.
// Every seeded message says "invoice", so a search that read the whole index would pay for all of them.
// Figures: the seeding time; BENCH_SEARCHES (20) searches of one mailbox one after another and 8 at once, and of
// an empty mailbox (median latency, and the service's own worst event-loop delay, prom-client's
// nodejs_eventloop_lag_max_seconds, reset by each scrape of /metrics); BENCH_SMTP_ROUNDS (3) SMTP messages of
// ~32 KB of text to 100 mailboxes (time to the 250, worst event-loop delay). The service is a child
// `node dist/main.js`; it ends when this process does.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { keyedDocument, mailboxSearchKey, searchText } from '../dist/mail/messages/search-text.js';
import { openDatabase } from '../dist/platform/db/database.js';
import { migrateToLatest } from '../dist/platform/db/migrate.js';
import { newId } from '../dist/platform/ids.js';

const DIST = resolve(import.meta.dirname, '../dist/main.js');
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 1_000_000);
const MAILBOXES = Number(process.env.BENCH_MAILBOXES ?? 100_000);
const SEARCHES = Number(process.env.BENCH_SEARCHES ?? 20);
const SMTP_ROUNDS = Number(process.env.BENCH_SMTP_ROUNDS ?? 3);
const RECIPIENTS = Math.min(100, MAILBOXES);
const API_KEY = 'bench_api_key_0123456789abcdef';
const METRICS_TOKEN = 'bench-metrics-token-0123456789ab';
const DOMAIN = 'bench.test';
const GUARD_MS = 100;
const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

const address = (i) => `box-${i}@${DOMAIN}`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(1)} ms`;

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-data-'));
const path = join(dir, 'svc.db');

async function main() {
  const handle = openDatabase({ kind: 'sqlite', path, url: `sqlite:${path}` });
  await migrateToLatest(handle);
  await handle.destroy();
  const seedStart = performance.now();
  seed();
  console.log(`seeded ${MESSAGES.toLocaleString('en')} messages in ${MAILBOXES.toLocaleString('en')} mailboxes in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

  const svc = await startService();
  const over = [];
  try {
    // A mailbox in the middle, whose copies are spread over the whole index like every other's.
    const target = address(Math.floor(MAILBOXES / 2));
    const empty = `empty@${DOMAIN}`;
    await lagMs(svc);
    for (const [label, mailbox, q] of [
      ['one mailbox, "invoice"', target, 'invoice'],
      ['one mailbox, prefix "inv"', target, 'inv'],
      ['one mailbox, two words', target, 'payment%20due'],
      ['an empty mailbox', empty, 'invoice'],
    ]) {
      const times = [];
      let found = 0;
      await lagMs(svc);
      for (let i = 0; i < SEARCHES; i++) {
        const start = performance.now();
        const page = await (await api(svc, `/api/mailboxes/${encodeURIComponent(mailbox)}/messages?q=${q}&limit=50`)).json();
        times.push(performance.now() - start);
        found = page.items.length;
      }
      const loop = await lagMs(svc);
      if (loop >= GUARD_MS) over.push(label);
      console.log(`search ${label.padEnd(28)} ${String(found).padStart(3)} found: median ${ms(median(times))}; event loop max ${ms(loop)}`);
    }
    const parallel = await lagMs(svc).then(async () => {
      const start = performance.now();
      await Promise.all(Array.from({ length: 8 }, () => api(svc, `/api/mailboxes/${encodeURIComponent(target)}/messages?q=invoice&limit=50`).then((r) => r.json())));
      return { took: performance.now() - start, loop: await lagMs(svc) };
    });
    if (parallel.loop >= GUARD_MS) over.push('8 searches at once');
    console.log(`search 8 at once of one mailbox           all answered in ${ms(parallel.took)}; event loop max ${ms(parallel.loop)}`);

    const recipients = Array.from({ length: RECIPIENTS }, (_, i) => address(Math.floor((i * MAILBOXES) / RECIPIENTS)));
    const words = Array.from({ length: 4000 }, (_, i) => `word${i % 700}`).join(' ');
    for (let round = 0; round < SMTP_ROUNDS; round++) {
      await lagMs(svc);
      const source = `From: Sender <sender@elsewhere.example>\r\nTo: list@${DOMAIN}\r\nSubject: Round ${round} zebraquartz\r\n\r\nzebraquartz${round} ${words}\r\n`;
      const start = performance.now();
      await smtpSend(svc.smtpPort, recipients, source);
      const took = performance.now() - start;
      const loop = await lagMs(svc);
      if (loop >= GUARD_MS) over.push(`SMTP round ${round}`);
      const check = await (await api(svc, `/api/mailboxes/${encodeURIComponent(recipients[RECIPIENTS - 1])}/messages?q=zebraquartz${round}`)).json();
      if (check.items.length !== 1) throw new Error(`the SMTP message of round ${round} is not searchable in its last mailbox`);
      console.log(`smtp   ~32 KB to ${RECIPIENTS} mailboxes, round ${round}    250 after ${ms(took)}; event loop max ${ms(loop)}`);
    }
  } finally {
    await svc.stop();
  }
  console.log(over.length === 0 ? `every figure under ${GUARD_MS} ms of event-loop delay` : `OVER ${GUARD_MS} ms: ${over.join(', ')}`);
}

/** The messages, interleaved over the mailboxes as mail arrives, 10,000 per transaction. */
function seed() {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  const now = Date.now();
  const mailbox = db.prepare(`insert into mailboxes (address, local_part, domain, ref_code, token_hash, created_at) values (?, ?, ?, null, '', ?)`);
  db.transaction(() => {
    for (let i = 0; i < MAILBOXES; i++) mailbox.run(address(i), `box-${i}`, DOMAIN, now - 7_200_000);
    mailbox.run(`empty@${DOMAIN}`, 'empty', DOMAIN, now - 7_200_000);
  })();
  const content = db.prepare(`insert into message_contents (id, refs, text, html, html_state, links) values (?, 1, ?, null, 'none', '[]')`);
  const copy = db.prepare(
    `insert into messages (id, mailbox_address, from_address, from_name, to_header, subject, size, attachments_count, received_at, seen) values (?, ?, 'billing@shop.example', 'Shop', ?, ?, ?, 0, ?, 0)`,
  );
  const search = db.prepare('insert into message_search (rowid, document) values (?, ?)');
  const keys = Array.from({ length: MAILBOXES }, (_, i) => mailboxSearchKey(address(i)));
  const sender = searchText('billing@shop.example Shop');
  const start = now - 3_600_000;
  for (let from = 0; from < MESSAGES; from += 10_000) {
    db.transaction(() => {
      for (let n = from; n < Math.min(MESSAGES, from + 10_000); n++) {
        const box = n % MAILBOXES;
        const at = start + Math.floor((n * 3_000_000) / MESSAGES);
        const id = newId('msg', at);
        const subject = `Invoice ${n} for box ${box}`;
        const text = `Your invoice number ${n} is attached. Payment is due within thirty days; thank you for your order.`;
        content.run(id, text);
        const seq = copy.run(id, address(box), address(box), subject, text.length, at).lastInsertRowid;
        search.run(seq, keyedDocument(keys[box], `${searchText(subject)} ${searchText(text)} ${sender}`));
      }
    })();
  }
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

async function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

async function startService() {
  const port = await freePort();
  const smtpPort = await freePort();
  const child = spawn(process.execPath, [DIST], {
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: `sqlite:${path}`,
      HOST: '127.0.0.1',
      PORT: String(port),
      SMTP_PORT: String(smtpPort),
      SMTP_HOST: '127.0.0.1',
      SVC_API_KEY: API_KEY,
      SVC_ADMIN_PASSWORD: 'bench-admin-password',
      SVC_METRICS_TOKEN: METRICS_TOKEN,
      SVC_MAIL_DOMAINS: DOMAIN,
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.add(child);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) break;
    } catch {}
    if (i > 600) throw new Error('service did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base,
    smtpPort,
    stop: () =>
      new Promise((r) => {
        child.once('exit', r);
        child.kill('SIGTERM');
        children.delete(child);
      }),
  };
}

const api = (svc, path) => fetch(`${svc.base}${path}`, { headers: { 'x-api-key': API_KEY } });

/** The service's worst event-loop delay since the previous call (prom-client resets it at each scrape), in ms. */
async function lagMs(svc) {
  const text = await (await fetch(`${svc.base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const m = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? (\S+)$/m.exec(text);
  if (!m) throw new Error('no nodejs_eventloop_lag_max_seconds in /metrics');
  // Node's delay monitor drops its first interval after a reset: let it tick before the work starts.
  await new Promise((r) => setTimeout(r, 40));
  return Number(m[1]) * 1000;
}

/** One message to many recipients over a raw SMTP connection; resolves at the 250 after DATA. */
function smtpSend(port, recipients, source) {
  return new Promise((resolveSend, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const steps = ['EHLO bench\r\n', 'MAIL FROM:<sender@elsewhere.example>\r\n', ...recipients.map((r) => `RCPT TO:<${r}>\r\n`), 'DATA\r\n', `${source}.\r\n`, 'QUIT\r\n'];
    let buffer = '';
    let step = 0;
    socket.on('data', (d) => {
      buffer += d.toString();
      for (let at = buffer.indexOf('\r\n'); at >= 0; at = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        if (line[3] === '-') continue;
        if (!/^(220|250|354|221)/.test(line)) {
          socket.destroy();
          reject(new Error(`SMTP: ${line}`));
          return;
        }
        // The reply to the message's end (the step after DATA's 354 sent the source)
        if (step === steps.length - 1) resolveSend();
        if (step < steps.length) socket.write(steps[step++]);
        else socket.end();
      }
    });
    socket.on('error', reject);
  });
}

try {
  await main();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
