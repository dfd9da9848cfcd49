import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ContentJobFailed, ContentPool, ContentPoolUnavailable, DEFAULT_CONTENT_POOL, OverloadedError } from '../../src/mail/messages/content-pool.js';
import type { SmtpGateway } from '../../src/mail/smtp/smtp-gateway.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { bearer, createTestMailbox, type TestMailbox } from '../helpers/mail-fixtures.js';
import { startTestService, type TestService } from '../helpers/service.js';

// 4.3 MB of `<p>x</p>`: sanitised in 0.6–1.7 s and received (parsed and inspected) in 0.12–0.37 s on the machines
// here. Storing and reading share one time limit in the service (SVC_MAIL_HTML_TIMEOUT_MS), and on some CPUs no
// limit fits between the two (only 4–6 times apart), so the tests give reading a limit of its own (htmlTimeLimitMs):
// READ_LIMIT_MS, which sanitising this HTML overruns severalfold on any CPU, while storing it has a minute.
const SLOW_HTML = '<p>x</p>'.repeat(532_500);
const MIB = 1024 * 1024;
const READ_LIMIT_MS = 50;
const STORE_LIMIT_MS = 60_000;

/** SLOW_HTML as an SMTP client sends it: base64 in lines of 76 (what nodemailer's `textEncoding: 'base64'` writes). */
const SLOW_MAIL = Buffer.from(
  `From: a@example.org\r\nTo: x@svc.test\r\nSubject: Your code 482913\r\nContent-Type: text/html\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.from(SLOW_HTML).toString('base64').replace(/.{76}/g, '$&\r\n')}\r\n`,
);

/** Until the condition holds: the pool's own counters, polled each turn of the event loop (no sleeping). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

/** The content workers a process runs now (the pools of this test file are this process's only children running it). */
function workerPids(parent = process.pid): number[] {
  let out = '';
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(parent)], { encoding: 'utf8' });
  } catch {
    // ps exits 1 when the process has no children.
  }
  return out
    .split('\n')
    .filter((line) => line.includes('content-worker.js'))
    .map((line) => Number.parseInt(line.trim(), 10));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Kills every content worker from outside, as the kernel's OOM killer or an operator would, and waits until they are gone. */
async function killWorkers(): Promise<number> {
  const pids = workerPids();
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  await until(() => pids.every((pid) => !alive(pid)));
  return pids.length;
}

const RAW = Buffer.from(
  [
    'From: "Ann" <ann@example.org>',
    'To: x@svc.test',
    'Subject: =?UTF-8?B?R3LDvMOfZQ==?=',
    'Content-Type: multipart/mixed; boundary=zz',
    '',
    '--zz',
    'Content-Type: text/plain',
    '',
    'Use 482913 to sign in.',
    '--zz',
    'Content-Type: application/octet-stream',
    'Content-Disposition: attachment; filename=a.bin',
    'Content-Transfer-Encoding: base64',
    '',
    'AAECAw==',
    '--zz--',
    '',
  ].join('\r\n'),
);

