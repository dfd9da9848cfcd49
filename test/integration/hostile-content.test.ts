import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, freshDatabase, processDatabaseUrl, type TestDatabase } from '../helpers/databases.js';
import {
  bigMail,
  deepNesting,
  type HostileMail,
  hugeAttributes,
  inboundOf,
  manyLessThan,
  nestedRfc822,
  pathologicalCss,
  pathologicalMime,
  SENDER,
  scriptRuns,
  smtpSourceOf,
  styleOfImgs,
  unbrokenRun,
} from '../helpers/hostile-mail.js';
import { describeWindows, LoopWatch, type LoopWindow } from '../helpers/loop-watch.js';
import { freePort, runSvc, type SvcProcess, started } from '../helpers/process.js';
import { sendSmtp, type SmtpReply } from '../helpers/raw-smtp.js';

/**
 * docs/architecture.md#outsider-bytes-never-run-on-the-event-loop: no content from outside runs on the event
 * loop. A real svc process (dist/main.js, SMTP on) is sent hostile mail over SMTP and POST /api/inbound, and
 * every view of each stored message is read (the message, /html, /html?remote_images=true, /source, the list,
 * attachments, and the mail.tm message, source and download). Meanwhile a worker thread probes GET /healthz
 * every 10 ms, and the service's own event-loop delay is read from /metrics (prom-client resets it at each
 * scrape): both must stay under GUARD_MS (100 ms), and every message
 * must be stored (a MIME-structure attack may instead be refused with a 5xx) and readable.
 *
 * Generated cases come from fast-check with a fixed seed (SVC_HOSTILE_SEED to change it, SVC_HOSTILE_RUNS
 * runs per family, default 6); the known attacks (a)–(e) follow, one message each.
 */
const SEED = process.env.SVC_HOSTILE_SEED ? Number(process.env.SVC_HOSTILE_SEED) : 22_016;
/**
 * §16's 100 ms, for every case including the 8 MB message (e). Measured on this 2-core machine while
 * other work loaded it (2026-11-26, fourth session): (e) 23-63 ms of event-loop delay on either database.
 * What (e) costs the event loop is moving 8 MB through it: the SMTP stream, the bytes to and from the
 * content pool, the statements that store it. Reading it back is sliced: attachments and sources come
 * a 1 MB statement at a time (mail.repository.ts), mail.tm's JSON of a source is escaped a slice per turn
 * (http/json-text-stream.ts). The old code stalled 0.3-9.8 s on the same mails.
 */
const GUARD_MS = 100;
const RUNS = process.env.SVC_HOSTILE_RUNS ? Number(process.env.SVC_HOSTILE_RUNS) : 6;
const LIMIT_MS = GUARD_MS;
const KEY = 'hostile_api_key_0123456789abcdef';
const METRICS_TOKEN = 'hostile-metrics-token-0123456789';
const ADDRESS = 'hostile@svc.test';
const MAILTM_PASSWORD = 'hostile-password-123';
/** A slow read fails the case rather than the whole suite's time budget. */
const REQUEST_TIMEOUT_MS = 60_000;



