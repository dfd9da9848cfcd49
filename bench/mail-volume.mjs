// Mail intake per instance and the bytes a mail takes on disk (docs/scaling.md); run `npm run build` first:
//   SVC_BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/postgres node bench/mail-volume.mjs
// BENCH_MAILS (default 5000) ~10 KB multipart newsletter mails (text and HTML, a code in the subject) over
// SMTP on BENCH_CONNECTIONS (default 8) connections to 100 mailboxes, on PostgreSQL when a URL is given
// and on SQLite always. Prints mails per second and the bytes the mail tables grew by per mail
// (PostgreSQL: pg_total_relation_size, indexes and TOAST included; SQLite: the file after a checkpoint).
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { serviceNodeFlags } from './cpu.mjs';

const MAILS = Number(process.env.BENCH_MAILS ?? 5000);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const MAILBOXES = 100;
const API_KEY = 'bench_api_key_0123456789abcdef';
const MAIL_TABLES = ['mailboxes', 'messages', 'message_contents', 'message_source_chunks', 'message_attachments', 'message_search'];

async function runService(databaseUrl) {
  const { loadConfig } = await import('../dist/config.js');
  const { createService } = await import('../dist/server.js');
  const { SmtpGateway } = await import('../dist/mail/smtp/smtp-gateway.js');
  const config = loadConfig({
    DATABASE_URL: databaseUrl,
    SVC_API_KEY: API_KEY,
    SVC_ADMIN_PASSWORD: 'bench-admin-password',
    PORT: '0',
    SMTP_PORT: 'off',
    LOG_LEVEL: 'silent',
    SVC_WORKER: 'off',
  });
  const service = await createService(config);
  const http = await service.start();
  const { ctx } = service;
  // the service's own gateway with the per-address limits of one busy sending server lifted (they are not measured)
  const gateway = new SmtpGateway(ctx.services.mail, { port: 0, host: '127.0.0.1', maxBytes: config.inboundMaxBytes, hostname: 'svc.test', maxConnectionsPerIp: 1000, messagesPerMinutePerIp: 1e9 }, ctx.clock, ctx.logger);
  await gateway.start();
  await ctx.services.settings.update({ mailbox_max_messages: 10_000 });
  process.send({ http, smtp: `smtp://127.0.0.1:${gateway.address().port}` });
  process.on('message', async (m) => {
    if (m === 'stop') {
      await gateway.stop();
      await service.destroy();
      process.exit(0);
    }
  });
}

function startChild(args) {
  return new Promise((resolve, reject) => {
    const child = fork(new URL(import.meta.url).pathname, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [...process.execArgv, ...serviceNodeFlags()] });
    child.once('message', (m) => resolve({ child, ...m }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`service exited with ${code}`)));
  });
}

function stopChild(child) {
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', resolve);
    child.send('stop');
  });
}

/** About 10 KB: a sign-in code in the subject and the text, a 6 KB newsletter HTML. */
function newsletter(i) {
  const code = String(100000 + ((i * 7919) % 900000));
  const row = '<tr><td style="padding:8px;border-bottom:1px solid #e5e7eb;color:#111827">Linen shirt, sand, M</td><td style="text-align:right">€49.00</td></tr>\n';
  return {
    from: 'Acme <hello@acme.example>',
    to: `box${i % MAILBOXES}@svc.test`,
    subject: `Your Acme sign-in code ${code}`,
    text: `Hi Sam,\n\nYour verification code is ${code}. It expires in 10 minutes.\n\n${'Thanks for being with us. Your order history, invoices and settings are in your account.\n'.repeat(40)}`,
    html: `<html><body style="background:#f2f4f8"><table width="600"><tr><td><h1>Your code ${code}</h1></td></tr>\n${row.repeat(30)}<tr><td><a href="https://app.example/start">Get started</a></td></tr></table></body></html>`,
  };
}

async function measure(label, databaseUrl, bytesOf) {
  const svc = await startChild(['service', databaseUrl]);
  try {
    for (let i = 0; i < MAILBOXES; i++) {
      const res = await fetch(`${svc.http}/api/mailboxes`, { method: 'POST', headers: { 'x-api-key': API_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ name: `box${i}`, domain: 'svc.test' }) });
      if (res.status !== 201) throw new Error(`mailbox ${i}: ${res.status} ${await res.text()}`);
    }
    const port = Number(new URL(svc.smtp).port);
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: true, maxConnections: CONNECTIONS, maxMessages: Number.POSITIVE_INFINITY });
    const before = await bytesOf();
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: CONNECTIONS * 2 }, async () => {
        while (next < MAILS) await transport.sendMail(newsletter(next++));
      }),
    );
    const seconds = (performance.now() - t0) / 1000;
    transport.close();
    const res = await fetch(`${svc.http}/api/affiliate/summary`, { headers: { 'x-api-key': API_KEY } });
    if (res.status !== 200) throw new Error(`service unwell after the run: ${res.status}`);
    const after = await bytesOf();
    console.log(`  ${label}: ${MAILS} mails in ${seconds.toFixed(1)} s = ${(MAILS / seconds).toFixed(0)} mails/s; ${((after - before) / MAILS).toFixed(0)} bytes per mail on disk`);
  } finally {
    await stopChild(svc.child);
  }
}

async function main() {
  console.log(`mail volume: ${MAILS} SMTP mails of ~10 KB over ${CONNECTIONS} connections to ${MAILBOXES} mailboxes`);
  const dir = mkdtempSync(join(tmpdir(), 'svc-mail-volume-'));
  try {
    const file = join(dir, 'svc.db');
    const { default: Database } = await import('better-sqlite3');
    await measure('SQLite    ', `sqlite:${file}`, async () => {
      try {
        const db = new Database(file);
        db.pragma('wal_checkpoint(TRUNCATE)');
        db.close();
        return statSync(file).size;
      } catch {
        return 0;
      }
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const base = process.env.SVC_BENCH_POSTGRES_URL ?? process.env.SVC_TEST_POSTGRES_URL;
  if (!base) {
    console.log('  PostgreSQL: SKIPPED, set SVC_BENCH_POSTGRES_URL');
    return;
  }
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  const name = `svc_bench_mail_${process.pid}`;
  await admin.query(`create database ${name}`);
  const u = new URL(base);
  u.pathname = `/${name}`;
  const db = new pg.Client({ connectionString: u.toString() });
  try {
    await db.connect();
    await measure('PostgreSQL', u.toString(), async () => {
      const rows = await db.query("select coalesce(sum(pg_total_relation_size(c.oid)), 0) as bytes from pg_class c where c.relname = any($1) and c.relkind in ('r', 'p')", [MAIL_TABLES]);
      return Number(rows.rows[0].bytes);
    });
  } finally {
    await db.end();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

if (process.argv[2] === 'service') await runService(process.argv[3]);
else await main();