describe('the content pool (docs/architecture.md#outsider-bytes-never-run-on-the-event-loop)', () => {
  const pools: ContentPool[] = [];
  const pool = (options: Partial<typeof DEFAULT_CONTENT_POOL> = {}) => {
    const p = new ContentPool({ ...DEFAULT_CONTENT_POOL, threads: 1, ...options });
    pools.push(p);
    return p;
  };
  afterEach(async () => {
    for (const p of pools.splice(0)) await p.close();
  });

  it('parses MIME in a worker: headers decoded, attachment bytes moved back intact', async () => {
    const parsed = await pool().parseMime(RAW);
    expect(parsed).toMatchObject({ from: { address: 'ann@example.org', name: 'Ann' }, subject: 'Grüße', text: 'Use 482913 to sign in.\n' });
    expect(parsed.headers.find((h) => h.name === 'Subject')?.value).toBe('Grüße');
    expect(parsed.attachments).toHaveLength(1);
    expect([...parsed.attachments[0]!.content]).toEqual([0, 1, 2, 3]);
  });

  it('receive parses and inspects a raw message in one job: the same as parseMime, then inspect of the fields deliver stores', async () => {
    const p = pool();
    const raw = Buffer.from(
      [
        'From: shop@example.org',
        'To: x@svc.test',
        'Subject: Your verification code',
        'Content-Type: multipart/related; boundary=rr',
        '',
        '--rr',
        'Content-Type: text/html; charset=utf-8',
        '',
        '<p onclick="x()">Use 482913 to sign in.</p>\u0000<img src="cid:Logo@Shop">',
        '--rr',
        'Content-Type: image/png',
        'Content-ID: <Logo@Shop>',
        'Content-Transfer-Encoding: base64',
        '',
        'iVBORw0KGgo=',
        '--rr--',
        '',
      ].join('\r\n'),
    );
    const { parsed, inspected } = await p.receive(raw);
    expect(parsed).toEqual(await p.parseMime(raw));
    // As MailService.deliver inspects a message: its HTML without NUL.
    const html = parsed.html!.replaceAll('\u0000', '');
    expect(inspected).toEqual(await p.inspect({ subject: parsed.subject, text: parsed.text, html, headersOf: null }));
    expect(inspected).toEqual({ state: 'raw', code: '482913', links: [], verificationLink: null, searchText: 'your verification code use 482913 to sign in', headers: null });
    // Its first read sanitises it, with its cid: image by normalised content id (MailReader).
    const image = parsed.attachments[0]!;
    const read = await p.sanitize({ html, inline: [{ contentId: 'logo@shop', contentType: 'image/png', content: image.content }] });
    expect(read.state).toBe('clean');
    expect(read.html).toContain('src="data:image/png;base64,iVBORw0KGgo="');
    expect(read.html).not.toContain('onclick');
  });

  it('HTML that takes too long to sanitise is stored as received and dropped at its first read, within the limit', async () => {
    const p = pool({ timeLimitMs: STORE_LIMIT_MS, htmlTimeLimitMs: READ_LIMIT_MS });
    const { parsed, inspected } = await p.receive(SLOW_MAIL);
    expect(inspected).toMatchObject({ state: 'raw', code: '482913', headers: null });
    const failed = await p.sanitize({ html: parsed.html!, inline: [] }).catch((e: unknown) => e);
    expect(failed).toMatchObject({ job: 'sanitize', reason: 'timeout' });
  });

  it('receive: a parse over its limit fails as parseMime does (the message is refused, not stored degraded)', async () => {
    const p = pool({ timeLimitMs: 300 });
    const raw = Buffer.from(`From: a@example.org\r\nTo: x@svc.test\r\nSubject: nest\r\n${'Content-Type: message/rfc822\r\n\r\n'.repeat(20_000)}x\r\n`);
    const failed = await p.receive(raw).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ContentJobFailed);
    expect(failed).toMatchObject({ job: 'receive', reason: 'timeout' });
  });

  it('ends a job over its time limit with its worker, and the next job gets a fresh worker', async () => {
    const p = pool({ htmlTimeLimitMs: READ_LIMIT_MS });
    const failed = await p.sanitize({ html: SLOW_HTML, inline: [] }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ContentJobFailed);
    expect(failed).toMatchObject({ job: 'sanitize', reason: 'timeout' });
    const next = await p.sanitize({ html: '<p onclick="x()">hi</p>', inline: [] });
    expect(next).toEqual({ html: '<p>hi</p>', state: 'clean' });
  });

  it('ends a job over its memory limit, and the pool goes on', async () => {
    const p = pool({ memoryLimitMb: 32, timeLimitMs: 20_000 });
    // Sanitising 40 MB of markup builds a DOM far larger than the worker's 32 MiB heap.
    const failed = await p.sanitize({ html: `<div>${'<p>x</p>'.repeat(5_000_000)}</div>`, inline: [] }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ContentJobFailed);
    expect(failed).toMatchObject({ job: 'sanitize', reason: 'memory' });
    expect((await p.parseMime(RAW)).subject).toBe('Grüße');
  });

  it('a worker killed while idle costs no job: the job runs on a fresh worker, intact', async () => {
    const p = pool();
    expect((await p.parseMime(RAW)).subject).toBe('Grüße');
    expect(await killWorkers()).toBe(1);
    expect((await p.parseMime(RAW)).subject).toBe('Grüße');
    expect(await killWorkers()).toBe(1);
    expect(await p.inspect({ subject: 'Your code', text: 'Your code is 482913.', html: '<p>hi</p>', headersOf: null })).toEqual({
      state: 'raw',
      code: '482913',
      links: [],
      verificationLink: null,
      searchText: 'your code your code is 482913',
      headers: null,
    });
  });

  it('a closed pool fails its running and queued jobs as unavailable, never as the input over its limit', async () => {
    const p = pool({ timeLimitMs: 60_000 });
    const running = p.sanitize({ html: SLOW_HTML, inline: [] }).catch((e: unknown) => e);
    await until(() => p.stats().running === 1);
    const queued = p.parseMime(RAW).catch((e: unknown) => e);
    await p.close();
    for (const failed of [await running, await queued]) {
      expect(failed).toBeInstanceOf(ContentPoolUnavailable);
      expect(failed).not.toBeInstanceOf(ContentJobFailed);
    }
  });

  it('a worker whose service died ends its job at once instead of running on alone', async () => {
    // A service (the built pool, as main.ts runs it) parsing nested message/rfc822 for half a minute, killed mid-job.
    const pool = fileURLToPath(new URL('../../dist/mail/messages/content-pool.js', import.meta.url));
    const script = `const { ContentPool, DEFAULT_CONTENT_POOL } = await import(${JSON.stringify(pool)});
      const raw = Buffer.from('Subject: nest\\r\\n' + 'Content-Type: message/rfc822\\r\\n\\r\\n'.repeat(30000) + 'x\\r\\n');
      new ContentPool({ ...DEFAULT_CONTENT_POOL, threads: 1, timeLimitMs: 60000 }).parseMime(raw).catch(() => {});`;
    const service = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
    let worker: number | undefined;
    try {
      await until(() => workerPids(service.pid).length === 1);
      worker = workerPids(service.pid)[0]!;
      const pid = worker;
      // Its job has begun once the worker has spent more CPU than loading its modules takes (fields 14 and 15 of /proc/<pid>/stat, in ticks of 10 ms).
      const cpuTicks = () => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ').slice(11, 13).reduce((n, v) => n + Number(v), 0);
      await until(() => cpuTicks() > 150);
    } finally {
      service.kill('SIGKILL');
    }
    const killedAt = Date.now();
    await until(() => !alive(worker) || Date.now() - killedAt > 5000);
    const orphaned = alive(worker);
    if (orphaned) process.kill(worker, 'SIGKILL');
    expect(orphaned).toBe(false);
  });

  it('queues at most maxQueue jobs; past that OverloadedError (503 overloaded, Retry-After), and nothing queued is lost', async () => {
    const p = pool({ maxQueue: 1, timeLimitMs: 60_000, htmlTimeLimitMs: 60_000 });
    const slow = p.sanitize({ html: SLOW_HTML, inline: [] });
    await until(() => p.stats().running === 1);
    const queued = p.showRemoteImages('<img data-svc-remote-src="https://x.example/a.png">');
    const refused = await p.showRemoteImages('<p>x</p>').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OverloadedError);
    expect(refused).toMatchObject({ status: 503, code: 'overloaded', headers: { 'retry-after': '1' } });
    expect((await slow).state).toBe('clean');
    expect(await queued).toBe('<img src="https://x.example/a.png">');
  });
});

