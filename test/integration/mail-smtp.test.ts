import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmtpGateway } from '../../src/mail/smtp/smtp-gateway.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { bearer, createTestMailbox, type TestMailbox } from '../helpers/mail-fixtures.js';
import { startTestService, type TestService } from '../helpers/service.js';

const fixture = (name: string) => readFileSync(fileURLToPath(new URL(`../fixtures/mail/${name}`, import.meta.url)));

function transport(port: number) {
  return nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: false });
}

interface SmtpFailure {
  responseCode?: number;
  rejected?: string[];
}

describeEachDatabase('mail: SMTP gateway', (dialect) => {
  let t: TestService;
  let port: number;
  let alice: TestMailbox;
  let bob: TestMailbox;
  beforeAll(async () => {
    t = await startTestService(dialect, { env: { SMTP_PORT: '0', SVC_INBOUND_MAX_BYTES: String(4 * 1024 * 1024) } });
    await t.service.start();
    const gateway = t.service.ctx.background.find((task) => task.name === 'smtp') as SmtpGateway;
    port = gateway.address().port;
    alice = await createTestMailbox(t, 'alice@svc.test');
    bob = await createTestMailbox(t, 'bob@svc.test');
  });
  afterAll(async () => {
    await t.close();
  });

  const latest = async (m: TestMailbox) => {
    const list = (await t.request('GET', `/mailboxes/${m.address}/messages`, undefined, bearer(m.token))).json();
    const id = list.items[0].id as string;
    return (await t.request('GET', `/mailboxes/${m.address}/messages/${id}`, undefined, bearer(m.token))).json().message;
  };

  it('accepts a multipart/alternative message with a UTF-8 encoded subject and sanitises its HTML', async () => {
    const info = await transport(port).sendMail({ envelope: { from: 'juergen@example.org', to: ['alice@svc.test'] }, raw: fixture('multipart-alternative.eml') });
    expect(info.accepted).toEqual(['alice@svc.test']);
    expect(info.response).toMatch(/^250 .*queued as msg_/);
    const msg = await latest(alice);
    expect(msg).toMatchObject({
      from: 'juergen@example.org',
      from_name: 'Jürgen Müller',
      subject: 'Grüße aus München 🎻',
      attachments_count: 0,
      code: null,
      attachments: [],
    });
    expect(msg.text.trim()).toBe('Hallo Alice, grüße!');
    expect(msg.html.trim()).toBe('<p>Hallo <b>Alice</b>, grüße!</p><img data-svc-remote-src="https://tracker.example/open.gif" />');
    expect(msg.remote_images).toBe(1);
  });

  it('stores an inline image with its cid and shows it as a data: image', async () => {
    await transport(port).sendMail({ envelope: { from: 'news@example.org', to: ['alice@svc.test'] }, raw: fixture('inline-image.eml') });
    const msg = await latest(alice);
    expect(msg.subject).toBe('Inline logo');
    expect(msg.attachments).toEqual([{ id: expect.stringMatching(/^att_/), filename: 'logo.png', content_type: 'image/png', size: 70 }]);
    expect(msg.html.trim()).toMatch(/^<p>Our logo: <img src="data:image\/png;base64,iVBORw0KGgo[^"]+" alt="logo" \/><\/p>$/);
  });

  it('takes a ~2 MB attachment intact, delivering to every envelope recipient and refusing unknown ones at RCPT', async () => {
    const raw = fixture('large-attachment.eml');
    const info = await transport(port).sendMail({ envelope: { from: 'sender@example.org', to: ['bob@svc.test', 'ALICE@svc.test', 'ghost@svc.test'] }, raw });
    expect(info.accepted.sort()).toEqual(['ALICE@svc.test', 'bob@svc.test']);
    expect(info.rejected).toEqual(['ghost@svc.test']);
    const msg = await latest(bob);
    expect(msg).toMatchObject({ subject: 'Large attachment', size: raw.length });
    expect(msg.text.trim()).toBe('See the attached archive.');
    const att = msg.attachments[0];
    expect(att).toMatchObject({ filename: 'data.bin', content_type: 'application/octet-stream', size: 2 * 1024 * 1024 });
    const bytes = await t.request('GET', `/mailboxes/bob@svc.test/messages/${msg.id}/attachments/${att.id}`, undefined, bearer(bob.token));
    const expected = Buffer.alloc(2 * 1024 * 1024);
    for (let i = 0; i < expected.length; i++) expected[i] = (i * 7 + (i >> 10)) & 0xff;
    expect(bytes.rawPayload.equals(expected)).toBe(true);
    expect((await latest(alice)).id).toBe(msg.id);
  });

  it('refuses unknown recipients and other domains with 550 at RCPT (a malformed address is 501)', async () => {
    // A mailbox row on a domain we do not serve is still refused: only SVC_MAIL_DOMAINS take mail.
    await createTestMailbox(t, 'foreign@elsewhere.test');
    for (const [to, code] of [
      ['ghost@svc.test', 550],
      ['foreign@elsewhere.test', 550],
      ['not-an-address', 501],
    ] as const) {
      const err = (await transport(port)
        .sendMail({ envelope: { from: 'x@example.org', to: [to] }, raw: 'Subject: hi\r\n\r\nhello\r\n' })
        .catch((e: unknown) => e)) as SmtpFailure;
      expect(err.responseCode, to).toBe(code);
    }
  });

  it('refuses a message over the size limit with 552 and stores nothing', async () => {
    const before = (await t.request('GET', '/mailboxes/bob@svc.test/messages', undefined, bearer(bob.token))).json().items.length;
    const big = `Subject: big\r\n\r\n${'x'.repeat(76)}\r\n`.repeat(1) + `${'y'.repeat(998)}\r\n`.repeat(4300);
    const err = (await transport(port)
      .sendMail({ envelope: { from: 'x@example.org', to: ['bob@svc.test'] }, raw: big })
      .catch((e: unknown) => e)) as SmtpFailure;
    expect(err.responseCode).toBe(552);
    const after = (await t.request('GET', '/mailboxes/bob@svc.test/messages', undefined, bearer(bob.token))).json().items.length;
    expect(after).toBe(before);
  });

  describe('per-IP limits', () => {
    let gateway: SmtpGateway;
    let gport: number;
    beforeAll(async () => {
      gateway = new SmtpGateway(
        t.service.ctx.services.mail,
        { port: 0, host: '127.0.0.1', maxBytes: 1024 * 1024, hostname: 'svc.test', maxConnectionsPerIp: 1, messagesPerMinutePerIp: 2 },
        t.clock,
        t.service.ctx.logger,
      );
      await gateway.start();
      gport = gateway.address().port;
    });
    afterAll(async () => {
      await gateway.stop();
    });

    it('limits messages per minute per client IP (421), and lets them through again a minute later', async () => {
      const send = () =>
        transport(gport)
          .sendMail({ envelope: { from: 'x@example.org', to: ['alice@svc.test'] }, raw: 'Subject: rate\r\n\r\nhello\r\n' })
          .then(() => 250)
          .catch((e: SmtpFailure) => e.responseCode);
      expect(await send()).toBe(250);
      expect(await send()).toBe(250);
      expect(await send()).toBe(421);
      t.clock.advance(61_000);
      expect(await send()).toBe(250);
    });

    it('limits concurrent connections per client IP', async () => {
      const pooled = nodemailer.createTransport({ host: '127.0.0.1', port: gport, secure: false, ignoreTLS: true, pool: true, maxConnections: 1 });
      // Hold one connection open with the pool, then a second connection is turned away.
      t.clock.advance(61_000);
      await pooled.sendMail({ envelope: { from: 'x@example.org', to: ['alice@svc.test'] }, raw: 'Subject: p\r\n\r\nhello\r\n' });
      const second = await transport(gport)
        .sendMail({ envelope: { from: 'x@example.org', to: ['alice@svc.test'] }, raw: 'Subject: q\r\n\r\nhello\r\n' })
        .then(() => 250)
        .catch((e: SmtpFailure) => e.responseCode ?? -1);
      pooled.close();
      expect(second).toBe(421);
    });
  });

  describe('STARTTLS', () => {
    let gateway: SmtpGateway;
    let dir: string;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'svc-tls-'));
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=svc.test', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
      gateway = new SmtpGateway(
        t.service.ctx.services.mail,
        { port: 0, host: '127.0.0.1', maxBytes: 1024 * 1024, hostname: 'svc.test', tlsKey: join(dir, 'key.pem'), tlsCert: join(dir, 'cert.pem') },
        t.clock,
        t.service.ctx.logger,
      );
      await gateway.start();
    });
    afterAll(async () => {
      await gateway.stop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('offers STARTTLS when a key and certificate are configured, and not otherwise', async () => {
      const tls = nodemailer.createTransport({ host: '127.0.0.1', port: gateway.address().port, secure: false, requireTLS: true, tls: { rejectUnauthorized: false } });
      const info = await tls.sendMail({ envelope: { from: 'x@example.org', to: ['alice@svc.test'] }, raw: 'Subject: over tls\r\n\r\nsecret\r\n' });
      expect(info.accepted).toEqual(['alice@svc.test']);
      const list = (await t.request('GET', '/mailboxes/alice@svc.test/messages?limit=1', undefined, bearer(alice.token))).json();
      expect(list.items[0].subject).toBe('over tls');

      const plain = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, requireTLS: true, tls: { rejectUnauthorized: false } });
      const err = await plain.sendMail({ envelope: { from: 'x@example.org', to: ['alice@svc.test'] }, raw: 'Subject: x\r\n\r\ny\r\n' }).then(
        () => undefined,
        (e: Error) => e,
      );
      expect(err?.message).toMatch(/STARTTLS/i);
    });
  });
});
