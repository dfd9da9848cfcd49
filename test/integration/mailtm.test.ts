import PostalMime from 'postal-mime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { addAffiliate } from '../helpers/ledger-fixtures.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { sseReader } from '../helpers/sse.js';

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
const LD = 'application/ld+json';
const JSON_TYPE = 'application/json';

/**
 * Drives /mailtm the way mail.tm client libraries do: a base URL, `Accept: application/ld+json` (or
 * application/json for the plain format), JSON bodies, `Authorization: Bearer <token>` from POST /token,
 * `application/merge-patch+json` for PATCH, and relative URLs (`downloadUrl`) joined to the base URL.
 */
class MailtmClient {
  token?: string;
  constructor(
    private readonly t: TestService,
    private readonly accept = LD,
  ) {}

  async call(method: string, path: string, body?: unknown, contentType = JSON_TYPE) {
    const headers: Record<string, string> = { accept: this.accept };
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = contentType;
    return this.t.request(method, `/mailtm${path}`, body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body), headers);
  }

  async login(address: string, password: string) {
    const res = await this.call('POST', '/token', { address, password });
    expect(res.statusCode).toBe(200);
    this.token = res.json().token;
    return res.json() as { id: string; token: string };
  }
}

describeEachDatabase('mail.tm-compatible API (docs/mailtm.md#the-mailtm-compatible-api)', (dialect) => {
  let t: TestService;
  let base: string;
  const client = () => new MailtmClient(t);
  beforeAll(async () => {
    t = await startTestService(dialect);
    base = await t.service.start();
    await addAffiliate(t, 'alpha');
  });
  afterAll(async () => {
    await t.close();
  });

  describe('domains', () => {
    it('lists the mail domains as a Hydra collection, or a plain array for application/json', async () => {
      const ld = await client().call('GET', '/domains');
      expect(ld.statusCode).toBe(200);
      expect(ld.headers['content-type']).toMatch(/^application\/ld\+json/);
      const body = ld.json();
      expect(body).toMatchObject({ '@context': '/contexts/Domain', '@id': '/domains', '@type': 'hydra:Collection', 'hydra:totalItems': 1 });
      const [domain] = body['hydra:member'];
      expect(domain).toMatchObject({ '@type': 'Domain', domain: 'svc.test', isActive: true, isPrivate: false });
      expect(domain['@id']).toBe(`/domains/${domain.id}`);
      expect(domain.id).toMatch(/^[0-9a-f]{24}$/);

      const plain = await new MailtmClient(t, JSON_TYPE).call('GET', '/domains');
      expect(plain.headers['content-type']).toMatch(/^application\/json/);
      expect(plain.json()).toEqual([{ id: domain.id, domain: 'svc.test', isActive: true, isPrivate: false, createdAt: domain.createdAt, updatedAt: domain.updatedAt }]);

      const one = await client().call('GET', `/domains/${domain.id}`);
      expect(one.json()).toMatchObject({ '@context': '/contexts/Domain', '@id': `/domains/${domain.id}`, '@type': 'Domain', domain: 'svc.test' });
      const missing = await client().call('GET', '/domains/ffffffffffffffffffffffff');
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toMatchObject({ success: false, error: { code: 'not_found' } });
    });
  });

  describe('accounts and tokens', () => {
    it('registers an account (201), refuses what mail.tm refuses (422, 400) and issues tokens (401 on a wrong password)', async () => {
      const c = client();
      const res = await c.call('POST', '/accounts', { address: 'Reg@svc.test', password: 'secret-pass' }, LD);
      expect(res.statusCode).toBe(201);
      const account = res.json();
      expect(account).toMatchObject({ '@context': '/contexts/Account', '@type': 'Account', address: 'reg@svc.test', used: 0, isDisabled: false, isDeleted: false });
      expect(account.id).toMatch(/^[0-9a-f]{24}$/);
      expect(account['@id']).toBe(`/accounts/${account.id}`);
      expect(account.createdAt).toBe('2026-01-15T12:00:00.000Z');

      for (const [body, field] of [
        [{ address: 'reg@svc.test', password: 'another-pass' }, 'address'],
        [{ address: 'someone@elsewhere.example', password: 'secret-pass' }, 'address'],
        [{ address: 'no-at-sign', password: 'secret-pass' }, 'address'],
        [{ address: 'short@svc.test', password: '123' }, 'password'],
      ] as const) {
        const bad = await c.call('POST', '/accounts', body);
        expect(bad.statusCode).toBe(422);
        expect(bad.json()).toMatchObject({ success: false, error: { code: 'invalid_request', details: [{ field }] } });
      }
      expect((await c.call('POST', '/accounts', { address: 'x@svc.test' })).statusCode).toBe(400);
      expect((await c.call('POST', '/accounts', '{not json', LD)).statusCode).toBe(400);

      expect((await c.call('POST', '/token', { address: 'reg@svc.test', password: 'wrong-pass' })).statusCode).toBe(401);
      expect((await c.call('POST', '/token', { address: 'nobody@svc.test', password: 'secret-pass' })).statusCode).toBe(401);
      const token = await c.login('REG@svc.test', 'secret-pass');
      expect(token.id).toBe(account.id);
      // JWT-shaped like mail.tm's: the middle part names the account and its Mercure topic
      const claims = JSON.parse(Buffer.from(token.token.split('.')[1]!, 'base64url').toString());
      expect(claims).toMatchObject({ id: account.id, address: 'reg@svc.test', mercure: { subscribe: [`/accounts/${account.id}`] } });

      const me = await c.call('GET', '/me');
      expect(me.statusCode).toBe(200);
      expect(me.json()).toMatchObject({ '@id': `/accounts/${account.id}`, id: account.id, address: 'reg@svc.test' });
      expect((await c.call('GET', `/accounts/${account.id}`)).json()).toMatchObject({ id: account.id, address: 'reg@svc.test' });
      expect((await c.call('GET', '/accounts/ffffffffffffffffffffffff')).statusCode).toBe(404);
      const anonymous = await client().call('GET', '/me');
      expect(anonymous.statusCode).toBe(401);
      expect(anonymous.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
      const forged = new MailtmClient(t);
      forged.token = `${token.token.slice(0, -4)}AAAA`;
      expect((await forged.call('GET', '/me')).statusCode).toBe(401);
    });

    it('tokens expire after 7 days', async () => {
      const c = client();
      await c.call('POST', '/accounts', { address: 'expiring@svc.test', password: 'secret-pass' });
      await c.login('expiring@svc.test', 'secret-pass');
      t.clock.advance(7 * 24 * 3_600_000 - 1000);
      expect((await c.call('GET', '/me')).statusCode).toBe(200);
      t.clock.advance(2000);
      expect((await c.call('GET', '/me')).statusCode).toBe(401);
    });

    it('an account is a mailbox attributed like POST /mailboxes (?ref= sets the cookie, else the svc_ref cookie)', async () => {
      const res = await client().call('POST', '/accounts?ref=alpha', { address: 'referred@svc.test', password: 'secret-pass' });
      expect(res.statusCode).toBe(201);
      expect(String(res.headers['set-cookie'])).toMatch(/^svc_ref=alpha;/);
      const byCookie = await t.request('POST', '/mailtm/accounts', { address: 'cookied@svc.test', password: 'secret-pass' }, { cookie: 'svc_ref=alpha' });
      expect(byCookie.statusCode).toBe(201);
      const plain = await client().call('POST', '/accounts', { address: 'plain@svc.test', password: 'secret-pass' });
      expect(plain.statusCode).toBe(201);
      const rows = await t.service.ctx.db
        .selectFrom('mailboxes')
        .select(['address', 'ref_code'])
        .where('address', 'in', ['referred@svc.test', 'cookied@svc.test', 'plain@svc.test'])
        .orderBy('address')
        .execute();
      expect(rows).toEqual([
        { address: 'cookied@svc.test', ref_code: 'alpha' },
        { address: 'plain@svc.test', ref_code: null },
        { address: 'referred@svc.test', ref_code: 'alpha' },
      ]);
      const stats = await t.api('GET', '/api/affiliate/summary?ref_code=alpha');
      expect(JSON.stringify(stats.json())).toContain('"mailboxes":2');
      // an address taken by POST /mailboxes cannot be registered
      await t.request('POST', '/mailboxes', { name: 'taken' });
      expect((await client().call('POST', '/accounts', { address: 'taken@svc.test', password: 'secret-pass' })).statusCode).toBe(422);
    });
  });

  describe('messages, as a client library reads them', () => {
    let c: MailtmClient;
    let accountId: string;
    let first: string;
    let sentAt: number;
    const pdf = Buffer.from('%PDF-1.4 bytes\x00\xff', 'latin1');
    beforeAll(async () => {
      c = client();
      sentAt = t.clock.now();
      await c.call('POST', '/accounts', { address: 'reader@svc.test', password: 'secret-pass' });
      accountId = (await c.login('reader@svc.test', 'secret-pass')).id;
      const sent = await t.api('POST', '/api/inbound', {
        to: 'Reader <reader@svc.test>',
        from: 'Shop <shop@example.com>',
        subject: 'Your receipt',
        text: 'Thanks for your order.\nSee the attached receipt.',
        html: '<p style="color:red">Thanks <b>for</b> your order<script>x()</script></p>',
        attachments: [{ filename: 'receipt.pdf', content_type: 'application/pdf', content_base64: b64(pdf) }],
      });
      first = sent.json().message.id;
    });

    it('lists them with mail.tm\'s fields, as a Hydra collection or a plain array', async () => {
      const res = await c.call('GET', '/messages');
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toMatchObject({ '@context': '/contexts/Message', '@id': '/messages', '@type': 'hydra:Collection', 'hydra:totalItems': 1 });
      expect(body['hydra:view']).toBeUndefined();
      expect(body['hydra:member']).toEqual([
        {
          '@id': `/messages/${first}`,
          '@type': 'Message',
          id: first,
          accountId: `/accounts/${accountId}`,
          msgid: `<${first}@svc.test>`,
          from: { address: 'shop@example.com', name: 'Shop' },
          to: [{ address: 'reader@svc.test', name: 'Reader' }],
          subject: 'Your receipt',
          intro: 'Thanks for your order. See the attached receipt.',
          seen: false,
          isDeleted: false,
          hasAttachments: true,
          size: expect.any(Number),
          downloadUrl: `/messages/${first}/download`,
          createdAt: new Date(sentAt).toISOString(),
          updatedAt: new Date(sentAt).toISOString(),
        },
      ]);
      const plain = await Object.assign(new MailtmClient(t, JSON_TYPE), { token: c.token }).call('GET', '/messages');
      expect(plain.json()).toEqual([Object.fromEntries(Object.entries(body['hydra:member'][0]).filter(([k]) => !k.startsWith('@')))]);
    });

    it('reads one (marking it seen), with text, html as an array and attachments at their downloadUrl', async () => {
      const res = await c.call('GET', `/messages/${first}`);
      expect(res.statusCode).toBe(200);
      const m = res.json();
      expect(m).toMatchObject({
        '@context': '/contexts/Message',
        '@id': `/messages/${first}`,
        '@type': 'Message',
        id: first,
        accountId: `/accounts/${accountId}`,
        msgid: `<${first}@svc.test>`,
        subject: 'Your receipt',
        seen: true,
        flagged: false,
        cc: [],
        bcc: [],
        verifications: [],
        retention: true,
        retentionDate: new Date(sentAt + 24 * 3_600_000).toISOString(),
        text: 'Thanks for your order.\nSee the attached receipt.',
        html: ['<p style="color:red">Thanks <b>for</b> your order</p>'],
        hasAttachments: true,
        downloadUrl: `/messages/${first}/download`,
        sourceUrl: `/sources/${first}`,
      });
      expect(m.attachments).toEqual([
        {
          id: expect.stringMatching(/^att_/),
          filename: 'receipt.pdf',
          contentType: 'application/pdf',
          disposition: 'attachment',
          transferEncoding: 'base64',
          related: false,
          size: pdf.length,
          downloadUrl: `/messages/${first}/attachment/${m.attachments[0].id}`,
        },
      ]);
      const file = await c.call('GET', m.attachments[0].downloadUrl);
      expect(file.statusCode).toBe(200);
      expect(file.rawPayload.equals(pdf)).toBe(true);
      expect(file.headers['content-disposition']).toMatch(/^attachment; filename="receipt.pdf"/);
      expect((await c.call('GET', '/messages')).json()['hydra:member'][0].seen).toBe(true);
    });

    it('PATCH {seen} with application/merge-patch+json marks it unseen and seen again', async () => {
      const res = await c.call('PATCH', `/messages/${first}`, { seen: false }, 'application/merge-patch+json');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ seen: false });
      expect((await c.call('GET', '/messages')).json()['hydra:member'][0].seen).toBe(false);
      expect((await c.call('PATCH', `/messages/${first}`, { seen: true }, 'application/merge-patch+json')).json()).toEqual({ seen: true });
      expect((await c.call('GET', '/messages')).json()['hydra:member'][0].seen).toBe(true);
      expect((await c.call('PATCH', `/messages/${first}`, { seen: 'yes' }, 'application/merge-patch+json')).statusCode).toBe(400);
      expect((await c.call('PATCH', '/messages/msg_nope', { seen: true }, 'application/merge-patch+json')).statusCode).toBe(404);
    });

    it('gives the source as text (GET /sources/{id}) and as message/rfc822 at the message\'s downloadUrl', async () => {
      const res = await c.call('GET', `/sources/${first}`);
      expect(res.statusCode).toBe(200);
      const source = res.json();
      expect(source).toMatchObject({ '@context': '/contexts/Source', '@id': `/sources/${first}`, '@type': 'Source', id: first, downloadUrl: `/messages/${first}/download` });
      expect(source.data).toContain('Subject: Your receipt');
      const raw = await c.call('GET', source.downloadUrl);
      expect(raw.headers['content-type']).toMatch(/^message\/rfc822/);
      expect(raw.rawPayload.toString('utf8')).toBe(source.data);
      const parsed = await PostalMime.parse(raw.rawPayload);
      expect(parsed.subject).toBe('Your receipt');
      // the source keeps the HTML as sent
      expect(parsed.html).toContain('<script>x()</script>');
      expect(Buffer.from(parsed.attachments[0]!.content as ArrayBuffer).equals(pdf)).toBe(true);
    });

    it('pages by 30 with hydra:view links', async () => {
      for (let i = 0; i < 31; i++) await t.api('POST', '/api/inbound', { to: 'reader@svc.test', subject: `bulk ${i}`, text: `n${i}` });
      const p1 = (await c.call('GET', '/messages')).json();
      expect(p1['hydra:totalItems']).toBe(32);
      expect(p1['hydra:member']).toHaveLength(30);
      expect(p1['hydra:member'][0].subject).toBe('bulk 30');
      expect(p1['hydra:view']).toEqual({
        '@id': '/messages?page=1',
        '@type': 'hydra:PartialCollectionView',
        'hydra:first': '/messages?page=1',
        'hydra:last': '/messages?page=2',
        'hydra:next': '/messages?page=2',
      });
      const p2 = (await c.call('GET', p1['hydra:view']['hydra:next'])).json();
      expect(p2['hydra:member'].map((m: { subject: string }) => m.subject)).toEqual(['bulk 0', 'Your receipt']);
      expect(p2['hydra:view']).toMatchObject({ 'hydra:previous': '/messages?page=1' });
      expect((await c.call('GET', '/messages?page=3')).json()['hydra:member']).toEqual([]);
      expect((await c.call('GET', '/messages?page=0')).statusCode).toBe(400);
    });

    it('the account\'s token reads the same mailbox in the inbox routes; another mailbox stays closed', async () => {
      const res = await t.request('GET', '/mailboxes/reader@svc.test/messages?limit=1', undefined, { authorization: `Bearer ${c.token}` });
      expect(res.statusCode).toBe(200);
      expect(res.json().items).toHaveLength(1);
      expect((await t.request('GET', '/mailboxes/plain@svc.test/messages', undefined, { authorization: `Bearer ${c.token}` })).statusCode).toBe(401);
    });

    it('deletes a message (204), then it is gone (404); another account cannot see it', async () => {
      const other = client();
      await other.call('POST', '/accounts', { address: 'other@svc.test', password: 'secret-pass' });
      await other.login('other@svc.test', 'secret-pass');
      expect((await other.call('GET', `/messages/${first}`)).statusCode).toBe(404);
      expect((await other.call('DELETE', `/messages/${first}`)).statusCode).toBe(404);
      expect((await other.call('GET', `/sources/${first}`)).statusCode).toBe(404);
      const del = await c.call('DELETE', `/messages/${first}`);
      expect(del.statusCode).toBe(204);
      expect(del.body).toBe('');
      expect((await c.call('GET', `/messages/${first}`)).statusCode).toBe(404);
    });
  });

  describe('the Mercure stream', () => {
    const open = (query: string, headers: Record<string, string> = {}) => fetch(`${base}/mailtm/.well-known/mercure?${query}`, { headers });

    it('sends each new message as mail.tm\'s Message object; replays after Last-Event-ID', async () => {
      const c = client();
      await c.call('POST', '/accounts', { address: 'live@svc.test', password: 'secret-pass' });
      const { id, token } = await c.login('live@svc.test', 'secret-pass');
      const res = await open(`topic=${encodeURIComponent(`/accounts/${id}`)}`, { authorization: `Bearer ${token}` });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const events = sseReader(res.body!);
      try {
        const sent = await t.api('POST', '/api/inbound', { to: 'live@svc.test', from: 'a@example.org', subject: 'live one', text: 'hello there' });
        const event = await events.next();
        expect(event.type).toBe('message');
        expect(event.id).toBe(sent.json().message.id);
        expect(JSON.parse(event.data)).toMatchObject({
          '@context': '/contexts/Message',
          '@id': `/messages/${event.id}`,
          '@type': 'Message',
          id: event.id,
          accountId: `/accounts/${id}`,
          from: { address: 'a@example.org', name: '' },
          subject: 'live one',
          intro: 'hello there',
          seen: false,
        });
      } finally {
        await events.cancel();
      }
      const missed = await t.api('POST', '/api/inbound', { to: 'live@svc.test', subject: 'while away' });
      const first = (await c.call('GET', '/messages?page=1')).json()['hydra:member'][1].id;
      // EventSource clients cannot send headers: the token also goes as ?authorization=
      const again = await open(`topic=${encodeURIComponent(`http://svc.test.local/mailtm/accounts/${id}`)}&authorization=${token}`, { 'last-event-id': first });
      expect(again.status).toBe(200);
      const replay = sseReader(again.body!);
      try {
        const event = await replay.next();
        expect(event.id).toBe(missed.json().message.id);
        expect(JSON.parse(event.data).subject).toBe('while away');
      } finally {
        await replay.cancel();
      }
    });

    it('refuses a missing token or topic, another account\'s topic, and more than 5 streams per mailbox (429)', async () => {
      const c = client();
      await c.call('POST', '/accounts', { address: 'capped@svc.test', password: 'secret-pass' });
      const { id, token } = await c.login('capped@svc.test', 'secret-pass');
      const auth = { authorization: `Bearer ${token}` };
      const noToken = await open(`topic=/accounts/${id}`);
      expect(noToken.status).toBe(401);
      expect(await noToken.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
      expect((await open('', auth)).status).toBe(400);
      expect((await open('topic=/accounts/ffffffffffffffffffffffff', auth)).status).toBe(401);
      const streams = [];
      try {
        for (let i = 0; i < 5; i++) {
          const res = await open(`topic=/accounts/${id}`, auth);
          expect(res.status).toBe(200);
          streams.push(sseReader(res.body!));
        }
        const sixth = await open(`topic=/accounts/${id}`, auth);
        expect(sixth.status).toBe(429);
        expect(sixth.headers.get('retry-after')).toBe('30');
        expect(await sixth.json()).toMatchObject({ success: false, error: { code: 'rate_limited' } });
      } finally {
        for (const s of streams) await s.cancel();
      }
    });
  });

  describe('deleting the account', () => {
    it('answers 204; its tokens stop working, its messages are gone, the address stays taken', async () => {
      const c = client();
      await c.call('POST', '/accounts', { address: 'leaving@svc.test', password: 'secret-pass' });
      const { id } = await c.login('leaving@svc.test', 'secret-pass');
      await t.api('POST', '/api/inbound', { to: 'leaving@svc.test', subject: 'bye', attachments: [{ filename: 'a.txt', content_base64: b64('x') }] });
      expect((await c.call('DELETE', '/accounts/ffffffffffffffffffffffff')).statusCode).toBe(404);
      const res = await c.call('DELETE', `/accounts/${id}`);
      expect(res.statusCode).toBe(204);
      expect((await c.call('GET', '/me')).statusCode).toBe(401);
      expect((await c.call('POST', '/token', { address: 'leaving@svc.test', password: 'secret-pass' })).statusCode).toBe(401);
      const left = await t.service.ctx.db.selectFrom('messages').select('id').where('mailbox_address', '=', 'leaving@svc.test').execute();
      expect(left).toEqual([]);
      expect((await client().call('POST', '/accounts', { address: 'leaving@svc.test', password: 'secret-pass' })).statusCode).toBe(422);
    });
  });
});
