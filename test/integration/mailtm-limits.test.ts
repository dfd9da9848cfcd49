import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { SmtpGateway } from '../../src/mail/smtp/smtp-gateway.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { createTestMailbox } from '../helpers/mail-fixtures.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { sseReader } from '../helpers/sse.js';

/** Small, so that a few small messages fill an account (mail.tm's is 40 MiB). */
const QUOTA = 10_000;

interface Account {
  readonly address: string;
  readonly id: string;
  readonly token: string;
}

/** CONTRACT §16, mail.tm accounts: `used` never exceeds `quota`; deleting an account ends its streams at once. */
describeEachDatabase('mail.tm accounts: the byte quota and the end of their streams (CONTRACT §16)', (dialect) => {
  let t: TestService;
  let sibling: TestService;
  let base: string;
  let siblingBase: string;
  let smtpPort: number;
  beforeAll(async () => {
    t = await startTestService(dialect, { mailtmQuotaBytes: QUOTA, env: { SMTP_PORT: '0' } });
    base = await t.service.start();
    sibling = await t.sibling();
    siblingBase = await sibling.service.start();
    smtpPort = (t.service.ctx.background.find((task) => task.name === 'smtp') as SmtpGateway).address().port;
  });
  afterAll(async () => {
    await sibling.close();
    await t.close();
  });

  const json = { 'content-type': 'application/json', accept: 'application/json' };
  const auth = (a: Account) => ({ accept: 'application/json', authorization: `Bearer ${a.token}` });
  async function account(address: string): Promise<Account> {
    const credentials = JSON.stringify({ address, password: 'secret-pass' });
    expect((await t.request('POST', '/mailtm/accounts', credentials, json)).statusCode).toBe(201);
    const token = await t.request('POST', '/mailtm/token', credentials, json);
    return { address, id: token.json().id, token: token.json().token };
  }
  const usage = async (a: Account) => {
    const me = (await t.request('GET', '/mailtm/me', undefined, auth(a))).json();
    return { quota: me.quota as number, used: me.used as number };
  };
  const messageIds = async (a: Account) => ((await t.request('GET', '/mailtm/messages', undefined, auth(a))).json() as { id: string }[]).map((m) => m.id);
  /** A message that counts `bytes` bytes (subject and text, CONTRACT §8's parts). */
  const sized = (subject: string, bytes: number) => ({ subject, text: 'x'.repeat(bytes - subject.length) });

  describe('used never exceeds quota', () => {
    it('each new message first deletes the oldest messages it needs room from, in the same delivery', async () => {
      const a = await account('full@svc.test');
      expect(await usage(a)).toEqual({ quota: QUOTA, used: 0 });
      const ids: string[] = [];
      for (let i = 1; i <= 5; i++) {
        const res = await t.api('POST', '/api/inbound', { to: a.address, ...sized(`m${i}`, 3000) });
        expect(res.statusCode).toBe(201);
        expect(res.json().message.mailboxes).toEqual([a.address]);
        ids.push(res.json().message.id);
        // 3 000 bytes each: the fourth and the fifth each push out the oldest
        expect(await usage(a)).toEqual({ quota: QUOTA, used: Math.min(i, 3) * 3000 });
      }
      expect(await messageIds(a)).toEqual([ids[4], ids[3], ids[2]]);
      // the messages pushed out are gone with their contents, not merely hidden
      const left = await t.service.ctx.db.selectFrom('message_contents').select('id').where('id', 'in', [ids[0]!, ids[1]!]).execute();
      expect(left).toEqual([]);

      // a message of exactly the quota fits, alone
      const whole = await t.api('POST', '/api/inbound', { to: a.address, ...sized('all', QUOTA) });
      expect(whole.statusCode).toBe(201);
      expect(await messageIds(a)).toEqual([whole.json().message.id]);
      expect(await usage(a)).toEqual({ quota: QUOTA, used: QUOTA });
    });

    it('a message its reader deleted makes room: no more is deleted than the new message needs', async () => {
      const a = await account('tidy@svc.test');
      const ids: string[] = [];
      for (let i = 1; i <= 3; i++) ids.push((await t.api('POST', '/api/inbound', { to: a.address, ...sized(`t${i}`, 3000) })).json().message.id);
      for (const id of ids.slice(1)) expect((await t.request('DELETE', `/mailtm/messages/${id}`, undefined, auth(a))).statusCode).toBe(204);
      expect(await usage(a)).toEqual({ quota: QUOTA, used: 3000 });
      const next = (await t.api('POST', '/api/inbound', { to: a.address, ...sized('t4', 6000) })).json().message.id;
      expect(await messageIds(a)).toEqual([next, ids[0]]);
      expect(await usage(a)).toEqual({ quota: QUOTA, used: 9000 });
      // and the next one is again measured against what the mailbox holds
      const last = (await t.api('POST', '/api/inbound', { to: a.address, ...sized('t5', 2000) })).json().message.id;
      expect(await messageIds(a)).toEqual([last, next]);
      expect(await usage(a)).toEqual({ quota: QUOTA, used: 8000 });
    });

    it('holds with many messages delivered at once, through two instances', async () => {
      const a = await account('busy@svc.test');
      const sent = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 ? sibling : t).api('POST', '/api/inbound', { to: a.address, ...sized(`c${String(i).padStart(2, '0')}`, 3000) })),
      );
      expect(sent.map((r) => r.statusCode)).toEqual(Array(12).fill(201));
      expect(await usage(a)).toEqual({ quota: QUOTA, used: 9000 });
      const kept = await t.service.ctx.db.selectFrom('messages').select('seq').where('mailbox_address', '=', a.address).orderBy('seq').execute();
      const newest = await t.service.ctx.db.selectFrom('messages').select('seq').orderBy('seq', 'desc').limit(3).execute();
      expect(kept.map((r) => r.seq)).toEqual(newest.map((r) => r.seq).reverse());
    });

    it('a message larger than the quota is refused (413 over HTTP, 552 over SMTP); other recipients still get it', async () => {
      const a = await account('small@svc.test');
      const plain = await createTestMailbox(t, 'plain@svc.test');
      const big = sized('big', QUOTA + 1);
      const alone = await t.api('POST', '/api/inbound', { to: a.address, ...big });
      expect(alone.statusCode).toBe(413);
      expect(alone.json()).toMatchObject({ success: false, error: { code: 'payload_too_large', details: { limit: QUOTA, size: QUOTA + 1 } } });
      const both = await t.api('POST', '/api/inbound', { to: `${a.address}, ${plain.address}`, ...big });
      expect(both.statusCode).toBe(201);
      expect(both.json().message.mailboxes).toEqual([plain.address]);

      const smtp = nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true, pool: false });
      const raw = `From: a@example.org\r\nTo: ${a.address}\r\nSubject: big\r\n\r\n${'y'.repeat(QUOTA)}\r\n`;
      await expect(smtp.sendMail({ envelope: { from: 'a@example.org', to: [a.address] }, raw })).rejects.toMatchObject({
        responseCode: 552,
        response: expect.stringMatching(/^552 5\.2\.3 /),
      });
      const info = await smtp.sendMail({ envelope: { from: 'a@example.org', to: [a.address, plain.address] }, raw });
      expect(info.response).toMatch(/^250 /);

      expect(await usage(a)).toEqual({ quota: QUOTA, used: 0 });
      expect(await messageIds(a)).toEqual([]);
      expect((await t.api('GET', `/api/mailboxes/${plain.address}/messages`)).json().items).toHaveLength(2);
      // the account still takes what fits
      expect((await t.api('POST', '/api/inbound', { to: a.address, ...sized('fits', 100) })).statusCode).toBe(201);
    });
  });

  describe('deleting the account ends its live streams', () => {
    const mercure = (origin: string, a: Account) => fetch(`${origin}/mailtm/.well-known/mercure?topic=/accounts/${a.id}`, { headers: { authorization: `Bearer ${a.token}` } });

    it('on this instance at once, the Mercure stream and the inbox stream its token opened; nothing more is sent', async () => {
      const a = await account('gone@svc.test');
      const streams = [
        sseReader((await mercure(base, a)).body!),
        sseReader((await fetch(`${base}/mailboxes/${a.address}/events`, { headers: { authorization: `Bearer ${a.token}` } })).body!),
      ];
      try {
        const before = (await t.api('POST', '/api/inbound', { to: a.address, subject: 'before' })).json().message.id;
        for (const s of streams) expect((await s.next()).id).toBe(before);
        expect((await t.request('DELETE', `/mailtm/accounts/${a.id}`, undefined, auth(a))).statusCode).toBe(204);
        // the mailbox stays and still takes mail: none of it reaches the streams, which have ended
        expect((await t.api('POST', '/api/inbound', { to: a.address, subject: 'after' })).statusCode).toBe(201);
        for (const s of streams) await expect(s.next()).rejects.toThrow('stream ended');
        await vi.waitFor(() => expect(t.service.ctx.liveStreams.open).toBe(0));
      } finally {
        for (const s of streams) await s.cancel();
      }
    });

    it(
      dialect === 'postgres'
        ? 'on another instance sharing the database at once; nothing more is sent'
        : 'on another process sharing the SQLite file when a message would be sent, without sending it',
      async () => {
        const a = await account('away@svc.test');
        const stream = sseReader((await mercure(siblingBase, a)).body!);
        try {
          const seen = (await t.api('POST', '/api/inbound', { to: a.address, subject: 'seen' })).json().message.id;
          expect((await stream.next()).id).toBe(seen);
          expect((await t.request('DELETE', `/mailtm/accounts/${a.id}`, undefined, auth(a))).statusCode).toBe(204);
          if (dialect === 'postgres') await expect(stream.next()).rejects.toThrow('stream ended');
          expect((await t.api('POST', '/api/inbound', { to: a.address, subject: 'after' })).statusCode).toBe(201);
          if (dialect === 'sqlite') await expect(stream.next()).rejects.toThrow('stream ended');
          await vi.waitFor(() => expect(sibling.service.ctx.liveStreams.open).toBe(0));
        } finally {
          await stream.cancel();
        }
      },
    );
  });
});

