import net from 'node:net';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { clientKey } from '../../src/platform/http/client-address.js';
import { attachmentStorage } from '../../src/mail/messages/mail-retention.repository.js';
import { SmtpGateway, type SmtpGatewayOptions } from '../../src/mail/smtp/smtp-gateway.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { bearer, createTestMailbox, type TestMailbox } from '../helpers/mail-fixtures.js';
import { startTestService, type TestService } from '../helpers/service.js';

interface SmtpFailure {
  responseCode?: number;
  response?: string;
}

/** A bare SMTP client over a socket: each command answers the server's complete reply (multi-line aware). */
class RawSmtp {
  private buffer = '';
  private waiting?: (reply: string) => void;
  readonly closed: Promise<number>;
  private readonly opened = performance.now();

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => {
      this.buffer += d;
      this.deliver();
    });
    this.closed = new Promise((resolve) =>
      socket.on('close', () => {
        resolve(performance.now() - this.opened);
        this.waiting?.('(closed)');
        this.waiting = undefined;
      }),
    );
    socket.on('error', () => {});
  }

  static async connect(port: number, host = '127.0.0.1', localAddress?: string): Promise<{ client: RawSmtp; greeting: string }> {
    const socket = net.connect({ port, host, localAddress });
    const client = new RawSmtp(socket);
    const greeting = await client.reply();
    return { client, greeting };
  }

  private deliver(): void {
    // a complete reply ends with a line "NNN text" (no dash after the code)
    const m = /(^|\r\n)\d{3} [^\r\n]*\r\n/.exec(this.buffer);
    if (!m || !this.waiting) return;
    const end = m.index + m[0].length;
    const reply = this.buffer.slice(0, end);
    this.buffer = this.buffer.slice(end);
    const w = this.waiting;
    this.waiting = undefined;
    w(reply.trim());
  }

  reply(): Promise<string> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.deliver();
      if (this.waiting && this.socket.destroyed) {
        this.waiting = undefined;
        resolve('(closed)');
      }
    });
  }

  async send(line: string): Promise<string> {
    const pending = this.reply();
    this.socket.write(`${line}\r\n`);
    return pending;
  }

  destroy(): void {
    this.socket.destroy();
  }
}

const code = (reply: string) => Number(reply.slice(0, 3));

function transport(port: number) {
  return nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: false });
}

