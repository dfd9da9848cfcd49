import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { bearer, createTestMailbox, type TestMailbox } from '../helpers/mail-fixtures.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** Links, waiting for a message and search (docs/api.md "Mail for machines"), on both databases, two instances. */
describeEachDatabase('mail for machines: links, wait, search', (dialect) => {
  let t: TestService;
  let sibling: TestService;
  let base: string;
  beforeAll(async () => {
    t = await startTestService(dialect);
    base = await t.service.start();
    // Two instances share one PostgreSQL; two on one SQLite file in one process would block each other's
    // event loop on the file lock, so there the "other instance" is the same one.
    sibling = dialect === 'postgres' ? await t.sibling() : t;
    if (sibling !== t) await sibling.service.start();
  });
  afterAll(async () => {
    if (sibling !== t) await sibling.close();
    await t.close();
  });

  const openWaits = () => t.service.ctx.services.messageWaits.open + (sibling === t ? 0 : sibling.service.ctx.services.messageWaits.open);
  let n = 0;
  const mailbox = () => createTestMailbox(t, `m${++n}@svc.test`);
  const send = async (to: string, fields: Record<string, string>, via: TestService = t) => {
    const res = await via.api('POST', '/api/inbound', { to, ...fields });
    expect(res.statusCode).toBe(201);
    return res.json().message.id as string;
  };
  const waitUrl = (m: TestMailbox, query: string) => `/mailboxes/${m.address}/messages/wait?${query}`;

  describe('links', () => {
    it('stores the links and the verification link with the message; the reads with the token and with the key show them', async () => {
      const m = await mailbox();
      const id = await send(m.address, {
        subject: 'Confirm your email',
        html: '<p>Welcome!</p><a href="https://acme.example/confirm?token=Zx81Kq0pL3mN5vB7cX9a">Confirm email</a> <a href="https://acme.example/unsubscribe?u=1">Unsubscribe</a>',
        text: 'Confirm: https://acme.example/confirm?token=Zx81Kq0pL3mN5vB7cX9a\nHelp: https://acme.example/help',
      });
      const expected = {
        links: ['https://acme.example/confirm?token=Zx81Kq0pL3mN5vB7cX9a', 'https://acme.example/unsubscribe?u=1', 'https://acme.example/help'],
        verification_link: 'https://acme.example/confirm?token=Zx81Kq0pL3mN5vB7cX9a',
      };
      expect((await t.request('GET', `/mailboxes/${m.address}/messages/${id}`, undefined, bearer(m.token))).json().message).toMatchObject({ id, ...expected });
      expect((await t.api('GET', `/api/mailboxes/${m.address}/messages/${id}`)).json().message).toMatchObject({ id, ...expected });
    });

    // docs/api.md#links: inward hosts, in every spelling, are never offered to follow.
    const INWARD = [
      'http://169.254.169.254/latest/meta-data/confirm',
      'http://10.0.0.7/verify/abcdefghijklmnopqrst',
      'http://127.1/confirm',
      'http://[::1]/confirm',
      'http://[::ffff:169.254.169.254]/confirm',
      'http://localhost./confirm',
      'http://vault.internal/confirm',
      'http://printer.local/confirm',
      'http://2852039166/confirm',
      'http://0xA9FEA9FE/confirm',
      'http://good.example@127.0.0.1/confirm',
    ];
    it('leaves links to inward hosts out of links and verification_link (the token read and the key read)', async () => {
      const m = await mailbox();
      const id = await send(m.address, {
        subject: 'Confirm your email',
        html: `${INWARD.map((url) => `<a href="${url}">Confirm your email</a>`).join(' ')} <a href="https://acme.example/help">Help</a>`,
        text: INWARD.map((url) => `Verify your account: ${url}`).join('\n'),
      });
      const expected = { links: ['https://acme.example/help'], verification_link: null };
      expect((await t.request('GET', `/mailboxes/${m.address}/messages/${id}`, undefined, bearer(m.token))).json().message).toMatchObject({ id, ...expected });
      expect((await t.api('GET', `/api/mailboxes/${m.address}/messages/${id}`)).json().message).toMatchObject({ id, ...expected });
    });

    it('filters links stored before the rule as they are read', async () => {
      const m = await mailbox();
      const id = await send(m.address, { subject: 'Confirm', html: '<a href="https://acme.example/confirm?t=abcdefghijklmnopqrst">Confirm</a>' });
      // What an older version stored: every http(s) link, an inward one as the verification link.
      await t.service.ctx.db
        .updateTable('message_contents')
        .set({ links: JSON.stringify(['http://169.254.169.254/confirm', 'https://acme.example/confirm?t=abcdefghijklmnopqrst', 'http://[::1]/x']), verification_link: 'http://169.254.169.254/confirm' })
        .where('id', '=', id)
        .execute();
      const read = (await t.api('GET', `/api/mailboxes/${m.address}/messages/${id}`)).json().message;
      expect(read).toMatchObject({ links: ['https://acme.example/confirm?t=abcdefghijklmnopqrst'], verification_link: null });
      expect(JSON.stringify(read)).not.toContain('169.254');
    });

    it('answers no links and no verification link for mail without any', async () => {
      const m = await mailbox();
      const id = await send(m.address, { subject: 'Hi', text: 'Just text.' });
      expect((await t.api('GET', `/api/mailboxes/${m.address}/messages/${id}`)).json().message).toMatchObject({ links: [], verification_link: null });
    });
  });

  describe('wait for a message', () => {
    it('answers at once with the newest message when there is one and no `after`', async () => {
      const m = await mailbox();
      await send(m.address, { subject: 'first' });
      const second = await send(m.address, { subject: 'second', text: 'Your code is 482913. Verify: https://x.example/verify/abcdefghijklmnop' });
      const res = await t.request('GET', waitUrl(m, 'timeout=5'), undefined, bearer(m.token));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({
        success: true,
        message: { id: second, subject: 'second', code: '482913', links: ['https://x.example/verify/abcdefghijklmnop'], verification_link: 'https://x.example/verify/abcdefghijklmnop', seen: true },
      });
    });

    it('answers null after the timeout when nothing newer than `after` arrives', async () => {
      const m = await mailbox();
      const id = await send(m.address, { subject: 'old' });
      const started = Date.now();
      const res = await t.request('GET', waitUrl(m, `timeout=0.3&after=${id}`), undefined, bearer(m.token));
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(res.json()).toEqual({ success: true, message: null });
      expect(t.service.ctx.services.messageWaits.open).toBe(0);
    });

    it('is answered by mail that arrives at the other instance, with the API key too', async () => {
      const m = await mailbox();
      const old = await send(m.address, { subject: 'old' });
      const waiting = t.api('GET', `/api${waitUrl(m, `timeout=20&after=${old}`)}`);
      await vi.waitFor(() => expect(t.service.ctx.services.messageWaits.open).toBe(1));
      const id = await send(m.address, { subject: 'Your verification code', text: 'Use 604118 to sign in.' }, sibling);
      const res = await waiting;
      expect(res.json()).toMatchObject({ success: true, message: { id, mailbox: m.address, code: '604118' } });
      expect(t.service.ctx.services.messageWaits.open).toBe(0);
    });

    it('answers only a message that passes every filter (from, subject: any case; has_code)', async () => {
      const m = await mailbox();
      await send(m.address, { from: 'news@other.example', subject: 'Weekly news', text: 'nothing' });
      const query = 'timeout=20&from=NOREPLY@ACME&subject=welcome&has_code=true';
      const waiting = t.request('GET', waitUrl(m, query), undefined, bearer(m.token));
      await vi.waitFor(() => expect(t.service.ctx.services.messageWaits.open).toBe(1));
      await send(m.address, { from: 'noreply@acme.example', subject: 'Welcome aboard', text: 'No code here.' }, sibling);
      await send(m.address, { from: 'noreply@other.example', subject: 'Welcome', text: 'Your code is 111222.' });
      const id = await send(m.address, { from: 'noreply@acme.example', subject: 'WELCOME to Acme', text: 'Your code is 333444.' }, sibling);
      expect((await waiting).json().message).toMatchObject({ id, code: '333444' });
      // Already there: answered at once, by the newest that matches.
      const now = await t.request('GET', waitUrl(m, 'timeout=5&subject=weekly'), undefined, bearer(m.token));
      expect(now.json().message).toMatchObject({ subject: 'Weekly news' });
    });

    it('refuses the sixth wait on a mailbox (429, counted over both instances); mail answers the five', async () => {
      const m = await mailbox();
      const waits = [0, 1, 2, 3, 4].map((i) => (i % 2 ? sibling : t).request('GET', waitUrl(m, 'timeout=20'), undefined, bearer(m.token)));
      await vi.waitFor(() => expect(openWaits()).toBe(5), 10_000);
      const sixth = await sibling.request('GET', waitUrl(m, 'timeout=20'), undefined, bearer(m.token));
      expect(sixth.statusCode).toBe(429);
      expect(sixth.headers['retry-after']).toBeDefined();
      expect(sixth.json()).toMatchObject({ success: false, error: { code: 'rate_limited' } });
      const id = await send(m.address, { subject: 'for all' });
      for (const res of await Promise.all(waits)) expect(res.json().message).toMatchObject({ id });
      expect(openWaits()).toBe(0);
    });

    it('ends a wait whose client went away: no open wait, no lease left', async () => {
      const m = await mailbox();
      const clients = [0, 1, 2, 3, 4].map(() => new AbortController());
      const fetches = clients.map((c) =>
        fetch(`${base}${waitUrl(m, 'timeout=30')}`, { headers: bearer(m.token), signal: c.signal }).catch((err: Error) => err.name),
      );
      await vi.waitFor(() => expect(t.service.ctx.services.messageWaits.open).toBe(5));
      for (const c of clients) c.abort();
      expect(await Promise.all(fetches)).toEqual(['AbortError', 'AbortError', 'AbortError', 'AbortError', 'AbortError']);
      await vi.waitFor(() => expect(t.service.ctx.services.messageWaits.open).toBe(0));
      // Their slots are free again: five more may wait.
      const again = [0, 1, 2, 3, 4].map(() => t.request('GET', waitUrl(m, 'timeout=0.2'), undefined, bearer(m.token)));
      for (const res of await Promise.all(again)) expect(res.json()).toEqual({ success: true, message: null });
    });

    it('checks its input and its token', async () => {
      const m = await mailbox();
      const bad = await t.request('GET', waitUrl(m, 'timeout=61'), undefined, bearer(m.token));
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.code).toBe('invalid_request');
      expect((await t.request('GET', waitUrl(m, 'has_code=yes'), undefined, bearer(m.token))).statusCode).toBe(400);
      expect((await t.request('GET', waitUrl(m, 'timeout=1'), undefined, bearer('wrong'))).statusCode).toBe(401);
      expect((await t.api('GET', `/api/mailboxes/nobody@svc.test/messages/wait?timeout=1`)).json().error.code).toBe('mailbox_not_found');
    });
  });

  describe('search', () => {
    let m: TestMailbox;
    const ids: Record<string, string> = {};
    const search = async (q: string, mb: TestMailbox = m) => {
      const res = await t.request('GET', `/mailboxes/${mb.address}/messages?q=${encodeURIComponent(q)}`, undefined, bearer(mb.token));
      expect(res.statusCode).toBe(200);
      return (res.json().items as { id: string }[]).map((i) => ids[Object.keys(ids).find((k) => ids[k] === i.id) ?? ''] && Object.keys(ids).find((k) => ids[k] === i.id));
    };
    beforeAll(async () => {
      m = await mailbox();
      ids.invoice = await send(m.address, { from: 'Billing <billing@stripe.example>', subject: 'Your invoice for November', text: 'The amount due is 12.00 EUR.' });
      ids.welcome = await send(m.address, { from: 'hello@acme.example', subject: 'Welcome to Acme', text: 'Confirm your address to start shipping faster.' });
      ids.russian = await send(m.address, { from: 'robot@yandex.example', subject: 'Подтверждение регистрации', text: 'Ваш код подтверждения: 604118. Добро пожаловать!' });
      ids.chinese = await send(m.address, { subject: '您的验证码', text: '请使用验证码 482913 登录。' });
      ids.greek = await send(m.address, { subject: 'Καλωσόρισμα', html: '<p>Ο ΚΩΔΙΚΌΣ σας είναι 771122</p>' });
    });

    it('matches subject, sender and text, any case, words in any order', async () => {
      expect(await search('invoice')).toEqual(['invoice']);
      expect(await search('NOVEMBER invoice')).toEqual(['invoice']);
      expect(await search('stripe')).toEqual(['invoice']);
      expect(await search('Billing')).toEqual(['invoice']);
      expect(await search('shipping confirm')).toEqual(['welcome']);
      expect(await search('faster Acme welcome')).toEqual(['welcome']);
      expect(await search('conf')).toEqual(['welcome']);
      expect(await search('invoice welcome')).toEqual([]);
      expect(await search('nothing-like-this')).toEqual([]);
    });

    it('matches non-Latin text: Cyrillic and Greek in any case, CJK inside a run of characters', async () => {
      expect(await search('ПОДТВЕРЖДЕНИЯ код')).toEqual(['russian']);
      expect(await search('пожаловать')).toEqual(['russian']);
      expect(await search('κωδικός')).toEqual(['greek']);
      expect(await search('验证码')).toEqual(['chinese']);
      expect(await search('登录')).toEqual(['chinese']);
      expect(await search('验登')).toEqual([]);
    });

    it('pages the results, also with the API key, and forgets deleted messages', async () => {
      const res = await t.api('GET', `/api/mailboxes/${m.address}/messages?q=${encodeURIComponent('a')}&limit=1`);
      expect(res.json()).toMatchObject({ success: true, items: [{ id: ids.welcome }] });
      const next = await t.api('GET', `/api/mailboxes/${m.address}/messages?q=a&limit=1&cursor=${res.json().next_cursor}`);
      expect(next.json().items.map((i: { id: string }) => i.id)).toEqual([ids.invoice]);
      expect((await t.api('DELETE', `/api/mailboxes/${m.address}/messages/${ids.welcome}`)).statusCode).toBe(200);
      expect(await search('welcome')).toEqual([]);
      // A query of no words lists everything; a query over 200 characters is refused.
      expect((await search('  -- ')).length).toBe(4);
      expect((await t.request('GET', `/mailboxes/${m.address}/messages?q=${'x'.repeat(201)}`, undefined, bearer(m.token))).statusCode).toBe(400);
    });

    it('finds only the mailbox’s own messages, and follows the quota trim', async () => {
      const other = await mailbox();
      expect(await search('invoice', other)).toEqual([]);
      await t.admin().then((a) => a.call('PATCH', '/admin/api/settings', { mailbox_max_messages: 1 }));
      try {
        await send(other.address, { subject: 'alpha one' });
        await send(other.address, { subject: 'beta two' });
        const res = await t.request('GET', `/mailboxes/${other.address}/messages?q=alpha`, undefined, bearer(other.token));
        expect(res.json().items).toEqual([]);
      } finally {
        await t.admin().then((a) => a.call('PATCH', '/admin/api/settings', { mailbox_max_messages: 500 }));
      }
    });
  });
});