describeEachDatabase('hostile content: a real svc process keeps /healthz and its event loop within 100 ms while hostile mail is stored and read (docs/architecture.md#outsider-bytes-never-run-on-the-event-loop)', (dialect) => {
  let database: TestDatabase;
  let svc: SvcProcess | undefined;
  let base: string;
  let smtpPort: number;
  let watch: LoopWatch | undefined;
  let mailtmToken: string;
  const killOnExit = () => svc?.child.kill('SIGKILL');

  beforeAll(async () => {
    database = await freshDatabase(dialect);
    smtpPort = await freePort();
    svc = runSvc({
      DATABASE_URL: processDatabaseUrl(database),
      PORT: '0',
      SMTP_PORT: String(smtpPort),
      SMTP_HOST: '127.0.0.1',
      SVC_API_KEY: KEY,
      SVC_ADMIN_PASSWORD: 'hostile-admin-password',
      SVC_METRICS_TOKEN: METRICS_TOKEN,
      SVC_MAIL_DOMAINS: 'svc.test',
    });
    // vitest ending the run (or the worker) must not leave the service behind
    process.once('exit', killOnExit);
    base = await started(svc);
    const account = await call('POST', '/mailtm/accounts', { json: { address: ADDRESS, password: MAILTM_PASSWORD } });
    expect(account.status).toBe(201);
    const token = await call('POST', '/mailtm/token', { json: { address: ADDRESS, password: MAILTM_PASSWORD } });
    expect(token.status).toBe(200);
    mailtmToken = (token.json() as { token: string }).token;
    watch = new LoopWatch(base, METRICS_TOKEN);
    await watch.loopLagMs();
  });

  afterAll(async () => {
    await watch?.stop();
    if (svc) {
      // SIGTERM first (ordered shutdown); a service still stuck on a hostile message gets SIGKILL
      const forced = setTimeout(() => svc?.child.kill('SIGKILL'), 20_000);
      await svc.stop();
      clearTimeout(forced);
    }
    process.off('exit', killOnExit);
    await database?.drop();
  });

  interface Answer {
    readonly status: number;
    readonly type: string;
    readonly body: Buffer;
    json(): unknown;
  }

  async function call(method: string, path: string, opts: { json?: unknown; auth?: 'key' | 'mailtm' } = {}): Promise<Answer> {
    const headers: Record<string, string> = {};
    if (opts.auth === 'key') headers['x-api-key'] = KEY;
    if (opts.auth === 'mailtm') headers.authorization = `Bearer ${mailtmToken}`;
    if (opts.json !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${base}${path}`, {
      method,
      headers,
      body: opts.json === undefined ? undefined : JSON.stringify(opts.json),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const body = Buffer.from(await res.arrayBuffer());
    return { status: res.status, type: res.headers.get('content-type') ?? '', body, json: () => JSON.parse(body.toString('utf8')) };
  }

  const mailbox = `/api/mailboxes/${encodeURIComponent(ADDRESS)}`;

  interface StoredMessage {
    id: string;
    html: string | null;
    html_dropped: boolean;
    attachments: { id: string; size: number }[];
  }

  /**
   * Every view of a stored message answers 200 with what it should hold: the message (JSON), its HTML
   * document with and without remote images, its source (byte for byte the SMTP source, when there is
   * one), the list, each attachment (its size), and the mail.tm message, source and download.
   */
  async function readEveryView(id: string, smtpSource: Buffer | null): Promise<StoredMessage> {
    const read = await call('GET', `${mailbox}/messages/${id}`, { auth: 'key' });
    expect(read.status, `GET message: ${read.body.toString('utf8', 0, 300)}`).toBe(200);
    const message = (read.json() as { message: StoredMessage }).message;
    expect(message.id).toBe(id);
    if (message.html_dropped) expect(message.html).toBeNull();
    for (const query of ['', '?remote_images=true']) {
      const doc = await call('GET', `${mailbox}/messages/${id}/html${query}`, { auth: 'key' });
      expect(doc.status, `GET html${query}`).toBe(200);
      expect(doc.type).toMatch(/^text\/html/);
    }
    const source = await call('GET', `${mailbox}/messages/${id}/source`, { auth: 'key' });
    expect(source.status, 'GET source').toBe(200);
    if (smtpSource) expect(source.body.equals(smtpSource), 'the source is the SMTP source byte for byte').toBe(true);
    else expect(source.body.length).toBeGreaterThan(0);
    const list = await call('GET', `${mailbox}/messages?limit=100`, { auth: 'key' });
    expect(list.status, 'GET list').toBe(200);
    expect((list.json() as { items: { id: string }[] }).items.map((m) => m.id)).toContain(id);
    for (const a of message.attachments) {
      const file = await call('GET', `${mailbox}/messages/${id}/attachments/${a.id}`, { auth: 'key' });
      expect(file.status, 'GET attachment').toBe(200);
      expect(file.body.length).toBe(a.size);
      const viaMailtm = await call('GET', `/mailtm/messages/${id}/attachment/${a.id}`, { auth: 'mailtm' });
      expect(viaMailtm.status, 'mail.tm attachment').toBe(200);
    }
    const mt = await call('GET', `/mailtm/messages/${id}`, { auth: 'mailtm' });
    expect(mt.status, `mail.tm message: ${mt.body.toString('utf8', 0, 300)}`).toBe(200);
    expect((mt.json() as { id: string }).id).toBe(id);
    const mtSource = await call('GET', `/mailtm/sources/${id}`, { auth: 'mailtm' });
    expect(mtSource.status, 'mail.tm source').toBe(200);
    const download = await call('GET', `/mailtm/messages/${id}/download`, { auth: 'mailtm' });
    expect(download.status, 'mail.tm download').toBe(200);
    expect(download.body.equals(source.body)).toBe(true);
    expect((await call('GET', '/mailtm/messages', { auth: 'mailtm' })).status, 'mail.tm list').toBe(200);
    return message;
  }

  /** The id the SMTP answer names ("queued as …"), or else the newest message (the suite sends one at a time). */
  async function idOf(reply: SmtpReply): Promise<string> {
    const named = /queued as (\S+)/.exec(reply.text)?.[1];
    if (named) return named;
    const list = await call('GET', `${mailbox}/messages?limit=1`, { auth: 'key' });
    return (list.json() as { items: { id: string }[] }).items[0]!.id;
  }

  /** Over SMTP: 250 and every view readable; a MIME-structure attack may be refused with a 5xx instead, never a 4xx. */
  async function overSmtp(mail: HostileMail, label: string, windows: LoopWindow[]): Promise<StoredMessage | undefined> {
    const source = smtpSourceOf(mail, ADDRESS);
    const { result, window } = await watch!.watch(label, async () => {
      const reply = await sendSmtp(smtpPort, { from: SENDER, to: ADDRESS }, source);
      return { reply, message: reply.code === 250 ? await readEveryView(await idOf(reply), source) : undefined };
    });
    windows.push({ ...window, label: `${label} (SMTP ${result.reply.code})` });
    const refusedAsAllowed = mail.source !== undefined && result.reply.code >= 500 && result.reply.code < 600;
    expect(result.reply.code === 250 || refusedAsAllowed, `SMTP answered "${result.reply.text}" to ${mail.label}`).toBe(true);
    return result.message;
  }

  /** Over POST /api/inbound: 201 and every view readable. */
  async function overHttp(mail: HostileMail, label: string, windows: LoopWindow[]): Promise<StoredMessage | undefined> {
    const payload = inboundOf(mail, ADDRESS);
    if (!payload) return undefined;
    const { result, window } = await watch!.watch(label, async () => {
      const res = await call('POST', '/api/inbound', { json: payload, auth: 'key' });
      return { res, message: res.status === 201 ? await readEveryView((res.json() as { message: { id: string } }).message.id, null) : undefined };
    });
    windows.push(window);
    expect(result.res.status, `POST /api/inbound answered ${result.res.status} ${result.res.body.toString('utf8', 0, 300)} to ${mail.label}`).toBe(201);
    return result.message;
  }

  /** Every watched stretch under the limit, each probe answered; the message lists the slow ones, worst first. */
  function expectWithinLimit(name: string, windows: readonly LoopWindow[], limitMs = LIMIT_MS): void {
    const worst = (pick: (w: LoopWindow) => number) => Math.max(0, ...windows.map(pick)).toFixed(0);
    console.log(`[${dialect}] ${name}: ${windows.length} stretches, worst /healthz ${worst((w) => w.healthzMs)} ms, worst event-loop delay ${worst((w) => w.loopMs)} ms`);
    const slow = windows.filter((w) => w.healthzMs >= limitMs || w.loopMs >= limitMs || w.failedProbes > 0);
    expect(slow.length, `${name} [${dialect}], seed ${SEED}: over ${limitMs} ms while\n${describeWindows(slow)}`).toBe(0);
  }

  const families: [string, fc.Arbitrary<HostileMail>][] = [
    ['random deep nesting', deepNesting],
    ['long runs in every script', scriptRuns],
    ['pathological CSS', pathologicalCss],
    ['huge attributes', hugeAttributes],
    ['pathological MIME', pathologicalMime],
  ];

  // The limit presumes an otherwise idle machine
  // (docs/architecture.md#outsider-bytes-never-run-on-the-event-loop); this mail shows what the machine gives
  // a harmless one. When it fails too, the other failures of the run say nothing about the service.
  it('control: a plain newsletter, over SMTP and /api/inbound, every view read', async () => {
    const windows: LoopWindow[] = [];
    const mail: HostileMail = {
      label: 'a plain newsletter',
      subject: 'Your Acme sign-in code 482913',
      text: `Hi Sam,\n\nUse 482913 to sign in.\n\n${'Thanks for being with us. Your invoices are in your account.\n'.repeat(60)}`,
      html: `<table width="600">${'<tr><td style="padding:8px">Linen shirt, sand, M</td><td>€49.00</td></tr>'.repeat(40)}</table><img src="https://img.example/logo.png" alt="logo">`,
      attachments: [],
      encoding: '8bit',
    };
    await overSmtp(mail, 'a plain newsletter, over SMTP, then every view', windows);
    await overHttp(mail, 'a plain newsletter, over /api/inbound, then every view', windows);
    expectWithinLimit('control', windows);
  }, 60_000);

  for (const [name, arbitrary] of families) {
    it(`${name}: each mail stored over SMTP and /api/inbound and every view read`, async () => {
      const windows: LoopWindow[] = [];
      // endOnFailure: a failing case is reported as generated (with the seed to replay it), not shrunk
      // through many more slow runs; the time limit keeps a slow service from eating the suite's budget.
      await fc.assert(
        fc.asyncProperty(arbitrary, async (mail) => {
          await overSmtp(mail, `${mail.label}, over SMTP, then every view`, windows);
          await overHttp(mail, `${mail.label}, over /api/inbound, then every view`, windows);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true, interruptAfterTimeLimit: 40_000 },
      );
      expectWithinLimit(name, windows);
    }, 120_000);
  }

  it('(a) 50,000 `<` as the only, HTML, part: stored over SMTP and readable', async () => {
    const windows: LoopWindow[] = [];
    expect(await overSmtp(manyLessThan(), '50,000 <, over SMTP, then every view', windows)).toBeDefined();
    expectWithinLimit('(a) over SMTP', windows);
  }, 120_000);

  it('(a) 50,000 `<` as the only, HTML, part: stored over /api/inbound and readable', async () => {
    const windows: LoopWindow[] = [];
    expect(await overHttp(manyLessThan(), '50,000 <, over /api/inbound, then every view', windows)).toBeDefined();
    expectWithinLimit('(a) over /api/inbound', windows);
  }, 120_000);

  it('(b) a 625 KB mail of 20,000 nested message/rfc822 parts without boundaries: stored with its source, or refused with a 5xx', async () => {
    const source = nestedRfc822(20_000);
    expect(source.length).toBeGreaterThan(625_000);
    const windows: LoopWindow[] = [];
    const mail: HostileMail = { label: '20,000 nested message/rfc822', subject: '', text: null, html: null, attachments: [], encoding: '8bit', source };
    await overSmtp(mail, '20,000 nested message/rfc822 parts, over SMTP, then every view', windows);
    expectWithinLimit('(b)', windows);
  }, 120_000);

  it('(c) /html?remote_images=true of a mail whose <style> holds 200 KB of `<img ` without `>`', async () => {
    const windows: LoopWindow[] = [];
    const mail = styleOfImgs(200_000);
    const { result: stored, window: intake } = await watch!.watch('200 KB of <img in <style>, stored over /api/inbound', () =>
      call('POST', '/api/inbound', { json: inboundOf(mail, ADDRESS), auth: 'key' }),
    );
    windows.push(intake);
    expect(stored.status).toBe(201);
    const id = (stored.json() as { message: { id: string } }).message.id;
    const message = (await call('GET', `${mailbox}/messages/${id}`, { auth: 'key' })).json() as { message: StoredMessage };
    // what is under test is the read: the HTML must have been kept for it to happen
    expect(message.message.html_dropped, 'the style sheet is harmless to sanitise; the HTML is kept').toBe(false);
    const { result: doc, window: shown } = await watch!.watch('200 KB of <img in <style>, GET …/html?remote_images=true', () =>
      call('GET', `${mailbox}/messages/${id}/html?remote_images=true`, { auth: 'key' }),
    );
    windows.push(shown);
    expect(doc.status).toBe(200);
    expect(doc.body.toString('utf8')).toContain('src="https://img.example/a.png"');
    const { window: views } = await watch!.watch('200 KB of <img in <style>, every view', () => readEveryView(id, null));
    windows.push(views);
    expectWithinLimit('(c)', windows);
  }, 120_000);

  for (const script of ['cyrillic', 'greek', 'cjk'] as const) {
    it(`(d) a 4 KB text of one unbroken ${script} run (a code word in the subject): stored over SMTP and readable`, async () => {
      const windows: LoopWindow[] = [];
      expect(await overSmtp(unbrokenRun(script, 4096), `4,096 characters of ${script}, over SMTP, then every view`, windows)).toBeDefined();
      expectWithinLimit(`(d) ${script}`, windows);
    }, 120_000);
  }

  it('(e) the same 8 MB mail over /api/inbound: its base64 attachment decoded off the event loop', async () => {
    const mail = bigMail(8 * 1024 * 1024);
    const windows: LoopWindow[] = [];
    const message = await overHttp(mail, '8 MB over /api/inbound (one 6 MB attachment as base64), then every view', windows);
    expect(message?.attachments).toHaveLength(1);
    expect(message!.attachments[0]!.size).toBe(mail.attachments[0]!.content.length);
    expectWithinLimit('(e) over /api/inbound', windows, GUARD_MS);
  }, 120_000);

  it('(e) an 8 MB mail over SMTP: stored, its source and attachment intact', async () => {
    const mail = bigMail(8 * 1024 * 1024);
    const source = smtpSourceOf(mail, ADDRESS);
    expect(source.length).toBeGreaterThan(7 * 1024 * 1024);
    expect(source.length).toBeLessThan(9 * 1024 * 1024);
    const windows: LoopWindow[] = [];
    const message = await overSmtp(mail, `${(source.length / 1024 / 1024).toFixed(1)} MB, over SMTP, then every view`, windows);
    expect(message?.attachments).toHaveLength(1);
    const file = await call('GET', `${mailbox}/messages/${message!.id}/attachments/${message!.attachments[0]!.id}`, { auth: 'key' });
    const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(sha(file.body)).toBe(sha(mail.attachments[0]!.content));
    expectWithinLimit('(e)', windows, GUARD_MS);
  }, 120_000);
});