describeEachDatabase('mail.tm accounts: the reported case, five 9 MB mails to a 40 MiB account (CONTRACT §16)', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    // 9 MB as base64 in a JSON body is 12 MB
    t = await startTestService(dialect, { env: { SVC_INBOUND_MAX_BYTES: String(16 * 1024 * 1024) } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('keeps used within the 40 MiB quota', async () => {
    const credentials = JSON.stringify({ address: 'nine@svc.test', password: 'secret-pass' });
    const json = { 'content-type': 'application/json', accept: 'application/json' };
    const created = await t.request('POST', '/mailtm/accounts', credentials, json);
    expect(created.json()).toMatchObject({ quota: 40 * 1024 * 1024, used: 0 });
    const token = (await t.request('POST', '/mailtm/token', credentials, json)).json().token;
    const attachment = Buffer.alloc(9_000_000, 'z').toString('base64');
    for (let i = 0; i < 5; i++) {
      const res = await t.api('POST', '/api/inbound', { to: 'nine@svc.test', subject: `nine ${i}`, attachments: [{ filename: 'a.bin', content_base64: attachment }] });
      expect(res.statusCode).toBe(201);
    }
    const me = (await t.request('GET', '/mailtm/me', undefined, { accept: 'application/json', authorization: `Bearer ${token}` })).json();
    // the oldest went to make room for the fifth
    expect(me).toMatchObject({ quota: 40 * 1024 * 1024, used: 4 * (9_000_000 + 'nine 0'.length) });
    expect(me.used).toBeLessThanOrEqual(me.quota);
  });
});