describeEachDatabase('content pool at the intakes', (dialect) => {
  let t: TestService;
  let port: number;
  let box: TestMailbox;
  beforeAll(async () => {
    t = await startTestService(dialect, { env: { SMTP_PORT: '0', SVC_MAIL_WORKERS: '1', SVC_MAIL_QUEUE: '0', SVC_MAIL_HTML_TIMEOUT_MS: '60000' } });
    await t.service.start();
    port = (t.service.ctx.background.find((task) => task.name === 'smtp') as SmtpGateway).address().port;
    box = await createTestMailbox(t, 'busy@svc.test');
  });
  afterAll(() => t.close());

  const count = async () => (await t.request('GET', `/mailboxes/${box.address}/messages`, undefined, bearer(box.token))).json().items.length as number;

  it('a full pool answers POST /api/inbound 503 overloaded with Retry-After and SMTP 451 4.3.2; both succeed once it drains', async () => {
    const before = await count();
    const slow = t.api('POST', '/api/inbound', { to: box.address, subject: 'slow', html: SLOW_HTML });
    const pool = t.service.ctx.contentPool;
    await until(() => pool.stats().running === 1);

    const http = await t.api('POST', '/api/inbound', { to: box.address, subject: 'small', text: 'hi' });
    expect(http.statusCode).toBe(503);
    expect(http.headers['retry-after']).toBe('1');
    expect(http.json()).toMatchObject({ success: false, error: { code: 'overloaded' } });

    const smtp = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: false });
    const refused = (await smtp.sendMail({ from: 'a@example.org', to: box.address, subject: 'small', text: 'hi' }).catch((e: unknown) => e)) as { responseCode?: number; response?: string };
    expect(refused.responseCode).toBe(451);
    expect(refused.response).toMatch(/^451 4\.3\.2 /);

    expect((await slow).statusCode).toBe(201);
    expect(await count()).toBe(before + 1);
    expect((await t.api('POST', '/api/inbound', { to: box.address, subject: 'small', text: 'hi' })).statusCode).toBe(201);
    expect((await smtp.sendMail({ from: 'a@example.org', to: box.address, subject: 'small', text: 'hi' })).response).toMatch(/^250 /);
    expect(await count()).toBe(before + 3);
  });
});

