import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { bearer, createTestMailbox, type TestMailbox } from '../helpers/mail-fixtures.js';
import { startTestService, type TestService } from '../helpers/service.js';

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

describeEachDatabase('mail: inbound API and reading', (dialect) => {
  let t: TestService;
  let alice: TestMailbox;
  let bob: TestMailbox;
  beforeAll(async () => {
    t = await startTestService(dialect);
    alice = await createTestMailbox(t, 'alice@svc.test', 'ref_a');
    bob = await createTestMailbox(t, 'Bob@svc.test');
  });
  afterAll(async () => {
    await t.close();
  });

  const count = async (table: 'messages' | 'message_attachments') =>
    Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(t.service.ctx.db)).rows[0]?.n);

  describe('POST /api/inbound', () => {
    it('stores the message once per known mailbox among bare, named and listed recipients', async () => {
      const res = await t.api('POST', '/api/inbound', {
        to: '"Smith, Alice" <ALICE@svc.test>, bob@SVC.test , nobody@svc.test, alice@svc.test',
        from: 'sender@example.com',
        from_name: 'Sender',
        subject: 'Hello',
        text: 'plain body',
        html: '<p>hi</p>',
      });
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body).toMatchObject({ success: true, message: { mailboxes: ['alice@svc.test', 'bob@svc.test'], received_at: '2026-01-15T12:00:00.000Z' } });
      expect(body.message.id).toMatch(/^msg_/);

      for (const m of [alice, bob]) {
        const list = await t.request('GET', `/mailboxes/${m.address}/messages`, undefined, bearer(m.token));
        expect(list.statusCode).toBe(200);
        expect(list.json()).toEqual({
          success: true,
          items: [
            {
              id: body.message.id,
              from: 'sender@example.com',
              from_name: 'Sender',
              subject: 'Hello',
              received_at: '2026-01-15T12:00:00.000Z',
              size: Buffer.byteLength('Hello') + Buffer.byteLength('plain body') + Buffer.byteLength('<p>hi</p>'),
              attachments_count: 0,
              seen: false,
              code: null,
            },
          ],
          next_cursor: null,
        });
      }
    });

    it('splits a from written as a header ("Name" <address>) into from and from_name; an explicit from_name wins', async () => {
      const cases = [
        { sent: { from: '"Doe, Jane" <jane@example.com>' }, from: 'jane@example.com', from_name: 'Doe, Jane' },
        { sent: { from: 'Shop Team <shop@example.com>', from_name: 'Given' }, from: 'shop@example.com', from_name: 'Given' },
        { sent: { from: '<bare@example.com>' }, from: 'bare@example.com', from_name: null },
      ];
      for (const c of cases) {
        const res = await t.api('POST', '/api/inbound', { to: 'bob@svc.test', subject: 'sender case', ...c.sent });
        expect(res.statusCode).toBe(201);
        const read = await t.request('GET', `/mailboxes/${bob.address}/messages/${res.json().message.id}`, undefined, bearer(bob.token));
        expect(read.json().message).toMatchObject({ from: c.from, from_name: c.from_name });
      }
    });

    it('decodes attachments and serves them as downloads with their size and a safe type', async () => {
      const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
      const res = await t.api('POST', '/api/inbound', {
        to: 'alice@svc.test',
        subject: 'files',
        attachments: [
          { filename: 'pic.png', content_type: 'image/png', content_base64: b64(png) },
          { filename: '../../etc/passwd', content_type: 'text/html', content_base64: b64('<script>alert(1)</script>') },
          { filename: 'résumé "final".txt', content_type: 'text/plain; charset=utf-8', content_base64: `${b64('hello').slice(0, 4)}\r\n${b64('hello').slice(4)}` },
        ],
      });
      expect(res.statusCode).toBe(201);
      const id = res.json().message.id as string;
      const msg = await t.request('GET', `/mailboxes/alice@svc.test/messages/${id}`, undefined, bearer(alice.token));
      expect(msg.statusCode).toBe(200);
      const message = msg.json().message;
      expect(message).toMatchObject({ id, subject: 'files', attachments_count: 3, text: null, html: null });
      expect(message.attachments.map((a: { filename: string; content_type: string; size: number }) => [a.filename, a.content_type, a.size])).toEqual([
        ['pic.png', 'image/png', png.length],
        ['passwd', 'text/html', 25],
        ['résumé "final".txt', 'text/plain', 5],
      ]);
      const [pic, evil, txt] = message.attachments as { id: string }[];

      const a1 = await t.request('GET', `/mailboxes/alice@svc.test/messages/${id}/attachments/${pic!.id}`, undefined, bearer(alice.token));
      expect(a1.statusCode).toBe(200);
      expect(a1.rawPayload.equals(png)).toBe(true);
      expect(a1.headers['content-type']).toBe('image/png');
      expect(a1.headers['x-content-type-options']).toBe('nosniff');
      expect(a1.headers['content-disposition']).toBe(`attachment; filename="pic.png"; filename*=UTF-8''pic.png`);

      const a2 = await t.request('GET', `/mailboxes/alice@svc.test/messages/${id}/attachments/${evil!.id}`, undefined, bearer(alice.token));
      expect(a2.headers['content-type']).toBe('application/octet-stream');
      expect(a2.headers['content-disposition']).toMatch(/^attachment; filename="passwd"/);
      expect(a2.body).toBe('<script>alert(1)</script>');

      const a3 = await t.api('GET', `/api/mailboxes/alice@svc.test/messages/${id}/attachments/${txt!.id}`);
      expect(a3.statusCode).toBe(200);
      expect(a3.body).toBe('hello');
      expect(a3.headers['content-disposition']).toBe(`attachment; filename="r_sum_ _final_.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22.txt`);
    });

    it('refuses bad base64 with 400 naming the attachment, and stores nothing', async () => {
      const before = await count('messages');
      for (const bad of ['not base64!', 'abc', 'YWJj=', 'YW Jj=x==']) {
        const res = await t.api('POST', '/api/inbound', {
          to: 'alice@svc.test',
          attachments: [
            { filename: 'ok.txt', content_base64: b64('fine') },
            { filename: 'bad.bin', content_base64: bad },
          ],
        });
        expect(res.statusCode).toBe(400);
        expect(res.json()).toMatchObject({
          success: false,
          error: { code: 'invalid_request', details: [{ field: 'attachments.1.content_base64' }] },
        });
        expect(res.json().error.details[0].message).toContain('bad.bin');
      }
      expect(await count('messages')).toBe(before);
    });

    it('answers 404 mailbox_not_found when no recipient is known, 400 when to is missing or names no address', async () => {
      const none = await t.api('POST', '/api/inbound', { to: 'Ghost <ghost@svc.test>, other@elsewhere.test', subject: 'x' });
      expect(none.statusCode).toBe(404);
      expect(none.json()).toMatchObject({ success: false, error: { code: 'mailbox_not_found' } });

      const missing = await t.api('POST', '/api/inbound', { subject: 'x' });
      expect(missing.statusCode).toBe(400);
      expect(missing.json()).toMatchObject({ success: false, error: { code: 'invalid_request', details: [{ field: 'to' }] } });

      const garbage = await t.api('POST', '/api/inbound', { to: 'not an address' });
      expect(garbage.statusCode).toBe(400);
      expect(garbage.json()).toMatchObject({ error: { code: 'invalid_request', details: [{ field: 'to' }] } });

      const wrongType = await t.api('POST', '/api/inbound', { to: 'alice@svc.test', attachments: [{ filename: 'x' }] });
      expect(wrongType.statusCode).toBe(400);
      expect(wrongType.json()).toMatchObject({ error: { code: 'invalid_request', details: [{ field: 'attachments.0.content_base64' }] } });
    });

    it('answers 413 payload_too_large over the inbound limit and accepts bodies over the general 1 MiB limit', async () => {
      const small = await startTestService(dialect, { env: { SVC_INBOUND_MAX_BYTES: String(64 * 1024) } });
      try {
        await createTestMailbox(small, 'x@svc.test');
        const big = await small.api('POST', '/api/inbound', { to: 'x@svc.test', text: 'a'.repeat(70 * 1024) });
        expect(big.statusCode).toBe(413);
        expect(big.json()).toMatchObject({ success: false, error: { code: 'payload_too_large' } });
        expect(await small.service.ctx.db.selectFrom('messages').select('id').execute()).toEqual([]);
      } finally {
        await small.close();
      }
      const twoMiB = await t.api('POST', '/api/inbound', { to: 'bob@svc.test', attachments: [{ filename: 'big.bin', content_base64: b64(Buffer.alloc(2 * 1024 * 1024, 7)) }] });
      expect(twoMiB.statusCode).toBe(201);
      expect(twoMiB.json()).toMatchObject({ success: true, message: { mailboxes: ['bob@svc.test'] } });
    });

    it('needs the API key', async () => {
      const res = await t.request('POST', '/api/inbound', { to: 'alice@svc.test' });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
    });
  });

  describe('reading', () => {
    it('refuses a wrong or missing token with 401, and an unknown mailbox with 401 too (no address oracle)', async () => {
      for (const headers of [{}, bearer('wrong'), bearer(bob.token)]) {
        const res = await t.request('GET', '/mailboxes/alice@svc.test/messages', undefined, headers);
        expect(res.statusCode).toBe(401);
        expect(res.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
      }
      const unknown = await t.request('GET', '/mailboxes/ghost@svc.test/messages', undefined, bearer(alice.token));
      expect(unknown.statusCode).toBe(401);
      expect(unknown.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
      // The token is only taken from the query on the iframe and SSE routes.
      const query = await t.request('GET', `/mailboxes/alice@svc.test/messages?token=${alice.token}`);
      expect(query.statusCode).toBe(401);
    });

    it('under /api with the key: unknown mailbox 404 mailbox_not_found, unknown message 404 not_found', async () => {
      const unknown = await t.api('GET', '/api/mailboxes/ghost@svc.test/messages');
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json()).toMatchObject({ success: false, error: { code: 'mailbox_not_found' } });
      const noMsg = await t.api('GET', '/api/mailboxes/alice@svc.test/messages/msg_nope');
      expect(noMsg.statusCode).toBe(404);
      expect(noMsg.json()).toMatchObject({ success: false, error: { code: 'not_found' } });
      const list = await t.api('GET', '/api/mailboxes/ALICE@svc.test/messages');
      expect(list.statusCode).toBe(200);
      expect(list.json().items.length).toBeGreaterThanOrEqual(2);
    });

    it('pages newest first with limit and cursor', async () => {
      const m = await createTestMailbox(t, 'pager@svc.test');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        t.clock.advance(1000);
        ids.push((await t.api('POST', '/api/inbound', { to: m.address, subject: `n${i}` })).json().message.id);
      }
      const p1 = (await t.request('GET', `/mailboxes/${m.address}/messages?limit=2`, undefined, bearer(m.token))).json();
      expect(p1.items.map((x: { subject: string }) => x.subject)).toEqual(['n4', 'n3']);
      expect(p1.items.map((x: { id: string }) => x.id)).toEqual([ids[4], ids[3]]);
      expect(typeof p1.next_cursor).toBe('string');
      const p2 = (await t.request('GET', `/mailboxes/${m.address}/messages?limit=2&cursor=${p1.next_cursor}`, undefined, bearer(m.token))).json();
      expect(p2.items.map((x: { subject: string }) => x.subject)).toEqual(['n2', 'n1']);
      const p3 = (await t.request('GET', `/mailboxes/${m.address}/messages?limit=2&cursor=${p2.next_cursor}`, undefined, bearer(m.token))).json();
      expect(p3).toEqual({ success: true, items: [expect.objectContaining({ subject: 'n0' })], next_cursor: null });
      const bad = await t.request('GET', `/mailboxes/${m.address}/messages?limit=501`, undefined, bearer(m.token));
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ error: { code: 'invalid_request', details: [{ field: 'limit' }] } });
      const badCursor = await t.request('GET', `/mailboxes/${m.address}/messages?cursor=zzz`, undefined, bearer(m.token));
      expect(badCursor.statusCode).toBe(400);
      expect(badCursor.json()).toMatchObject({ error: { code: 'invalid_request', details: [{ field: 'cursor' }] } });
      // Several arrivals in the same millisecond still list in arrival order.
      for (const s of ['same1', 'same2', 'same3']) await t.api('POST', '/api/inbound', { to: m.address, subject: s });
      const same = (await t.request('GET', `/mailboxes/${m.address}/messages?limit=3`, undefined, bearer(m.token))).json();
      expect(same.items.map((x: { subject: string }) => x.subject)).toEqual(['same3', 'same2', 'same1']);
    });

    it('deletes one mailbox copy without touching the other', async () => {
      const sent = (await t.api('POST', '/api/inbound', { to: 'alice@svc.test, bob@svc.test', subject: 'shared', attachments: [{ filename: 'a.txt', content_base64: b64('A') }] })).json();
      const id = sent.message.id as string;
      const del = await t.request('DELETE', `/mailboxes/alice@svc.test/messages/${id}`, undefined, bearer(alice.token));
      expect(del.statusCode).toBe(200);
      expect(del.json()).toEqual({ success: true });
      const gone = await t.request('GET', `/mailboxes/alice@svc.test/messages/${id}`, undefined, bearer(alice.token));
      expect(gone.statusCode).toBe(404);
      expect(gone.json()).toMatchObject({ error: { code: 'not_found' } });
      const again = await t.request('DELETE', `/mailboxes/alice@svc.test/messages/${id}`, undefined, bearer(alice.token));
      expect(again.statusCode).toBe(404);
      const still = await t.request('GET', `/mailboxes/bob@svc.test/messages/${id}`, undefined, bearer(bob.token));
      expect(still.statusCode).toBe(200);
      expect(still.json().message).toMatchObject({ id, subject: 'shared', attachments: [{ filename: 'a.txt', size: 1 }] });
      const viaApi = await t.api('DELETE', `/api/mailboxes/bob@svc.test/messages/${id}`);
      expect(viaApi.json()).toEqual({ success: true });
    });

    it('serves sanitised HTML, and a sandboxed document for the iframe with the token in the query', async () => {
      const html = '<p onclick="x()">Hi <b>there</b></p><script>alert(1)</script><img src="https://tracker.example/p.gif" alt="px"><a href="javascript:alert(1)">x</a>';
      const id = (await t.api('POST', '/api/inbound', { to: 'alice@svc.test', html })).json().message.id;
      const msg = (await t.request('GET', `/mailboxes/alice@svc.test/messages/${id}`, undefined, bearer(alice.token))).json().message;
      // the remote image is held back (its address out of src) until its reader allows it
      expect(msg.html).toBe('<p>Hi <b>there</b></p><img alt="px" data-svc-remote-src="https://tracker.example/p.gif" /><a target="_blank" rel="noopener noreferrer nofollow">x</a>');
      expect(msg.remote_images).toBe(1);
      const doc = await t.request('GET', `/mailboxes/alice@svc.test/messages/${id}/html?token=${encodeURIComponent(alice.token)}`);
      expect(doc.statusCode).toBe(200);
      expect(doc.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(doc.headers['content-security-policy']).toBe("sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'");
      expect(doc.headers['x-content-type-options']).toBe('nosniff');
      expect(doc.body).toContain('<p>Hi <b>there</b></p>');
      expect(doc.body).not.toContain('script');
      const noToken = await t.request('GET', `/mailboxes/alice@svc.test/messages/${id}/html`);
      expect(noToken.statusCode).toBe(401);
    });
  });

  describe('with mailboxes from POST /api/mailboxes', () => {
    it('delivers to a created mailbox and reads it with the token it was given', async () => {
      const created = await t.api('POST', '/api/mailboxes', { name: 'Erin' });
      expect(created.statusCode).toBe(201);
      const { address, token } = created.json().mailbox as { address: string; token: string };
      const sent = await t.api('POST', '/api/inbound', { to: `Erin <${address.toUpperCase()}>`, subject: 'welcome' });
      expect(sent.statusCode).toBe(201);
      expect(sent.json().message.mailboxes).toEqual([address]);
      const list = await t.request('GET', `/mailboxes/${address}/messages`, undefined, bearer(token));
      expect(list.json()).toMatchObject({ success: true, items: [{ id: sent.json().message.id, subject: 'welcome' }], next_cursor: null });
    });
  });

  describe('retention', () => {
    it('deletes messages and attachments older than mailbox_ttl_hours, keeps mailboxes and their ref_code', async () => {
      const r = await createTestMailbox(t, 'keep@svc.test', 'ref_keep');
      await t.api('POST', '/api/inbound', { to: r.address, subject: 'old', attachments: [{ filename: 'o.txt', content_base64: b64('o') }] });
      const admin = await t.admin();
      expect((await admin.call('PATCH', '/admin/api/settings', { mailbox_ttl_hours: 2 })).statusCode).toBe(200);
      t.clock.advance(90 * 60_000);
      await t.api('POST', '/api/inbound', { to: r.address, subject: 'young' });
      expect(await t.service.ctx.services.mail.purgeExpired()).toBe(0);
      t.clock.advance(31 * 60_000);
      const deleted = await t.service.ctx.services.mail.purgeExpired();
      expect(deleted).toBeGreaterThanOrEqual(1);
      const list = (await t.request('GET', `/mailboxes/${r.address}/messages`, undefined, bearer(r.token))).json();
      expect(list.items.map((x: { subject: string }) => x.subject)).toEqual(['young']);
      const orphans = await sql<{ n: number }>`select count(*) as n from message_attachments a where not exists (select 1 from messages m where m.id = a.message_id)`.execute(t.service.ctx.db);
      expect(Number(orphans.rows[0]?.n)).toBe(0);
      const oldAttachment = await t.service.ctx.db.selectFrom('message_attachments').select('id').where('filename', '=', 'o.txt').execute();
      expect(oldAttachment).toEqual([]);
      const mb = await t.service.ctx.db.selectFrom('mailboxes').select(['address', 'ref_code']).where('address', '=', r.address).executeTakeFirst();
      expect(mb).toEqual({ address: 'keep@svc.test', ref_code: 'ref_keep' });
      await admin.call('PATCH', '/admin/api/settings', { mailbox_ttl_hours: 24 });
    });
  });
});
