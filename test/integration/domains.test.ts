import { createHash } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.js';
import type { SmtpGateway } from '../../src/mail/smtp/smtp-gateway.js';
import { describeEachDatabase, freshDatabase } from '../helpers/databases.js';
import { addAffiliate } from '../helpers/ledger-fixtures.js';
import { bearer, createTestMailbox } from '../helpers/mail-fixtures.js';
import { sendSmtp } from '../helpers/raw-smtp.js';
import { startTestService, type AdminClient, type TestService } from '../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const CAP = { SVC_CATCH_ALL_SENDER_HOURLY: '3', SVC_CATCH_ALL_DOMAIN_HOURLY: '5' };

function smtpPort(t: TestService): number {
  return (t.service.ctx.background.find((task) => task.name === 'smtp') as SmtpGateway).address().port;
}

function mail(to: string, subject = 'Hello'): Buffer {
  return Buffer.from(`From: sender@example.org\r\nTo: ${to}\r\nSubject: ${subject}\r\n\r\nYour code is 482913\r\n`);
}

const inbound = (t: TestService, to: string, from = 'sender@example.org', subject = 'Hi') => t.api('POST', '/api/inbound', { from, to, subject, text: 'Your code is 482913' });

describeEachDatabase('mail domains in the database, catch-all, message.received', (dialect) => {
  let a: TestService;
  let b: TestService;
  let admin: AdminClient;
  beforeAll(async () => {
    a = await startTestService(dialect, { env: { SMTP_PORT: '0', SVC_MAIL_DOMAINS: 'svc.test, Second.test', ...CAP }, clock: new FakeClock(Date.now()) });
    await a.service.start();
    // SQLite serves one instance by design (shared-limits.test.ts): there both "instances" are the one.
    b = dialect === 'postgres' ? await a.sibling() : a;
    if (b !== a) await b.service.start();
    admin = await a.admin();
  });
  afterAll(async () => {
    if (b !== a) await b.service.destroy();
    await a.close();
  });

  describe('the list and its validation', () => {
    it('is seeded from SVC_MAIL_DOMAINS, in order, active, without catch-all', async () => {
      const res = await a.api('GET', '/api/domains');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        success: true,
        items: [
          { domain: 'svc.test', active: true, catch_all: false, public: true, created_at: expect.any(String) },
          { domain: 'second.test', active: true, catch_all: false, public: true, created_at: expect.any(String) },
        ],
        next_cursor: null,
      });
      // and pages like every list
      const first = (await a.api('GET', '/api/domains?limit=1')).json();
      expect(first.items.map((d: { domain: string }) => d.domain)).toEqual(['svc.test']);
      const next = (await a.api('GET', `/api/domains?limit=1&cursor=${first.next_cursor}`)).json();
      expect(next.items.map((d: { domain: string }) => d.domain)).toEqual(['second.test']);
      expect((await a.api('GET', '/api/domains?cursor=nonsense')).statusCode).toBe(400);
    });

    it('adds a domain (IDN as punycode, lower case), refuses a taken one and names that are no domain', async () => {
      const added = await admin.call('POST', '/admin/api/domains', { domain: '  Bücher.Example ' });
      expect(added.statusCode).toBe(201);
      expect(added.json()).toEqual({ success: true, domain: { domain: 'xn--bcher-kva.example', active: true, catch_all: false, public: true, created_at: new Date(a.clock.now()).toISOString() } });
      const again = await a.api('POST', '/api/domains', { domain: 'xn--bcher-kva.example' });
      expect(again.statusCode).toBe(409);
      expect(again.json()).toEqual({ success: false, error: { code: 'domain_exists', message: expect.any(String) } });
      for (const bad of ['', 'a b.test', 'under_score.test', '-dash.test', 'x..test', `${'a'.repeat(64)}.test`, `${'abcdefghi.'.repeat(26)}test`, '10.0.0.1', 'xn--zz.test', 42]) {
        const res = await a.api('POST', '/api/domains', { domain: bad });
        expect(res.statusCode, String(bad)).toBe(400);
        expect(res.json()).toMatchObject({ success: false, error: { code: 'invalid_request', details: [{ field: 'domain', message: expect.any(String) }] } });
      }
      expect((await a.api('POST', '/api/domains', { domain: 'ok.test', extra: 1 })).statusCode).toBe(400);
      // admin mutations need the CSRF token like every other
      expect((await a.request('POST', '/admin/api/domains', { domain: 'csrf.test' }, { cookie: admin.cookie })).statusCode).toBe(403);
    });

    it('PATCH changes active and catch_all; unknown 404, nothing to change 400', async () => {
      await a.api('POST', '/api/domains', { domain: 'patch.test' });
      const res = await a.api('PATCH', '/api/domains/PATCH.test', { catch_all: true });
      expect(res.json()).toEqual({ success: true, domain: { domain: 'patch.test', active: true, catch_all: true, public: true, created_at: expect.any(String) } });
      expect((await a.api('PATCH', '/api/domains/patch.test', { active: false })).json().domain).toMatchObject({ active: false, catch_all: true });
      const missing = await a.api('PATCH', '/api/domains/nowhere.test', { active: true });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toEqual({ success: false, error: { code: 'domain_not_found', message: expect.any(String) } });
      expect((await a.api('PATCH', '/api/domains/patch.test', {})).statusCode).toBe(400);
      expect((await a.api('PATCH', '/api/domains/patch.test', { active: 'yes' })).statusCode).toBe(400);
    });

    it('DELETE: a domain with a mailbox is 409 domain_in_use; without one it goes, then 404', async () => {
      await a.api('POST', '/api/domains', { domain: 'busy.test' });
      expect((await a.api('POST', '/api/mailboxes', { name: 'someone', domain: 'busy.test' })).statusCode).toBe(201);
      const busy = await b.api('DELETE', '/api/domains/busy.test');
      expect(busy.statusCode).toBe(409);
      expect(busy.json()).toEqual({ success: false, error: { code: 'domain_in_use', message: expect.stringContaining('deactivate') } });
      await a.api('POST', '/api/domains', { domain: 'empty.test' });
      expect((await b.api('DELETE', '/api/domains/empty.test')).json()).toEqual({ success: true });
      expect((await a.api('DELETE', '/api/domains/empty.test')).statusCode).toBe(404);
      const names = (await a.api('GET', '/api/domains?limit=500')).json().items.map((d: { domain: string }) => d.domain);
      expect(names).toContain('busy.test');
      expect(names).not.toContain('empty.test');
    });
  });

  describe('added and retired while two instances run', () => {
    it('a domain added on one instance takes mailboxes, SMTP and mail.tm accounts on the other at once', async () => {
      expect((await b.api('POST', '/api/mailboxes', { name: 'early', domain: 'fresh.test' })).statusCode).toBe(400);
      expect((await sendSmtp(smtpPort(b), { from: 'x@example.org', to: 'early@fresh.test' }, mail('early@fresh.test'))).code).toBe(550);
      expect((await a.api('POST', '/api/domains', { domain: 'fresh.test' })).statusCode).toBe(201);
      const created = await b.api('POST', '/api/mailboxes', { name: 'early', domain: 'fresh.test' });
      expect(created.statusCode).toBe(201);
      const { token } = created.json().mailbox;
      const sent = await sendSmtp(smtpPort(b), { from: 'x@example.org', to: 'early@fresh.test' }, mail('early@fresh.test'));
      expect(sent.code).toBe(250);
      expect((await b.request('GET', '/mailboxes/early@fresh.test/messages', undefined, bearer(token))).json().items).toHaveLength(1);
      const mailtm = (await b.request('GET', '/mailtm/domains', undefined, { accept: 'application/json' })).json();
      expect(mailtm.map((d: { domain: string }) => d.domain)).toContain('fresh.test');
      expect((await b.request('GET', '/public/config')).json().domains).toContain('fresh.test');
      expect((await b.request('POST', '/mailtm/accounts', { address: 'acct@fresh.test', password: 'secret-pass' })).statusCode).toBe(201);
    });

    it('an inactive domain takes no new mailbox but its mailboxes keep receiving, over SMTP and HTTP', async () => {
      await a.api('POST', '/api/domains', { domain: 'retiring.test' });
      const keep = (await a.api('POST', '/api/mailboxes', { name: 'keep', domain: 'retiring.test' })).json().mailbox;
      expect((await a.api('PATCH', '/api/domains/retiring.test', { active: false })).statusCode).toBe(200);
      const refused = await b.api('POST', '/api/mailboxes', { name: 'new', domain: 'retiring.test' });
      expect(refused.statusCode).toBe(400);
      expect(refused.json().error.details).toEqual([{ field: 'domain', message: expect.stringMatching(/^must be one of svc\.test, /) }]);
      expect((await b.request('POST', '/mailtm/accounts', { address: 'acct@retiring.test', password: 'secret-pass' })).statusCode).toBe(422);
      expect((await b.request('GET', '/mailtm/domains', undefined, { accept: 'application/json' })).json().map((d: { domain: string }) => d.domain)).not.toContain('retiring.test');
      expect((await sendSmtp(smtpPort(b), { from: 'x@example.org', to: keep.address }, mail(keep.address))).code).toBe(250);
      expect((await inbound(b, keep.address)).statusCode).toBe(201);
      expect((await b.request('GET', `/mailboxes/${keep.address}/messages`, undefined, bearer(keep.token))).json().items).toHaveLength(2);
      // deactivated after a mailbox was created on it: still 409 on delete
      expect((await b.api('DELETE', '/api/domains/retiring.test')).statusCode).toBe(409);
    });

    it('new mailboxes without a domain go to the first active domain in the order added, as it changes', async () => {
      const domainOfNew = async (t: TestService) => ((await t.api('POST', '/api/mailboxes', {})).json().mailbox.address as string).split('@')[1];
      expect(await domainOfNew(b)).toBe('svc.test');
      await a.api('PATCH', '/api/domains/svc.test', { active: false });
      expect(await domainOfNew(b)).toBe('second.test');
      expect((await b.request('POST', '/mailboxes', {})).json().mailbox.address).toMatch(/@second\.test$/);
      await a.api('PATCH', '/api/domains/svc.test', { active: true });
      expect(await domainOfNew(b)).toBe('svc.test');
    });

    it('a deleted domain refuses mail at once on the other instance', async () => {
      await a.api('POST', '/api/domains', { domain: 'gone.test', catch_all: true });
      expect((await sendSmtp(smtpPort(b), { from: 'x@example.org', to: 'first@gone.test' }, mail('first@gone.test'))).code).toBe(250);
      await a.api('POST', '/api/domains', { domain: 'gone2.test', catch_all: true });
      expect((await a.api('DELETE', '/api/domains/gone2.test')).statusCode).toBe(200);
      expect((await sendSmtp(smtpPort(b), { from: 'x@example.org', to: 'first@gone2.test' }, mail('first@gone2.test'))).code).toBe(550);
      expect((await inbound(b, 'first@gone2.test')).statusCode).toBe(404);
    });
  });

  describe('message.received', () => {
    let rx: WebhookReceiver;
    beforeAll(async () => {
      rx = await startReceiver();
    });
    afterAll(async () => {
      await admin.call('PATCH', '/admin/api/settings', { message_events: false, webhook_url: null });
      await rx.close();
    });

    const received = async () =>
      (await a.service.ctx.db.selectFrom('events').select(['id', 'payload']).where('type', '=', 'message.received').orderBy('seq').execute()).map((e) => ({
        id: e.id,
        body: JSON.parse(e.payload),
      }));

    it('is off by default: mail arrives and no event is recorded', async () => {
      expect((await admin.call('GET', '/admin/api/settings')).json().settings.message_events).toBe(false);
      await createTestMailbox(a, 'quiet@svc.test');
      expect((await inbound(a, 'quiet@svc.test')).statusCode).toBe(201);
      expect(await received()).toEqual([]);
    });

    it('on: one event per mailbox copy, signed like the others, retried after a failure', async () => {
      const settings = await admin.call('PATCH', '/admin/api/settings', { message_events: true, webhook_url: `${rx.url}/hook` });
      expect(settings.json().settings.message_events).toBe(true);
      // write-only in every answer (docs/api.md#settings): the generated secret is read where the service keeps it
      const secret = (await a.service.ctx.services.settings.get()).webhook_secret;
      await addAffiliate(a, 'ann');
      const ann = await createTestMailbox(a, 'ann-box@svc.test', 'ann');
      await createTestMailbox(a, 'plain-box@svc.test');
      // the settings cache of the other instance lives a second
      a.clock.advance(1001);
      const sent = await inbound(b, `${ann.address}, plain-box@svc.test`, 'Shop <shop@example.org>', 'Your code');
      expect(sent.statusCode).toBe(201);
      const id = sent.json().message.id as string;
      const events = await received();
      const at = new Date(a.clock.now()).toISOString();
      expect(events.map((e) => e.body.data).sort((x, y) => x.message.mailbox.localeCompare(y.message.mailbox))).toEqual([
        { message: { id, mailbox: 'ann-box@svc.test', from: 'shop@example.org', subject: 'Your code', code: '482913', verification_link: null, received_at: at }, ref_code: 'ann' },
        { message: { id, mailbox: 'plain-box@svc.test', from: 'shop@example.org', subject: 'Your code', code: '482913', verification_link: null, received_at: at }, ref_code: null },
      ]);

      let n = 0;
      rx.respond = () => (n++ === 0 ? { status: 500, body: 'boom' } : { status: 204 });
      // both instances run their delivery workers too: drain until what they do shows
      const delivered = async () => {
        await a.service.ctx.dispatcher.drain();
        return rx.requests.filter((r) => r.headers['x-svc-event'] === 'message.received');
      };
      await expect.poll(async () => (await delivered()).length, { timeout: 10_000 }).toBe(2);
      a.clock.advance(6000);
      await expect.poll(async () => (await delivered()).length, { timeout: 10_000 }).toBe(3);
      const hooks = await delivered();
      expect(hooks.length).toBe(3);
      const retried = hooks.filter((r) => r.headers['x-svc-event-id'] === hooks[0]!.headers['x-svc-event-id']);
      expect(retried).toHaveLength(2);
      expect(new Set(hooks.map((r) => r.headers['x-svc-event-id']))).toEqual(new Set(events.map((e) => e.id)));
      for (const req of hooks) {
        expect(req.headers['x-svc-signature']).toBe(createHash('sha256').update(secret + req.body).digest('hex'));
        const verified = new Webhook(secret).verify(req.body, {
          'webhook-id': req.headers['webhook-id'] as string,
          'webhook-timestamp': req.headers['webhook-timestamp'] as string,
          'webhook-signature': req.headers['webhook-signature'] as string,
        });
        expect(verified).toMatchObject({ event: 'message.received', data: { message: { id } } });
      }
    });
  });

  describe('non-public domains (public: false)', () => {
    it('anonymous POST /mailboxes and mail.tm refuse it like an unknown domain; the key, the admin area and catch-all create there; anonymous listings omit it', async () => {
      const added = await a.api('POST', '/api/domains', { domain: 'private.test', public: false, catch_all: true });
      expect(added.statusCode).toBe(201);
      expect(added.json().domain).toEqual({ domain: 'private.test', active: true, catch_all: true, public: false, created_at: expect.any(String) });
      expect((await a.api('GET', '/api/domains?limit=500')).json().items).toContainEqual(expect.objectContaining({ domain: 'private.test', public: false }));

      // anonymous clients are not offered it, on either instance
      for (const t of [a, b]) {
        const offered = (await t.request('GET', '/public/config')).json().domains;
        expect(offered).toContain('svc.test');
        expect(offered).not.toContain('private.test');
        const mailtm = (await t.request('GET', '/mailtm/domains', undefined, { accept: 'application/json' })).json();
        expect(mailtm.map((d: { domain: string }) => d.domain)).toContain('svc.test');
        expect(mailtm.map((d: { domain: string }) => d.domain)).not.toContain('private.test');
        const id = createHash('sha256').update('private.test').digest('hex').slice(0, 24);
        expect((await t.request('GET', `/mailtm/domains/${id}`, undefined, { accept: 'application/json' })).statusCode).toBe(404);
      }

      // anonymous creation: the same answer as for a domain svc does not have, which does not name it
      const refused = await b.request('POST', '/mailboxes', { name: 'billing', domain: 'private.test' });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toEqual({
        success: false,
        error: { code: 'invalid_request', message: expect.any(String), details: [{ field: 'domain', message: expect.stringMatching(/^must be one of svc\.test, /) }] },
      });
      expect(JSON.stringify(refused.json())).not.toContain('private.test');
      const unknown = await b.request('POST', '/mailboxes', { name: 'billing', domain: 'nowhere.test' });
      expect(refused.json()).toEqual(unknown.json());
      const account = await a.request('POST', '/mailtm/accounts', { address: 'billing@private.test', password: 'secret-pass' });
      expect(account.statusCode).toBe(422);
      expect(account.json()).toMatchObject({ success: false, error: { details: [{ field: 'address', message: expect.stringMatching(/^must be on one of the domains svc\.test, /) }] } });
      expect(JSON.stringify(account.json())).not.toContain('private.test');
      expect(account.json()).toEqual((await a.request('POST', '/mailtm/accounts', { address: 'billing@nowhere.test', password: 'secret-pass' })).json());
      expect(await a.service.ctx.db.selectFrom('mailboxes').select('address').where('domain', '=', 'private.test').execute()).toEqual([]);

      // the API key, the admin area and catch-all do create there
      const byKey = await b.api('POST', '/api/mailboxes', { name: 'billing', domain: 'private.test' });
      expect(byKey.statusCode).toBe(201);
      expect(byKey.json().mailbox).toMatchObject({ address: 'billing@private.test', token: expect.any(String) });
      const byAdmin = await admin.call('POST', '/admin/api/mailboxes', { name: 'support', domain: 'private.test' });
      expect(byAdmin.statusCode).toBe(201);
      expect(byAdmin.json().mailbox.address).toBe('support@private.test');
      expect((await sendSmtp(smtpPort(b), { from: 'x@example.org', to: 'caught@private.test' }, mail('caught@private.test'))).code).toBe(250);
      const rows = await a.service.ctx.db.selectFrom('mailboxes').select('address').where('domain', '=', 'private.test').orderBy('address').execute();
      expect(rows.map((r) => r.address)).toEqual(['billing@private.test', 'caught@private.test', 'support@private.test']);
      // and the taken name is still 409 for the key, while anonymous clients keep getting the unknown-domain answer
      expect((await a.api('POST', '/api/mailboxes', { name: 'billing', domain: 'private.test' })).statusCode).toBe(409);
      expect((await a.request('POST', '/mailboxes', { name: 'billing', domain: 'private.test' })).json()).toEqual(unknown.json());

      // made public on one instance, the other offers it at once; back to private, refused again
      expect((await admin.call('PATCH', '/admin/api/domains/private.test', { public: true })).json().domain).toMatchObject({ public: true, catch_all: true });
      expect((await b.request('GET', '/public/config')).json().domains).toContain('private.test');
      expect((await b.request('POST', '/mailboxes', { name: 'now-open', domain: 'private.test' })).statusCode).toBe(201);
      expect((await a.api('PATCH', '/api/domains/private.test', { public: false })).json().domain).toMatchObject({ public: false });
      expect((await b.request('POST', '/mailboxes', { name: 'closed-again', domain: 'private.test' })).statusCode).toBe(400);
      expect((await a.api('PATCH', '/api/domains/private.test', { public: 'no' })).statusCode).toBe(400);
    });
  });

  describe('catch-all', () => {
    it('on: an unknown address over SMTP or /api/inbound gets its mailbox on arrival, with no token; off: 550 and 404', async () => {
      await a.api('POST', '/api/domains', { domain: 'catch.test' });
      expect((await sendSmtp(smtpPort(b), { from: 'one@example.org', to: 'nobody@catch.test' }, mail('nobody@catch.test'))).code).toBe(550);
      expect((await inbound(b, 'nobody@catch.test', 'one@example.org')).json()).toMatchObject({ success: false, error: { code: 'mailbox_not_found' } });

      await a.api('PATCH', '/api/domains/catch.test', { catch_all: true });
      const smtp = await sendSmtp(smtpPort(b), { from: 'one@example.org', to: 'Caught.One@catch.test' }, mail('caught.one@catch.test', 'Welcome'));
      expect(smtp.code).toBe(250);
      const http = await inbound(b, 'Someone <caught.two@catch.test>, stranger@elsewhere.test', 'one@example.org');
      expect(http.statusCode).toBe(201);
      expect(http.json().message.mailboxes).toEqual(['caught.two@catch.test']);

      const row = await a.service.ctx.db.selectFrom('mailboxes').selectAll().where('address', '=', 'caught.one@catch.test').executeTakeFirstOrThrow();
      expect(row).toMatchObject({ domain: 'catch.test', local_part: 'caught.one', ref_code: null, token_hash: '' });
      // readable with the API key and in the admin area; no token opens it
      const list = (await a.api('GET', '/api/mailboxes/caught.one@catch.test/messages')).json();
      expect(list.items).toMatchObject([{ subject: 'Welcome', code: '482913' }]);
      expect((await admin.call('GET', `/admin/api/mailboxes/caught.one@catch.test/messages/${list.items[0].id}`)).json().message).toMatchObject({ subject: 'Welcome' });
      for (const token of ['', 'x', 'anything-at-all']) {
        expect((await a.request('GET', '/mailboxes/caught.one@catch.test/messages', undefined, bearer(token))).statusCode).toBe(401);
      }
      const tokenless = (await admin.call('GET', '/admin/api/mailboxes/without-token')).json();
      expect(tokenless.items.map((m: { address: string }) => m.address)).toEqual(expect.arrayContaining(['caught.one@catch.test', 'caught.two@catch.test']));
      expect(tokenless.items.map((m: { address: string }) => m.address)).not.toContain('early@fresh.test');
      expect(tokenless.items[0]).toEqual({ address: expect.any(String), domain: expect.any(String), created_at: expect.any(String) });
      // the address is taken now
      expect((await a.api('POST', '/api/mailboxes', { name: 'caught.one', domain: 'catch.test' })).statusCode).toBe(409);

      // names a mailbox could not have are refused even on a catch-all domain
      expect((await sendSmtp(smtpPort(b), { from: 'one@example.org', to: '_hidden@catch.test' }, mail('_hidden@catch.test'))).code).toBe(550);
      // an inactive catch-all domain catches nothing
      await a.api('PATCH', '/api/domains/catch.test', { active: false });
      expect((await sendSmtp(smtpPort(b), { from: 'one@example.org', to: 'late@catch.test' }, mail('late@catch.test'))).code).toBe(550);
      await a.api('PATCH', '/api/domains/catch.test', { active: true, catch_all: false });
      expect((await sendSmtp(smtpPort(b), { from: 'one@example.org', to: 'later@catch.test' }, mail('later@catch.test'))).code).toBe(550);
      // the caught mailboxes keep receiving
      expect((await inbound(b, 'caught.one@catch.test', 'one@example.org')).statusCode).toBe(201);
    });

    it('caps new mailboxes per client IP and per domain over both instances (SMTP 450, HTTP 429), never per MAIL FROM, not mail to existing ones', async () => {
      await a.api('POST', '/api/domains', { domain: 'capped.test', catch_all: true });
      // Each client gets a loopback address of its own: the client cap spans every domain, and earlier tests sent from 127.0.0.1.
      const smtp = (t: TestService, from: string, to: string, client: string) => sendSmtp(smtpPort(t), { from, to }, mail(to), 60_000, client);
      // client 127.0.0.11: 3 an hour over both instances, whatever MAIL FROM says (another sender each time, and none)
      expect((await smtp(b, 's1@example.org', 'c1-1@capped.test', '127.0.0.11')).code).toBe(250);
      expect((await smtp(a, 'other@example.org', 'c1-2@capped.test', '127.0.0.11')).code).toBe(250);
      expect((await smtp(b, '', 'c1-3@capped.test', '127.0.0.11')).code).toBe(250);
      const smtpOver = await smtp(a, 'fresh@example.org', 'c1-4@capped.test', '127.0.0.11');
      expect(smtpOver.code).toBe(450);
      expect(smtpOver.text).toMatch(/^450 4\.7\.1 <c1-4@capped\.test>: too many new mailboxes on this domain or from your address, try again in 60 min/);
      // another client has its own count, with the same sender as the first
      expect((await smtp(b, 's1@example.org', 'c2-1@capped.test', '127.0.0.12')).code).toBe(250);
      // POST /api/inbound counts against the domain only (its caller holds the API key and relays anyone's mail)
      expect((await inbound(a, 'h-1@capped.test', 's1@example.org')).statusCode).toBe(201);
      // the domain: 5 an hour whoever connects
      const over = await inbound(b, 'h-2@capped.test', 'h2@example.org');
      expect(over.statusCode).toBe(429);
      expect(over.json()).toEqual({ success: false, error: { code: 'rate_limited', message: expect.any(String), details: { retry_after: 3600 } } });
      expect(over.headers['retry-after']).toBe('3600');
      expect((await smtp(a, 's3@example.org', 'c3-1@capped.test', '127.0.0.13')).code).toBe(450);
      // mail to a mailbox that exists is not capped
      expect((await inbound(b, 'c1-1@capped.test', 's1@example.org')).statusCode).toBe(201);
      expect((await smtp(a, 's1@example.org', 'c1-1@capped.test', '127.0.0.11')).code).toBe(250);
      // another catch-all domain has its own count
      await a.api('POST', '/api/domains', { domain: 'capped2.test', catch_all: true });
      expect((await inbound(b, 'h-1@capped2.test', 's3@example.org')).statusCode).toBe(201);
      expect((await smtp(a, 's3@example.org', 'c3-1@capped2.test', '127.0.0.13')).code).toBe(250);
      const created = await a.service.ctx.db.selectFrom('mailboxes').select('address').where('domain', '=', 'capped.test').orderBy('address').execute();
      expect(created.map((m) => m.address)).toEqual(['c1-1@capped.test', 'c1-2@capped.test', 'c1-3@capped.test', 'c2-1@capped.test', 'h-1@capped.test']);
      // the windows end for every instance
      a.clock.advance(3_600_000);
      expect((await smtp(b, 'fresh@example.org', 'c1-5@capped.test', '127.0.0.11')).code).toBe(250);
    });
  });
});

