import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { bearer, createTestMailbox, type TestMailbox } from '../helpers/mail-fixtures.js';
import { startTestService, type TestService } from '../helpers/service.js';

const layout = (name: string) => readFileSync(new URL(`../fixtures/mail-layouts/${name}.html`, import.meta.url), 'utf8');

describeEachDatabase('mail: reading like the sender meant, and verification codes (docs/api.md#html-and-the-verification-code)', (dialect) => {
  let t: TestService;
  let alice: TestMailbox;
  let bob: TestMailbox;
  beforeAll(async () => {
    t = await startTestService(dialect);
    alice = await createTestMailbox(t, 'alice@svc.test');
    bob = await createTestMailbox(t, 'bob@svc.test');
  });
  afterAll(async () => {
    await t.close();
  });

  const read = async (m: TestMailbox, id: string) => (await t.request('GET', `/mailboxes/${m.address}/messages/${id}`, undefined, bearer(m.token))).json().message;
  const list = async (m: TestMailbox) => (await t.request('GET', `/mailboxes/${m.address}/messages`, undefined, bearer(m.token))).json().items;

  describe('verification codes', () => {
    it('finds the code at intake and shows it in the list and the message of every recipient', async () => {
      const sent = await t.api('POST', '/api/inbound', {
        to: 'alice@svc.test, bob@svc.test',
        from: 'no-reply@acme.example',
        subject: 'Confirm your sign-in',
        text: 'Hi,\n\nYour verification code is 604 118.\n\nOrder history: #99812.',
      });
      expect(sent.statusCode).toBe(201);
      const id = sent.json().message.id;
      for (const m of [alice, bob]) {
        expect((await list(m))[0]).toMatchObject({ id, subject: 'Confirm your sign-in', code: '604118' });
        expect(await read(m, id)).toMatchObject({ id, code: '604118' });
      }
    });

    it('finds a code in the subject, and in the HTML of a message without text', async () => {
      const a = (await t.api('POST', '/api/inbound', { to: 'alice@svc.test', subject: '482913 is your Instagram code' })).json().message.id;
      expect((await read(alice, a)).code).toBe('482913');
      const b = (await t.api('POST', '/api/inbound', { to: 'alice@svc.test', subject: 'Sign in', html: layout('verification-code') })).json().message.id;
      expect((await read(alice, b)).code).toBe('604118');
    });

    it('answers null for mail with numbers but no code', async () => {
      const id = (
        await t.api('POST', '/api/inbound', { to: 'alice@svc.test', subject: 'Your order #123456 has shipped', text: 'Total $49.99, delivery on 2026-12-01. Tracking: 1Z999AA10123456784.' })
      ).json().message.id;
      expect((await list(alice))[0]).toMatchObject({ id, code: null });
      expect((await read(alice, id)).code).toBeNull();
    });
  });

  describe('HTML fidelity and remote images', () => {
    it('keeps style sheets and inline styles, counts the blocked remote images and serves them only when asked', async () => {
      const id = (await t.api('POST', '/api/inbound', { to: 'alice@svc.test', subject: 'Welcome', html: layout('newsletter-button') })).json().message.id;
      const msg = await read(alice, id);
      expect(msg.remote_images).toBe(2);
      expect(msg.html).toContain('@media only screen and (max-width: 620px)');
      expect(msg.html).toContain('style="background-color:#1a56db;color:#ffffff;padding:14px 28px;border-radius:6px;display:inline-block"');
      expect(msg.html).not.toMatch(/<script|@import|\ssrc="https?:/);

      const base = `/mailboxes/alice@svc.test/messages/${id}/html?token=${encodeURIComponent(alice.token)}`;
      const blocked = await t.request('GET', base);
      expect(blocked.statusCode).toBe(200);
      expect(blocked.headers['content-security-policy']).toMatch(/^sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:(;|$)/);
      expect(blocked.body).toContain('data-svc-remote-src="https://img.example-cdn.com/logo-white.png"');
      expect(blocked.body).not.toMatch(/\ssrc="https?:/);

      const shown = await t.request('GET', `${base}&remote_images=true`);
      expect(shown.statusCode).toBe(200);
      expect(shown.headers['content-security-policy']).toMatch(/^sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data: https: http:(;|$)/);
      expect(shown.body).toContain('<img width="120" height="32" alt="Northwind" src="https://img.example-cdn.com/logo-white.png" />');
      expect(shown.body).not.toContain('data-svc-remote-src');
      // still nothing else that fetches: no style sheet import, no CSS url()
      expect(shown.body).not.toMatch(/@import|url\s*\(/i);

      const viaApi = await t.api('GET', `/api/mailboxes/alice@svc.test/messages/${id}/html?remote_images=true`);
      expect(viaApi.statusCode).toBe(200);
      expect(viaApi.body).toContain('src="https://img.example-cdn.com/logo-white.png"');
      const bad = await t.request('GET', `${base}&remote_images=yes`);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.code).toBe('invalid_request');
    });
  });
});
