import nodemailer from 'nodemailer';
import PostalMime from 'postal-mime';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SmtpGateway } from '../../src/mail/smtp/smtp-gateway.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { bearer, createTestMailbox, type TestMailbox } from '../helpers/mail-fixtures.js';
import { startTestService, type TestService } from '../helpers/service.js';

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

describeEachDatabase('mail: seen, raw source and headers (CONTRACT §14)', (dialect) => {
  let t: TestService;
  let port: number;
  let alice: TestMailbox;
  let bob: TestMailbox;
  beforeAll(async () => {
    t = await startTestService(dialect, { env: { SMTP_PORT: '0' } });
    await t.service.start();
    port = (t.service.ctx.background.find((task) => task.name === 'smtp') as SmtpGateway).address().port;
    alice = await createTestMailbox(t, 'alice@svc.test');
    bob = await createTestMailbox(t, 'bob@svc.test');
  });
  afterAll(async () => {
    await t.close();
  });

  const read = (m: TestMailbox, path: string) => t.request('GET', `/mailboxes/${m.address}/messages${path}`, undefined, bearer(m.token));
  const list = async (m: TestMailbox) => (await read(m, '')).json().items as { id: string; seen: boolean; subject: string }[];
  const pdf = Buffer.from('%PDF-1.4 not really\x00\x01\x02\xff', 'latin1');

  describe('source of POST /api/inbound: composed from the parts with a MIME library', () => {
    let id: string;
    beforeAll(async () => {
      const res = await t.api('POST', '/api/inbound', {
        to: 'Alice <alice@svc.test>, bob@svc.test',
        from: '"Shop, Team" <shop@example.com>',
        subject: 'Grüße — your order ✓',
        text: 'Hello,\r\nline two with ümlauts.\r\n',
        html: '<p style="background:#00f;color:#fff">Hello <b>there</b></p>',
        attachments: [
          { filename: 'invoice.pdf', content_type: 'application/pdf', content_base64: b64(pdf) },
          { filename: 'notes.txt', content_type: 'text/plain', content_base64: b64('a note\n') },
        ],
      });
      expect(res.statusCode).toBe(201);
      id = res.json().message.id;
    });

    it('answers message/rfc822 that parses back to the same subject, text, html and attachments', async () => {
      const res = await read(alice, `/${id}/source`);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^message\/rfc822/);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['content-disposition']).toBe(`inline; filename="${id}.eml"`);
      const parsed = await PostalMime.parse(res.rawPayload);
      expect(parsed.subject).toBe('Grüße — your order ✓');
      expect(parsed.from).toMatchObject({ address: 'shop@example.com', name: 'Shop, Team' });
      expect(parsed.to?.map((a) => a.address)).toEqual(['alice@svc.test', 'bob@svc.test']);
      expect(parsed.messageId).toBe(`<${id}@svc.test>`);
      // postal-mime ends a text part with a line break of its own (as for mail received over SMTP)
      expect(parsed.text?.replace(/\n$/, '')).toBe('Hello,\nline two with ümlauts.\n');
      // the HTML as sent, not as sanitised for display
      expect(parsed.html?.replace(/\n$/, '')).toBe('<p style="background:#00f;color:#fff">Hello <b>there</b></p>');
      expect(parsed.attachments.map((a) => [a.filename, a.mimeType, Buffer.from(a.content as ArrayBuffer).toString('base64')])).toEqual([
        ['invoice.pdf', 'application/pdf', b64(pdf)],
        ['notes.txt', 'text/plain', b64('a note\n')],
      ]);
    });

    it('is the same bytes on every read and in every mailbox, composed from the parts stored once', async () => {
      const a = await read(alice, `/${id}/source`);
      const again = await read(alice, `/${id}/source`);
      const b = await read(bob, `/${id}/source`);
      expect(again.rawPayload.equals(a.rawPayload)).toBe(true);
      expect(b.rawPayload.equals(a.rawPayload)).toBe(true);
      // the HTML as given is kept beside the sanitised one; no copy of the source per mailbox
      const rows = await t.service.ctx.db.selectFrom('message_contents').select(['id', 'source', 'source_html', 'msgid']).where('id', '=', id).execute();
      expect(rows).toEqual([{ id, source: null, source_html: '<p style="background:#00f;color:#fff">Hello <b>there</b></p>', msgid: `<${id}@svc.test>` }]);
      // the message's headers are the composed source's header block
      const headers = (await read(alice, `/${id}`)).json().message.headers as { name: string; value: string }[];
      const block = a.rawPayload.toString('utf8').split('\r\n\r\n')[0]!;
      expect(headers.map((h) => h.name)).toEqual(block.split('\r\n').filter((l) => /^[A-Za-z-]+:/.test(l)).map((l) => l.slice(0, l.indexOf(':'))));
    });

    it('lists the headers of the source on the message, in order and decoded', async () => {
      const msg = (await read(alice, `/${id}`)).json().message;
      const names = msg.headers.map((h: { name: string }) => h.name.toLowerCase());
      for (const h of ['from', 'to', 'subject', 'message-id', 'date', 'mime-version', 'content-type']) expect(names).toContain(h);
      const header = (name: string) => msg.headers.find((h: { name: string }) => h.name.toLowerCase() === name)?.value;
      expect(header('subject')).toBe('Grüße — your order ✓');
      expect(header('message-id')).toBe(`<${id}@svc.test>`);
      expect(header('date')).toBe(new Date(t.clock.now()).toUTCString().replace('GMT', '+0000'));
    });

    it('is 401 with a wrong token and 404 for another mailbox or an unknown message', async () => {
      expect((await t.request('GET', `/mailboxes/alice@svc.test/messages/${id}/source`, undefined, bearer('wrong'))).statusCode).toBe(401);
      const other = await createTestMailbox(t, 'carol@svc.test');
      const res = await read(other, `/${id}/source`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'not_found' } });
      expect((await read(alice, '/msg_nope/source')).statusCode).toBe(404);
    });

    it('is served under /api with the API key too', async () => {
      const res = await t.api('GET', `/api/mailboxes/bob@svc.test/messages/${id}/source`);
      expect(res.statusCode).toBe(200);
      expect((await PostalMime.parse(res.rawPayload)).subject).toBe('Grüße — your order ✓');
    });
  });

  describe('source over SMTP: the bytes as received', () => {
    it('answers exactly the bytes the client sent, and its headers', async () => {
      const raw = Buffer.from(
        [
          'From: =?UTF-8?Q?J=C3=BCrgen?= <juergen@example.org>',
          'To: alice@svc.test',
          'Subject: =?UTF-8?B?R3LDvMOfZSDwn467?=',
          'Message-ID: <smtp-1@example.org>',
          'X-Custom: folded',
          '\tcontinuation',
          'MIME-Version: 1.0',
          'Content-Type: text/plain; charset=utf-8',
          'Content-Transfer-Encoding: 8bit',
          '',
          'Body line one',
          'Body ü line two',
          '',
        ].join('\r\n'),
      );
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: false });
      const info = await transport.sendMail({ envelope: { from: 'juergen@example.org', to: ['alice@svc.test'] }, raw });
      const id = /queued as (msg_\S+)/.exec(info.response)![1]!;
      const res = await read(alice, `/${id}/source`);
      expect(res.statusCode).toBe(200);
      expect(res.rawPayload.equals(raw)).toBe(true);
      const stored = await t.service.ctx.db.selectFrom('message_contents').select('msgid').where('id', '=', id).executeTakeFirstOrThrow();
      expect(stored.msgid).toBe('<smtp-1@example.org>');
      const msg = (await read(alice, `/${id}`)).json().message;
      expect(msg.headers.slice(0, 5)).toEqual([
        { name: 'From', value: 'Jürgen <juergen@example.org>' },
        { name: 'To', value: 'alice@svc.test' },
        { name: 'Subject', value: 'Grüße 🎻' },
        { name: 'Message-ID', value: '<smtp-1@example.org>' },
        // unfolded as RFC 5322 says: the line break goes, the white space stays
        { name: 'X-Custom', value: 'folded\tcontinuation' },
      ]);
    });
  });

  describe('a large SMTP source', () => {
    it('is stored in 1 MiB chunks and read back whole; the chunks go with the last copy', async () => {
      const line = `${'z'.repeat(998)}\r\n`;
      const raw = Buffer.from(`From: big@example.org\r\nTo: alice@svc.test\r\nSubject: big source\r\n\r\n${line.repeat(2600)}`);
      const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: false });
      const info = await transport.sendMail({ envelope: { from: 'big@example.org', to: ['alice@svc.test'] }, raw });
      const bigId = /queued as (msg_\S+)/.exec(info.response)![1]!;
      const chunks = await t.service.ctx.db.selectFrom('message_source_chunks').select('position').where('message_id', '=', bigId).orderBy('position').execute();
      expect(chunks.map((c) => c.position)).toEqual([1, 2]);
      const src = await read(alice, `/${bigId}/source`);
      expect(src.rawPayload.equals(raw)).toBe(true);
      expect((await t.request('DELETE', `/mailboxes/alice@svc.test/messages/${bigId}`, undefined, bearer(alice.token))).statusCode).toBe(200);
      expect(await t.service.ctx.db.selectFrom('message_source_chunks').select('position').where('message_id', '=', bigId).execute()).toEqual([]);
    });
  });

  describe('a message stored before sources were kept', () => {
    it('has its source composed from its stored parts when asked', async () => {
      const res = await t.api('POST', '/api/inbound', {
        to: 'alice@svc.test',
        from: 'old@example.com',
        subject: 'old one',
        text: 'kept text',
        attachments: [{ filename: 'a.txt', content_type: 'text/plain', content_base64: b64('abc') }],
      });
      const id = res.json().message.id as string;
      await sql`update message_contents set source = null, headers = null, msgid = null, source_html = null where id = ${id}`.execute(t.service.ctx.db);
      const src = await read(alice, `/${id}/source`);
      expect(src.statusCode).toBe(200);
      const parsed = await PostalMime.parse(src.rawPayload);
      expect(parsed).toMatchObject({ subject: 'old one', text: 'kept text\n', messageId: `<${id}@svc.test>` });
      expect(parsed.attachments.map((a) => [a.filename, Buffer.from(a.content as ArrayBuffer).toString()])).toEqual([['a.txt', 'abc']]);
      // its headers are those of that composed source
      const headers = (await read(alice, `/${id}`)).json().message.headers as { name: string; value: string }[];
      expect(headers.find((h) => h.name === 'Subject')?.value).toBe('old one');
      expect(headers.find((h) => h.name === 'Message-ID')?.value).toBe(`<${id}@svc.test>`);
    });
  });

  describe('seen', () => {
    let id: string;
    beforeAll(async () => {
      const res = await t.api('POST', '/api/inbound', { to: 'alice@svc.test, bob@svc.test', subject: 'unread at first', text: 'x' });
      id = res.json().message.id;
    });

    it('is false in the list until the message is read; reading marks it read in that mailbox only', async () => {
      expect((await list(alice)).find((m) => m.id === id)?.seen).toBe(false);
      const msg = (await read(alice, `/${id}`)).json().message;
      expect(msg.seen).toBe(true);
      expect((await list(alice)).find((m) => m.id === id)?.seen).toBe(true);
      expect((await list(bob)).find((m) => m.id === id)?.seen).toBe(false);
    });

    it('PATCH {seen} marks read or unread and answers the message without marking it again', async () => {
      const res = await t.request('PATCH', `/mailboxes/alice@svc.test/messages/${id}`, { seen: false }, bearer(alice.token));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ success: true, message: { id, seen: false, subject: 'unread at first' } });
      expect((await list(alice)).find((m) => m.id === id)?.seen).toBe(false);
      const again = await t.request('PATCH', `/mailboxes/bob@svc.test/messages/${id}`, { seen: true }, bearer(bob.token));
      expect(again.json().message.seen).toBe(true);
      expect((await list(bob)).find((m) => m.id === id)?.seen).toBe(true);
      expect((await list(alice)).find((m) => m.id === id)?.seen).toBe(false);
    });

    it('PATCH under /api with the API key', async () => {
      const res = await t.api('PATCH', `/api/mailboxes/alice@svc.test/messages/${id}`, { seen: true });
      expect(res.statusCode).toBe(200);
      expect(res.json().message.seen).toBe(true);
    });

    it('PATCH refuses a wrong token (401), a bad body (400) and an unknown message (404)', async () => {
      expect((await t.request('PATCH', `/mailboxes/alice@svc.test/messages/${id}`, { seen: true }, bearer('nope'))).statusCode).toBe(401);
      for (const body of [{ seen: 'yes' }, {}, { seen: true, extra: 1 }, { seen: null }]) {
        const res = await t.request('PATCH', `/mailboxes/alice@svc.test/messages/${id}`, body, bearer(alice.token));
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({ success: false, error: { code: 'invalid_request' } });
      }
      const res = await t.request('PATCH', '/mailboxes/alice@svc.test/messages/msg_missing', { seen: true }, bearer(alice.token));
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ error: { code: 'not_found' } });
    });
  });
});