describeEachDatabase('content workers killed from outside', (dialect) => {
  let t: TestService;
  let port: number;
  let box: TestMailbox;
  beforeAll(async () => {
    t = await startTestService(dialect, { env: { SMTP_PORT: '0', SVC_MAIL_WORKERS: '2' } });
    await t.service.start();
    port = (t.service.ctx.background.find((task) => task.name === 'smtp') as SmtpGateway).address().port;
    box = await createTestMailbox(t, 'killed@svc.test');
  });
  afterAll(() => t.close());

  it('the next messages are accepted whole (250, 201), not refused 554 or stored without their HTML and code', async () => {
    const smtp = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: false });
    const mail = { from: 'a@example.org', to: box.address, subject: 'Your verification code', text: 'Use 482913 to sign in.', html: '<p>Use 482913 to sign in.</p>' };
    expect((await smtp.sendMail(mail)).response).toMatch(/^250 /);
    expect(await killWorkers()).toBeGreaterThan(0);
    const info = (await smtp.sendMail(mail).catch((e: unknown) => e)) as { response?: string };
    expect(info.response).toMatch(/^250 /);
    expect(await killWorkers()).toBeGreaterThan(0);
    const http = await t.api('POST', '/api/inbound', { to: box.address, subject: mail.subject, html: mail.html });
    expect(http.statusCode).toBe(201);
    for (const id of [/queued as (msg_\S+)/.exec(info.response ?? '')?.[1], http.json().message.id]) {
      const msg = (await t.request('GET', `/mailboxes/${box.address}/messages/${id}`, undefined, bearer(box.token))).json().message;
      expect(msg).toMatchObject({ html: expect.stringContaining('<p>Use 482913 to sign in.</p>'), html_dropped: false, code: '482913' });
    }
  });
});

