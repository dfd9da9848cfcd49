// Waiting for a message and searching a mailbox (docs/api.md "Wait for a message", "Search"). Run after
// `npm run build`, on 127.0.0.1 only:
//
//   node bench/mail-wait-search.mjs                       SQLite
//   BENCH_POSTGRES_URL=postgres://… node bench/mail-wait-search.mjs   also PostgreSQL: one instance, and two
//                                                         (the wait on one, the SMTP intake on the other)
//
// wait: BENCH_WAITS (60) rounds: a wait (`GET /api/…/messages/wait?after=<last>`) is opened, then one mail is
//   sent over SMTP; the figure is the time from the SMTP `250` after DATA to the waiting client's answer.
//   Baseline in the same rounds: one plain `GET …/messages?limit=1` right after the `250` (what a client that
//   polls pays for one poll, at best). Prints median and p99 of each.
// search: BENCH_SEARCH_MESSAGES (10,000) messages in one mailbox (mailbox_max_messages raised to 10,000),
//   then BENCH_QUERIES (60) searches (`?q=`, two words, alternating with the plain list of the same page
//   size as a baseline). Prints median latency of each and their ratio.
// Each service is a child `node dist/main.js` with its own database (a temporary SQLite file; a fresh
// PostgreSQL database created and dropped here); children end when this process does.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { keyedDocument, mailboxSearchKey } from '../dist/mail/messages/search-text.js';