describeEachDatabase('SMTP limits (README.md#mail-limits)', (dialect) => {
  let t: TestService;
  let alice: TestMailbox;
  const gateways: SmtpGateway[] = [];
  /** A real gateway with its limits shortened for the test. */
  const gateway = async (options: Partial<SmtpGatewayOptions> = {}) => {
    const g = new SmtpGateway(
      t.service.ctx.services.mail,
      { port: 0, host: '127.0.0.1', maxBytes: 8 * 1024 * 1024, hostname: 'svc.test', maxConnectionsPerIp: 50, messagesPerMinutePerIp: 10_000, ...options },
      t.clock,
      t.service.ctx.logger,
    );
    await g.start();
    gateways.push(g);
    return g.address().port;
  };
  let port: number;
  beforeAll(async () => {
    t = await startTestService(dialect);
    alice = await createTestMailbox(t, 'alice@svc.test');
    port = await gateway();
  });
  afterAll(async () => {
    for (const g of gateways) await g.stop();
    await t.close();
  });

  const latest = async (m: TestMailbox) => {
    const list = (await t.request('GET', `/mailboxes/${m.address}/messages?limit=1`, undefined, bearer(m.token))).json();
    return (await t.request('GET', `/mailboxes/${m.address}/messages/${list.items[0].id}`, undefined, bearer(m.token))).json().message;
  };

  it('after 10 refused recipients the session ends with 421', async () => {
    const { client } = await RawSmtp.connect(port);
    expect(code(await client.send('EHLO test.example'))).toBe(250);
    expect(code(await client.send('MAIL FROM:<x@example.org>'))).toBe(250);
    expect(code(await client.send('RCPT TO:<alice@svc.test>'))).toBe(250);
    for (let i = 0; i < 10; i++) expect(code(await client.send(`RCPT TO:<guess${i}@svc.test>`))).toBe(550);
    expect(code(await client.send('RCPT TO:<alice@svc.test>'))).toBe(421);
    await client.closed;
  });

  it('at most 100 recipients per message: the 101st RCPT gets 452 and the message goes to the first 100', async () => {
    const boxes = await Promise.all(Array.from({ length: 101 }, (_, i) => createTestMailbox(t, `r${i}@svc.test`)));
    const info = await transport(port)
      .sendMail({ envelope: { from: 'x@example.org', to: boxes.map((b) => b.address) }, raw: 'Subject: many\r\n\r\nhello\r\n' })
      .catch((e: unknown) => e as SmtpFailure & { rejectedErrors?: SmtpFailure[] });
    expect((info as { accepted: string[] }).accepted).toHaveLength(100);
    expect((info as { rejected: string[] }).rejected).toEqual(['r100@svc.test']);
    expect((info as { rejectedErrors: SmtpFailure[] }).rejectedErrors[0]!.responseCode).toBe(452);
    expect((await latest(boxes[99]!)).subject).toBe('many');
    const last = (await t.request('GET', `/mailboxes/${boxes[100]!.address}/messages`, undefined, bearer(boxes[100]!.token))).json();
    expect(last.items).toEqual([]);
  });

  it('an idle connection is closed after the idle limit although it sends NOOP and RSET', async () => {
    const idlePort = await gateway({ idleTimeoutMs: 1500 });
    const { client } = await RawSmtp.connect(idlePort);
    expect(code(await client.send('EHLO test.example'))).toBe(250);
    let last = '';
    const started = performance.now();
    // NOOP/RSET every 200 ms: with a per-command idle timer the connection would live forever.
    while (performance.now() - started < 6000) {
      // the server's 421 may come unsolicited between two commands: it is then the next reply read
      last = await client.send(performance.now() % 2 < 1 ? 'NOOP' : 'RSET');
      if (!last.startsWith('250')) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(last).toMatch(/^421 /);
    const lived = await client.closed;
    expect(lived).toBeGreaterThan(1400);
    expect(lived).toBeLessThan(4000);
  });

  it('a delivered message is progress: a connection that keeps delivering stays open past the idle limit', async () => {
    const idlePort = await gateway({ idleTimeoutMs: 1500 });
    const { client } = await RawSmtp.connect(idlePort);
    expect(code(await client.send('EHLO test.example'))).toBe(250);
    const started = performance.now();
    while (performance.now() - started < 3000) {
      expect(code(await client.send('MAIL FROM:<x@example.org>'))).toBe(250);
      expect(code(await client.send('RCPT TO:<alice@svc.test>'))).toBe(250);
      expect(code(await client.send('DATA'))).toBe(354);
      expect(code(await client.send('Subject: busy\r\n\r\nhi\r\n.'))).toBe(250);
      await new Promise((r) => setTimeout(r, 400));
    }
    expect(code(await client.send('NOOP'))).toBe(250);
    client.destroy();
  });

  it('per-IP connection caps count an IPv6 /64 as one client (the key the gateway counts under)', () => {
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe(clientKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    expect(clientKey('2001:db8:1:2::1')).not.toBe(clientKey('2001:db8:1:3::1'));
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('per-IP connection caps count an IPv4-mapped IPv6 address as its IPv4 address (one client per address)', async () => {
    // Listening on :: (dual stack), IPv4 clients arrive as ::ffff:127.0.0.x.
    const g = new SmtpGateway(
      t.service.ctx.services.mail,
      { port: 0, host: '::', maxBytes: 1024 * 1024, hostname: 'svc.test', maxConnectionsPerIp: 1 },
      t.clock,
      t.service.ctx.logger,
    );
    await g.start();
    gateways.push(g);
    const p = g.address().port;
    const first = await RawSmtp.connect(p, '127.0.0.1');
    expect(code(first.greeting)).toBe(220);
    const second = await RawSmtp.connect(p, '::ffff:127.0.0.1');
    expect(code(second.greeting)).toBe(421);
    const other = await RawSmtp.connect(p, '127.0.0.1', '127.0.0.2');
    expect(code(other.greeting)).toBe(220);
    first.client.destroy();
    other.client.destroy();
    second.client.destroy();
  });

  it('101 attachments: 552, nothing stored', async () => {
    const before = await attachmentStorage(t.service.ctx.db);
    const err = (await transport(port)
      .sendMail({
        envelope: { from: 'x@example.org', to: ['alice@svc.test'] },
        from: 'x@example.org',
        to: 'alice@svc.test',
        subject: 'many files',
        text: 'see attached',
        attachments: Array.from({ length: 101 }, (_, i) => ({ filename: `f${i}.txt`, content: `file ${i}` })),
      })
      .catch((e: unknown) => e)) as SmtpFailure;
    expect(err.responseCode).toBe(552);
    expect(await attachmentStorage(t.service.ctx.db)).toEqual(before);
  });

  it('20,000 tiny MIME parts are refused with 552 before parsing, and /healthz does not notice', async () => {
    const raw = `Subject: parts\r\nContent-Type: multipart/mixed; boundary=B\r\n\r\n${'--B\r\nContent-Type: text/plain\r\n\r\nx\r\n'.repeat(20_000)}--B--\r\n`;
    const started = performance.now();
    const err = (await transport(port)
      .sendMail({ envelope: { from: 'x@example.org', to: ['alice@svc.test'] }, raw })
      .catch((e: unknown) => e)) as SmtpFailure;
    expect(err.responseCode).toBe(552);
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('an unparseable message (MIME nested 300 levels) is refused with 5xx, not a 4xx retry loop', async () => {
    let body = 'leaf\r\n';
    for (let i = 0; i < 300; i++) body = `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n${body}--b${i}--\r\n`;
    const err = (await transport(port)
      .sendMail({ envelope: { from: 'x@example.org', to: ['alice@svc.test'] }, raw: `Subject: nested\r\n${body}` })
      .catch((e: unknown) => e)) as SmtpFailure;
    expect(err.responseCode).toBeGreaterThanOrEqual(500);
    expect(err.responseCode).toBeLessThan(600);
  });

  it('a 100 KB From header answers at once and is stored cut to its bound', async () => {
    const from = `${'"'.repeat(2)}${'<'.repeat(50_000)}${' '.repeat(50_000)} <evil@example.org>`;
    const started = performance.now();
    const info = await transport(port).sendMail({ envelope: { from: 'x@example.org', to: ['alice@svc.test'] }, raw: `From: ${from}\r\nSubject: long from\r\n\r\nhi\r\n` });
    expect(performance.now() - started).toBeLessThan(2000);
    expect(info.accepted).toEqual(['alice@svc.test']);
    const msg = await latest(alice);
    expect(msg.subject).toBe('long from');
    expect((msg.from ?? '').length).toBeLessThanOrEqual(320);
    expect((msg.from_name ?? '').length).toBeLessThanOrEqual(320);
  });

  it('NUL bytes in headers, text, HTML and file names are stripped (PostgreSQL cannot store them), never a 451', async () => {
    const raw = [
      'From: "Nul\u0000Name" <nul@example.org>',
      `Subject: =?UTF-8?B?${Buffer.from('sub\u0000ject').toString('base64')}?=`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="XX"',
      '',
      '--XX',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'te\u0000xt',
      '--XX',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<p>ht\u0000ml</p>',
      '--XX',
      `Content-Type: application/octet-stream; name="=?UTF-8?B?${Buffer.from('fi\u0000le.bin').toString('base64')}?="`,
      `Content-Disposition: attachment; filename="=?UTF-8?B?${Buffer.from('fi\u0000le.bin').toString('base64')}?="`,
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from([0, 1, 0, 2]).toString('base64'),
      '--XX--',
      '',
    ].join('\r\n');
    const info = await transport(port).sendMail({ envelope: { from: 'x@example.org', to: ['alice@svc.test'] }, raw });
    expect(info.accepted).toEqual(['alice@svc.test']);
    const msg = await latest(alice);
    expect(msg.subject).toBe('subject');
    expect(msg.text).toMatch(/^text/);
    expect(msg.html).toContain('html');
    for (const v of [msg.from_name, msg.subject, msg.text, msg.html]) expect(v).not.toContain('\u0000');
    expect(msg.attachments[0].filename).toBe('file.bin');
    const bytes = await t.request('GET', `/mailboxes/alice@svc.test/messages/${msg.id}/attachments/${msg.attachments[0].id}`, undefined, bearer(alice.token));
    // binary content is bytes, not text: it keeps its NULs
    expect([...bytes.rawPayload]).toEqual([0, 1, 0, 2]);
  });
});