/**
 * A started service with SMTP, its content pool limits as given, and a mailbox: each describe below starts its own
 * (storing has a minute in one, reading a minute in the other, so only the limit under test can run out).
 */
function smtpService(dialect: Parameters<typeof startTestService>[0], contentPool: Partial<typeof DEFAULT_CONTENT_POOL>, address: string) {
  const s = {} as { t: TestService; port: number; box: TestMailbox };
  beforeAll(async () => {
    s.t = await startTestService(dialect, { env: { SMTP_PORT: '0', SVC_INBOUND_MAX_BYTES: String(16 * MIB) }, contentPool });
    await s.t.service.start();
    s.port = (s.t.service.ctx.background.find((task) => task.name === 'smtp') as SmtpGateway).address().port;
    s.box = await createTestMailbox(s.t, address);
  });
  afterAll(() => s.t.close());
  return s;
}

describeEachDatabase('content pool limits at SMTP: reading', (dialect) => {
  // The HTML goes base64-encoded, as SLOW_MAIL: received within a minute, sanitised over READ_LIMIT_MS.
  const s = smtpService(dialect, { timeLimitMs: STORE_LIMIT_MS, htmlTimeLimitMs: READ_LIMIT_MS }, 'slow@svc.test');

  it('HTML that cannot be sanitised within its limit: accepted (250) with its code; its first read drops the HTML, keeps text and raw source', async () => {
    const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: s.port, secure: false, ignoreTLS: true, pool: false });
    const info = await smtp.sendMail({ from: 'a@example.org', to: s.box.address, subject: 'Your code 482913', text: 'kept text', html: SLOW_HTML, textEncoding: 'base64' });
    expect(info.response).toMatch(/^250 /);
    const id = /queued as (msg_\S+)/.exec(info.response)![1]!;
    const msg = (await s.t.request('GET', `/mailboxes/${s.box.address}/messages/${id}`, undefined, bearer(s.box.token))).json().message;
    expect(msg).toMatchObject({ subject: 'Your code 482913', text: 'kept text\n', html: null, html_dropped: true, code: '482913' });
    const again = (await s.t.request('GET', `/mailboxes/${s.box.address}/messages/${id}`, undefined, bearer(s.box.token))).json().message;
    expect(again).toMatchObject({ html: null, html_dropped: true, code: '482913' });
    const source = await s.t.request('GET', `/mailboxes/${s.box.address}/messages/${id}/source`, undefined, bearer(s.box.token));
    expect(source.statusCode).toBe(200);
    expect(source.body).toContain('Subject: Your code 482913');
  });
});

describeEachDatabase('content pool limits at SMTP: storing', (dialect) => {
  // The pool unit test's 300 ms, which postal-mime overruns severalfold on the nested parts below.
  const s = smtpService(dialect, { timeLimitMs: 300, htmlTimeLimitMs: STORE_LIMIT_MS }, 'nest@svc.test');

  it('MIME that cannot be parsed within its limit is refused with 554 5.6.0, nothing stored', async () => {
    const before = (await s.t.request('GET', `/mailboxes/${s.box.address}/messages`, undefined, bearer(s.box.token))).json().items.length;
    // 20,000 nested message/rfc822 parts without boundaries: postal-mime works seconds on 600 KB.
    const raw = `From: a@example.org\r\nTo: ${s.box.address}\r\nSubject: nest\r\n${'Content-Type: message/rfc822\r\n\r\n'.repeat(20_000)}x\r\n`;
    const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: s.port, secure: false, ignoreTLS: true, pool: false });
    const err = (await smtp.sendMail({ envelope: { from: 'a@example.org', to: [s.box.address] }, raw }).catch((e: unknown) => e)) as { responseCode?: number; response?: string };
    expect(err.responseCode).toBe(554);
    expect(err.response).toMatch(/5\.6\.0/);
    expect((await s.t.request('GET', `/mailboxes/${s.box.address}/messages`, undefined, bearer(s.box.token))).json().items.length).toBe(before);
  });
});