describeEachDatabase('the default domain of a new mailbox is public', (dialect) => {
  it('a mailbox without a domain never lands on a non-public one, whoever creates it; with none public only a named domain works', async () => {
    const t = await startTestService(dialect, { env: { SVC_MAIL_DOMAINS: 'hidden.test, open.test' } });
    try {
      await t.api('PATCH', '/api/domains/hidden.test', { public: false });
      expect((await t.request('GET', '/public/config')).json().domains).toEqual(['open.test']);
      for (let i = 0; i < 3; i++) {
        expect((await t.request('POST', '/mailboxes', {})).json().mailbox.address).toMatch(/^[a-z0-9]{10}@open\.test$/);
        expect((await t.api('POST', '/api/mailboxes', {})).json().mailbox.address).toMatch(/^[a-z0-9]{10}@open\.test$/);
      }
      // a random name on the non-public domain when it is named, with the key
      expect((await t.api('POST', '/api/mailboxes', { domain: 'hidden.test' })).json().mailbox.address).toMatch(/^[a-z0-9]{10}@hidden\.test$/);

      // no public domain active: anonymous clients are told none takes mailboxes; the key must name one
      await t.api('PATCH', '/api/domains/open.test', { active: false });
      const anonymous = await t.request('POST', '/mailboxes', {});
      expect(anonymous.statusCode).toBe(400);
      expect(anonymous.json().error.details).toEqual([{ field: 'domain', message: 'no mail domain takes new mailboxes (add or activate one)' }]);
      const byKey = await t.api('POST', '/api/mailboxes', {});
      expect(byKey.statusCode).toBe(400);
      expect(byKey.json().error.details).toEqual([{ field: 'domain', message: 'no public mail domain is active to pick by default: name one of hidden.test' }]);
      expect((await t.api('POST', '/api/mailboxes', { name: 'named', domain: 'hidden.test' })).statusCode).toBe(201);
      expect((await t.request('GET', '/public/config')).json().domains).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describeEachDatabase('SVC_MAIL_DOMAINS seeds only an empty list', (dialect) => {
  it('a later start with other domains keeps the list as it is', async () => {
    const database = await freshDatabase(dialect);
    try {
      const first = await startTestService(dialect, { database, env: { SVC_MAIL_DOMAINS: 'one.test,two.test' } });
      await first.api('POST', '/api/domains', { domain: 'three.test' });
      await first.api('PATCH', '/api/domains/one.test', { active: false });
      await first.service.destroy();
      const second = await startTestService(dialect, { database, env: { SVC_MAIL_DOMAINS: 'other.test' } });
      const items = (await second.api('GET', '/api/domains')).json().items;
      expect(items.map((d: { domain: string; active: boolean }) => [d.domain, d.active])).toEqual([
        ['one.test', false],
        ['two.test', true],
        ['three.test', true],
      ]);
      expect((await second.api('POST', '/api/mailboxes', {})).json().mailbox.address).toMatch(/@two\.test$/);
      await second.service.destroy();
    } finally {
      await database.drop();
    }
  });
});