const DIST = resolve(import.meta.dirname, '../dist/main.js');
const API_KEY = 'bench_api_key_0123456789abcdef';
const ADMIN_PASSWORD = 'bench-admin-password';
const WAITS = Number(process.env.BENCH_WAITS ?? 60);
const SEARCH_MESSAGES = Number(process.env.BENCH_SEARCH_MESSAGES ?? 10_000);
const QUERIES = Number(process.env.BENCH_QUERIES ?? 60);
const PG_URL = process.env.BENCH_POSTGRES_URL;
const children = new Set();
process.on('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

let nextPort = 20_000 + Math.floor(Math.random() * 20_000);

async function startService(databaseUrl) {
  const port = nextPort++;
  const smtpPort = nextPort++;
  const child = spawn(process.execPath, [DIST], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      HOST: '127.0.0.1',
      PORT: String(port),
      SMTP_PORT: String(smtpPort),
      SVC_API_KEY: API_KEY,
      SVC_ADMIN_PASSWORD: ADMIN_PASSWORD,
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
    if (i > 300) throw new Error('service did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { base, smtpPort, databaseUrl, sqlitePath: databaseUrl.startsWith('sqlite:') ? databaseUrl.slice(7) : null, stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); children.delete(child); }) };
}

const api = (svc, path, init = {}) => fetch(`${svc.base}${path}`, { ...init, headers: { 'x-api-key': API_KEY, 'content-type': 'application/json', ...init.headers } });

/** One mail over a raw SMTP connection; resolves with the time (performance.now) its `250` after DATA arrived. */
function smtpSend(port, to, subject) {
  return new Promise((resolvePromise, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    const steps = [`EHLO bench\r\n`, `MAIL FROM:<bench@acme.example>\r\n`, `RCPT TO:<${to}>\r\n`, `DATA\r\n`,
      `From: Acme <bench@acme.example>\r\nTo: ${to}\r\nSubject: ${subject}\r\n\r\nYour verification code is 604118.\r\nConfirm: https://acme.example/confirm/Zx81Kq0pL3mN5vB7cX9a\r\n.\r\n`, 'QUIT\r\n'];
    let buffer = '';
    let step = 0;
    socket.on('data', (d) => {
      buffer += d.toString();
      while (buffer.includes('\r\n')) {
        const at = buffer.indexOf('\r\n');
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + 2);
        if (line[3] === '-') continue;
        if (step === 5) {
          if (!line.startsWith('250')) reject(new Error(`SMTP: ${line}`));
          resolvePromise(performance.now());
        }
        if (step < steps.length) socket.write(steps[step++]);
        else socket.end();
      }
    });
    socket.on('error', reject);
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p99 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];
const ms = (x) => `${x.toFixed(1)} ms`;

async function benchWait(label, waiter, sender) {
  const created = await (await api(waiter, '/api/mailboxes', { method: 'POST', body: JSON.stringify({}) })).json();
  const address = created.mailbox.address;
  let after = '';
  const waits = [];
  const polls = [];
  for (let i = 0; i < WAITS; i++) {
    const answer = api(waiter, `/api/mailboxes/${address}/messages/wait?timeout=20${after ? `&after=${after}` : ''}`).then(async (r) => ({ at: performance.now(), body: await r.json() }));
    // The wait is open once its lease is taken; a few ms is plenty on an idle machine.
    await new Promise((r) => setTimeout(r, 30));
    const sentAt = await smtpSend(sender.smtpPort, address, `Bench ${i}`);
    const pollStart = performance.now();
    await (await api(waiter, `/api/mailboxes/${address}/messages?limit=1`)).json();
    const pollEnd = performance.now();
    const got = await answer;
    if (!got.body.message) throw new Error('a wait timed out');
    after = got.body.message.id;
    waits.push(got.at - sentAt);
    polls.push(pollEnd - pollStart);
  }
  console.log(`wait  ${label.padEnd(24)} 250 → answer: median ${ms(median(waits))}, p99 ${ms(p99(waits))}   (baseline, one GET of the list after 250: median ${ms(median(polls))}, p99 ${ms(p99(polls))})`);
}

const WORDS = ['invoice', 'welcome', 'confirm', 'shipping', 'report', 'meeting', 'password', 'newsletter', 'подтверждение', 'регистрация', 'счёт', '验证码', 'αναφορά', 'update', 'weekly', 'alpha'];

/**
 * SEARCH_MESSAGES messages in the mailbox, written straight into the database in the shape the intake writes
 * (content, copy, search row as search-text.ts makes it): storing 10,000 through HTTP takes minutes on a
 * shared machine, and the figure measured is the search, not the intake.
 */
async function fillMailbox(svc, address) {
  const rows = Array.from({ length: SEARCH_MESSAGES }, (_, i) => {
    const w = (k) => WORDS[(i * 7 + k * 3) % WORDS.length];
    const subject = `${w(0)} ${w(1)} #${i}`;
    const from = `sender${i % 50}@example.test`;
    const text = `Hello, ${w(2)} and ${w(3)}. ${'Lorem ipsum dolor sit amet. '.repeat(10)}`;
    const doc = `${subject} ${text} ${from}`.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{N}\p{M}]+/gu, ' ').replace(/([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])/gu, ' $1 ');
    return { id: `msg_bench${String(i).padStart(8, '0')}`, subject, from, text, doc, at: Date.now() - (SEARCH_MESSAGES - i) };
  });
  if (svc.sqlitePath) {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(svc.sqlitePath);
    db.pragma('busy_timeout = 10000');
    const content = db.prepare(`insert into message_contents (id, refs, text, html, html_state, links) values (?, 1, ?, null, 'none', '[]')`);
    const copy = db.prepare(`insert into messages (id, mailbox_address, from_address, subject, size, attachments_count, received_at, seen) values (?, ?, ?, ?, ?, 0, ?, 0)`);
    const search = db.prepare(`insert into message_search (rowid, document) values (?, ?)`);
    db.transaction(() => {
      for (const r of rows) {
        content.run(r.id, r.text);
        const seq = copy.run(r.id, address, r.from, r.subject, r.text.length, r.at).lastInsertRowid;
        // SQLite's index is scoped to the mailbox: each word glued to its key (search-text.ts, migration 0100).
        search.run(seq, keyedDocument(mailboxSearchKey(address), r.doc));
      }
    })();
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: svc.databaseUrl });
  await client.connect();
  await client.query('begin');
  for (let at = 0; at < rows.length; at += 1000) {
    const part = rows.slice(at, at + 1000);
    await client.query(`insert into message_contents (id, refs, text, html, html_state, links) select * from unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[])`,
      [part.map((r) => r.id), part.map(() => 1), part.map((r) => r.text), part.map(() => null), part.map(() => 'none'), part.map(() => '[]')]);
    const seqs = await client.query(`insert into messages (id, mailbox_address, from_address, subject, size, attachments_count, received_at, seen)
      select id, $2, f, s, length(t), 0, a, 0 from unnest($1::text[], $3::text[], $4::text[], $5::text[], $6::bigint[]) as u(id, f, s, t, a) returning seq, id`,
      [part.map((r) => r.id), address, part.map((r) => r.from), part.map((r) => r.subject), part.map((r) => r.text), part.map((r) => r.at)]);
    const docOf = new Map(part.map((r) => [r.id, r.doc]));
    await client.query(`insert into message_search (seq, document) select s, to_tsvector('simple', d) from unnest($1::bigint[], $2::text[]) as u(s, d)`,
      [seqs.rows.map((r) => r.seq), seqs.rows.map((r) => docOf.get(r.id))]);
  }
  await client.query('commit');
  await client.query('analyze');
  await client.end();
}

async function benchSearch(label, svc) {
  const login = await fetch(`${svc.base}/admin/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password: ADMIN_PASSWORD }) });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  const { csrf_token } = await login.json();
  await fetch(`${svc.base}/admin/api/settings`, { method: 'PATCH', headers: { 'content-type': 'application/json', cookie, 'x-csrf-token': csrf_token }, body: JSON.stringify({ mailbox_max_messages: 10_000 }) });
  const address = (await (await api(svc, '/api/mailboxes', { method: 'POST', body: JSON.stringify({}) })).json()).mailbox.address;
  const started = performance.now();
  await fillMailbox(svc, address);
  const fill = (performance.now() - started) / 1000;
  const searches = [];
  const lists = [];
  let found = 0;
  for (let i = 0; i < QUERIES; i++) {
    const q = `${WORDS[i % WORDS.length]} ${WORDS[(i + 3) % WORDS.length]}`;
    let t0 = performance.now();
    const body = await (await api(svc, `/api/mailboxes/${address}/messages?limit=50&q=${encodeURIComponent(q)}`)).json();
    searches.push(performance.now() - t0);
    found += body.items.length;
    t0 = performance.now();
    await (await api(svc, `/api/mailboxes/${address}/messages?limit=50`)).json();
    lists.push(performance.now() - t0);
  }
  console.log(`search ${label.padEnd(23)} ${SEARCH_MESSAGES} messages (stored in ${fill.toFixed(1)} s): median ${ms(median(searches))} (p99 ${ms(p99(searches))}; ${(found / QUERIES).toFixed(0)} hits a page), plain list median ${ms(median(lists))}, ratio ${(median(searches) / median(lists)).toFixed(2)}`);
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-wait-'));
  try {
    const sqlite = await startService(`sqlite:${join(dir, 'svc.db')}`);
    await benchWait('SQLite, one instance', sqlite, sqlite);
    await benchSearch('SQLite', sqlite);
    await sqlite.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (!PG_URL) {
    console.log('(PostgreSQL skipped: set BENCH_POSTGRES_URL)');
    return;
  }
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  const name = `svc_bench_${process.pid}`;
  await admin.query(`create database ${name}`);
  try {
    const url = new URL(PG_URL);
    url.pathname = `/${name}`;
    const a = await startService(url.toString());
    const b = await startService(url.toString());
    await benchWait('PostgreSQL, one instance', a, a);
    await benchWait('PostgreSQL, two instances', a, b);
    await benchSearch('PostgreSQL', a);
    await a.stop();
    await b.stop();
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

main().then(() => process.exit(0), (err) => {
  console.error(err);
  process.exit(1);
});
