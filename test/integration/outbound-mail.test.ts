import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { addMailbox, earn, givePayoutDetails } from '../helpers/ledger-fixtures.js';
import { PORTAL_PASSWORD, portalClient } from '../helpers/portal.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { type CapturedMail, linkIn, type SmtpCapture, startSmtpCapture } from '../helpers/smtp-capture.js';

const HOUR = 3600_000;
const FROM = 'Affiliates <noreply@svc.test.local>';

/** Fans the outbox out (mails caused by events), then sends every due mail. */
async function flush(t: TestService): Promise<void> {
  await t.service.ctx.services.portalAuth.settled();
  await t.service.ctx.dispatcher.drain();
  await t.service.ctx.mailDispatcher.drain();
}

async function addAffiliate(t: TestService, refCode: string, email: string | undefined, name = 'Alice'): Promise<void> {
  const res = await t.api('POST', '/api/affiliates', { ref_code: refCode, name, ...(email ? { email } : {}) });
  if (res.statusCode !== 201) throw new Error(`affiliate: ${res.statusCode} ${res.body}`);
}

const tokenOf = (link: string) => link.split('#token=')[1] as string;
const mailsTo = (smtp: SmtpCapture, to: string) => smtp.mails.filter((m) => m.to.includes(to));
const only = (mails: CapturedMail[]): CapturedMail => {
  expect(mails).toHaveLength(1);
  return mails[0] as CapturedMail;
};

describeEachDatabase('outbound mail', (dialect) => {
  let smtp: SmtpCapture;
  let t: TestService;
  let ip = 0;
  const freshIp = () => `203.0.113.${++ip % 250}`;
  const forgot = (login: string) =>
    t.service.app.inject({ method: 'POST', url: '/portal/api/forgot-password', payload: { login }, remoteAddress: freshIp() });

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    t = await startTestService(dialect, { env: { SVC_SMTP_URL: smtp.url, SVC_MAIL_FROM: FROM } });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });
  beforeEach(() => {
    smtp.mode = 'accept';
    t.clock.advance(2 * HOUR);
  });

  it('invitation: mailed to the affiliate, values escaped, and its link signs in', async () => {
    await addAffiliate(t, 'inv1', 'Inv1@Example.com', '<script>alert(1)</script>');
    const admin = await t.admin();
    const res = await admin.call('POST', '/admin/api/affiliates/inv1/invite');
    expect(res.json()).toEqual({ success: true, invite_url: expect.stringContaining('/portal/accept#token='), expires_at: expect.any(String), mail: 'queued' });
    // queued, not sent, until the worker runs
    expect(mailsTo(smtp, 'inv1@example.com')).toHaveLength(0);
    await flush(t);
    const mail = only(mailsTo(smtp, 'inv1@example.com'));
    expect(mail.subject).toBe('Your invitation to the affiliate portal');
    expect(mail.from).toBe('noreply@svc.test.local');
    expect(mail.messageId).toMatch(/^<mail_.+@svc\.test\.local>$/);
    // the name is data: quoted, after fixed words, escaped
    expect(mail.html).toContain('This mail is for the affiliate account inv1, named "&lt;script&gt;alert(1)&lt;/script&gt;".');
    expect(mail.html).not.toContain('<script');
    expect(mail.text.startsWith('Hello,\n')).toBe(true);
    expect(mail.text).toContain('This mail is for the affiliate account inv1, named "<script>alert(1)</script>".');
    expect(mail.text).toContain('You received this mail because');
    const link = linkIn(mail, 'Choose your password');
    expect(link).toBe(res.json().invite_url);
    expect(link.startsWith('http://svc.test.local/portal/accept#token=')).toBe(true);
    const accepted = await t.request('POST', '/portal/api/accept-invite', { token: tokenOf(link), password: PORTAL_PASSWORD });
    expect(accepted.json()).toEqual({ success: true, csrf_token: expect.any(String), ref_code: 'inv1' });

    // the log
    const log = await admin.call('GET', '/admin/api/outbound-mail?limit=500');
    const entry = log.json().items.find((m: { to: string }) => m.to === 'inv1@example.com');
    expect(entry).toEqual({
      id: expect.stringMatching(/^mail_/),
      to: 'inv1@example.com',
      template: 'invitation',
      subject: 'Your invitation to the affiliate portal',
      status: 'sent',
      attempts: 1,
      last_error: null,
      created_at: expect.any(String),
      sent_at: expect.any(String),
    });
    expect(log.json().mail_configured).toBe(true);
    // no email: the link is answered, the answer says why no mail went
    await addAffiliate(t, 'inv2', undefined);
    expect((await admin.call('POST', '/admin/api/affiliates/inv2/invite')).json().mail).toBe('no_email');
  });

  it('password reset: login by email or ref_code, the link sets the password once, ends every session and voids older links', async () => {
    await addAffiliate(t, 'rst1', 'rst1@example.com', 'Rita');
    const admin = await t.admin();
    const inv = await admin.call('POST', '/admin/api/affiliates/rst1/invite');
    const first = portalClient(t, 'rst1', await t.request('POST', '/portal/api/accept-invite', { token: tokenOf(inv.json().invite_url), password: PORTAL_PASSWORD }));
    const spareInvite = tokenOf((await admin.call('POST', '/admin/api/affiliates/rst1/invite')).json().invite_url);
    await flush(t);
    smtp.mails.length = 0;

    // by email (any case) and by ref_code: two mails, two links
    const a = await forgot('RST1@example.com');
    expect(a.statusCode).toBe(202);
    expect(a.json()).toEqual({ success: true, mail: 'queued' });
    const b = await forgot('rst1');
    expect(b.json()).toEqual({ success: true, mail: 'queued' });
    // unknown logins: the same answer, no mail
    expect((await forgot('nobody@example.com')).json()).toEqual({ success: true, mail: 'queued' });
    expect((await forgot('nobody')).json()).toEqual({ success: true, mail: 'queued' });
    await flush(t);
    expect(smtp.mails).toHaveLength(2);
    for (const m of smtp.mails) {
      expect(m.to).toEqual(['rst1@example.com']);
      expect(m.subject).toBe('Reset your affiliate portal password');
    }
    const older = tokenOf(linkIn(smtp.mails[0] as CapturedMail, 'Choose a new password'));
    const link = linkIn(smtp.mails[1] as CapturedMail, 'Choose a new password');
    expect(link.startsWith('http://svc.test.local/portal/reset#token=')).toBe(true);
    // stored hashed
    const rows = await t.service.ctx.db.selectFrom('affiliate_invites').selectAll().where('kind', '=', 'reset').execute();
    expect(rows.some((r) => r.token_hash === tokenOf(link))).toBe(false);
    // a reset link is not an invitation
    expect((await t.request('POST', '/portal/api/accept-invite', { token: tokenOf(link), password: 'new-password-123' })).statusCode).toBe(400);

    const reset = await t.request('POST', '/portal/api/reset-password', { token: tokenOf(link), password: 'new-password-123' });
    expect(reset.statusCode).toBe(200);
    expect(reset.json()).toEqual({ success: true, csrf_token: expect.any(String), ref_code: 'rst1' });
    const again = await t.request('POST', '/portal/api/reset-password', { token: tokenOf(link), password: 'other-password-123' });
    expect(again.statusCode).toBe(400);
    expect(again.json().error.details).toEqual([{ field: 'token', message: expect.any(String) }]);
    // the older link and the unused invitation are void; the earlier session ended
    expect((await t.request('POST', '/portal/api/reset-password', { token: older, password: 'other-password-123' })).statusCode).toBe(400);
    expect((await t.request('POST', '/portal/api/accept-invite', { token: spareInvite, password: 'other-password-123' })).statusCode).toBe(400);
    expect((await first.call('GET', '/portal/api/me')).statusCode).toBe(401);
    // the new password signs in, by email and by ref_code (still accepted under its old name)
    const byEmail = await t.service.app.inject({ method: 'POST', url: '/portal/api/login', payload: { login: 'Rst1@Example.com', password: 'new-password-123' }, remoteAddress: freshIp() });
    expect(byEmail.json()).toEqual({ success: true, csrf_token: expect.any(String), ref_code: 'rst1' });
    const byCode = await t.service.app.inject({ method: 'POST', url: '/portal/api/login', payload: { ref_code: 'rst1', password: 'new-password-123' }, remoteAddress: freshIp() });
    expect(byCode.statusCode).toBe(200);
    const neither = await t.request('POST', '/portal/api/login', { password: 'new-password-123' });
    expect(neither.statusCode).toBe(400);
    expect(neither.json().error.details).toEqual([{ field: 'login', message: expect.any(String) }]);

    // expired after an hour
    smtp.mails.length = 0;
    await forgot('rst1');
    await flush(t);
    const late = tokenOf(linkIn(only(smtp.mails), 'Choose a new password'));
    t.clock.advance(HOUR + 1);
    expect((await t.request('POST', '/portal/api/reset-password', { token: late, password: 'late-password-123' })).statusCode).toBe(400);
  });

  it('forgot password is throttled per login and per client IP, known or not', async () => {
    for (const login of ['thr1', 'thr1-unknown@example.com']) {
      const codes: number[] = [];
      for (let i = 0; i < 4; i++) codes.push((await forgot(login)).statusCode);
      expect(codes).toEqual([202, 202, 202, 429]);
    }
    const fixed = () => t.service.app.inject({ method: 'POST', url: '/portal/api/forgot-password', payload: { login: `x${Math.random()}` }, remoteAddress: '192.0.2.77' });
    const codes: number[] = [];
    for (let i = 0; i < 11; i++) codes.push((await fixed()).statusCode);
    expect(codes.slice(0, 10).every((c) => c === 202)).toBe(true);
    const refused = await fixed();
    expect(refused.statusCode).toBe(429);
    expect(refused.json().error.code).toBe('rate_limited');
    expect(refused.headers['retry-after']).toBeDefined();
    await t.service.ctx.services.portalAuth.settled();
  });

  it('commission approved and withdrawal paid are mailed, unless the affiliate turned them off', async () => {
    await addAffiliate(t, 'ntf1', 'ntf1@example.com', 'Nina & <b>Co</b>');
    await addMailbox(t, 'buyer-ntf1@svc.test', 'ntf1');
    const admin = await t.admin();
    const client = portalClient(t, 'ntf1', await t.request('POST', '/portal/api/accept-invite', { token: tokenOf((await admin.call('POST', '/admin/api/affiliates/ntf1/invite')).json().invite_url), password: PORTAL_PASSWORD }));
    await flush(t);
    smtp.mails.length = 0;

    await t.api('POST', '/api/orders', { order_id: 'ntf-o1', email: 'buyer-ntf1@svc.test', amount: 125, product: 'p' });
    const paid = await t.api('POST', '/api/orders/pay', { order_id: 'ntf-o1' });
    const commissionId = paid.json().commission.id as string;
    expect((await t.api('POST', `/api/commissions/${commissionId}/approve`)).statusCode).toBe(200);
    await flush(t);
    const approved = only(mailsTo(smtp, 'ntf1@example.com'));
    expect(approved.subject).toBe('Commission approved: 12.50');
    expect(approved.html).toContain('Nina &amp; &lt;b&gt;Co&lt;/b&gt;');
    expect(linkIn(approved, 'Turn them off in your settings')).toBe('http://svc.test.local/portal/settings');
    expect(linkIn(approved, 'Open the portal')).toBe('http://svc.test.local/portal/commissions');

    // withdrawal paid
    await earn(t, 'ntf-o2', 'buyer-ntf1@svc.test', 100);
    await givePayoutDetails(t, 'ntf1');
    const w = await t.api('POST', '/api/withdrawals', { ref_code: 'ntf1', amount: 5 });
    expect(w.statusCode).toBe(201);
    smtp.mails.length = 0;
    await t.api('POST', `/api/withdrawals/${w.json().withdrawal.id}/mark-paid`);
    await flush(t);
    expect(mailsTo(smtp, 'ntf1@example.com').map((m) => m.subject)).toEqual(['Withdrawal paid: 5.00']);

    // opted out: the portal setting, then no such mails
    const me = await client.call('PATCH', '/portal/api/me', { notify: { commissions: false, payouts: false } });
    expect(me.json().affiliate).toMatchObject({ notify: { commissions: false, payouts: false }, mail_configured: true });
    smtp.mails.length = 0;
    await t.api('POST', '/api/orders', { order_id: 'ntf-o3', email: 'buyer-ntf1@svc.test', amount: 50, product: 'p' });
    const paid3 = await t.api('POST', '/api/orders/pay', { order_id: 'ntf-o3' });
    await t.api('POST', `/api/commissions/${paid3.json().commission.id}/approve`);
    const w2 = await t.api('POST', '/api/withdrawals', { ref_code: 'ntf1', amount: 1 });
    await t.api('POST', `/api/withdrawals/${w2.json().withdrawal.id}/mark-paid`);
    await flush(t);
    expect(mailsTo(smtp, 'ntf1@example.com')).toEqual([]);
    // invitations and resets are always sent
    await forgot('ntf1');
    await flush(t);
    expect(mailsTo(smtp, 'ntf1@example.com').map((m) => m.subject)).toEqual(['Reset your affiliate portal password']);
    // turned on again
    expect((await client.call('PATCH', '/portal/api/me', { notify: { commissions: true } })).json().affiliate.notify).toEqual({ commissions: true, payouts: false });
  });

  it("admin_email gets the affiliate awaiting review and the webhook failing (once an hour)", async () => {
    const admin = await t.admin();
    const bad = await admin.call('PATCH', '/admin/api/settings', { admin_email: 'not an email' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details).toEqual([{ field: 'admin_email', message: expect.any(String) }]);
    const set = await admin.call('PATCH', '/admin/api/settings', { admin_email: 'Boss@Example.com', affiliate_signup: 'review' });
    expect(set.json().settings.admin_email).toBe('boss@example.com');
    smtp.mails.length = 0;
    const signup = await t.service.app.inject({
      method: 'POST',
      url: '/portal/api/signup',
      payload: { ref_code: 'rev1', name: '<img src=x onerror=alert(1)>', email: 'rev1@example.com', password: PORTAL_PASSWORD },
      remoteAddress: freshIp(),
    });
    expect(signup.statusCode).toBe(201);
    await flush(t);
    const review = only(mailsTo(smtp, 'boss@example.com'));
    expect(review.subject).toBe('Affiliate awaiting review: rev1');
    expect(review.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(linkIn(review, 'Review the affiliate')).toBe('http://svc.test.local/admin/affiliates');

    // a webhook that never answers: failed after every retry, one mail
    smtp.mails.length = 0;
    await admin.call('PATCH', '/admin/api/settings', { webhook_url: 'http://127.0.0.1:9/hook' });
    t.service.ctx.dispatcher.options.timeoutMs = 300;
    await admin.call('POST', '/admin/api/webhooks/test');
    await admin.call('POST', '/admin/api/webhooks/test');
    for (let i = 0; i < 9; i++) {
      await flush(t);
      t.clock.advance(11 * HOUR);
    }
    await flush(t);
    const failing = only(mailsTo(smtp, 'boss@example.com'));
    expect(failing.subject).toMatch(/^Webhook failing: webhook\.test evt_/);
    expect(linkIn(failing, 'See the deliveries')).toBe('http://svc.test.local/admin/webhooks');
    await (await t.admin()).call('PATCH', '/admin/api/settings', { webhook_url: null, affiliate_signup: 'closed' });
    t.service.ctx.dispatcher.options.timeoutMs = 10_000;
    // the webhook deliveries list does not show mail
    const listed = await (await t.admin()).call('GET', '/admin/api/deliveries?limit=500');
    expect(listed.statusCode, listed.body).toBe(200);
    const deliveries = listed.json().items as { target: string }[];
    expect(deliveries.every((d) => d.target !== 'mail')).toBe(true);
  });

  it('an SMTP server refusing, then accepting: retried with backoff, one mail, one Message-ID; resend', async () => {
    await addAffiliate(t, 'retry1', 'retry1@example.com');
    const admin = await t.admin();
    smtp.mode = 'refuse';
    smtp.attempted.length = 0;
    await admin.call('POST', '/admin/api/affiliates/retry1/invite');
    await flush(t);
    await flush(t);
    expect(mailsTo(smtp, 'retry1@example.com')).toHaveLength(0);
    let entry = (await admin.call('GET', '/admin/api/outbound-mail')).json().items[0];
    expect(entry).toMatchObject({ to: 'retry1@example.com', status: 'queued', attempts: 1, last_error: expect.stringContaining('451') });
    // not before its backoff
    t.clock.advance(2_000);
    await flush(t);
    expect(smtp.attempted).toHaveLength(1);
    smtp.mode = 'accept';
    t.clock.advance(10_000);
    await flush(t);
    const mail = only(mailsTo(smtp, 'retry1@example.com'));
    expect(smtp.attempted).toEqual([mail.messageId, mail.messageId]);
    entry = (await admin.call('GET', '/admin/api/outbound-mail')).json().items[0];
    expect(entry).toMatchObject({ status: 'sent', attempts: 2 });

    // resend: the same mail, the same Message-ID
    const resent = await admin.call('POST', `/admin/api/outbound-mail/${entry.id}/resend`);
    expect(resent.json()).toMatchObject({ success: true, mail: { id: entry.id, status: 'queued', attempts: 0 } });
    await flush(t);
    expect(mailsTo(smtp, 'retry1@example.com').map((m) => m.messageId)).toEqual([mail.messageId, mail.messageId]);
    const missing = await admin.call('POST', '/admin/api/outbound-mail/mail_nope/resend');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('not_found');
    expect((await admin.call('GET', '/admin/api/outbound-mail?status=bogus')).statusCode).toBe(400);
  });

  it('a hanging SMTP server slows neither requests nor webhook deliveries', async () => {
    await addAffiliate(t, 'hang1', 'hang1@example.com');
    const admin = await t.admin();
    const time = async (n: number) => {
      const started = performance.now();
      for (let i = 0; i < n; i++) {
        const res = await admin.call('GET', '/admin/api/settings');
        expect(res.statusCode).toBe(200);
      }
      return (performance.now() - started) / n;
    };
    await time(5);
    const before = await time(20);
    smtp.mode = 'hang';
    t.service.ctx.mailDispatcher.options.timeoutMs = 3_000;
    for (let i = 0; i < 4; i++) await admin.call('POST', '/admin/api/affiliates/hang1/invite');
    const sending = t.service.ctx.mailDispatcher.drain();
    // every mail slot is stuck on the SMTP server now
    const inviteStarted = performance.now();
    const invite = await admin.call('POST', '/admin/api/affiliates/hang1/invite');
    const inviteMs = performance.now() - inviteStarted;
    expect(invite.json().mail).toBe('queued');
    const during = await time(20);
    // the webhook lane delivers while the mail lane waits
    const receiver = await startReceiver();
    await admin.call('PATCH', '/admin/api/settings', { webhook_url: receiver.url });
    await admin.call('POST', '/admin/api/webhooks/test');
    const hookStarted = performance.now();
    await t.service.ctx.dispatcher.drain();
    const hookMs = performance.now() - hookStarted;
    console.log(`requests ${before.toFixed(2)} ms before, ${during.toFixed(2)} ms while SMTP hangs; invite ${inviteMs.toFixed(1)} ms; webhook drained in ${hookMs.toFixed(1)} ms`);
    expect(receiver.requests.length).toBeGreaterThanOrEqual(1);
    expect(hookMs).toBeLessThan(1000);
    expect(inviteMs).toBeLessThan(1000);
    expect(during).toBeLessThan(Math.max(before * 3, before + 20));
    await sending;
    const log = (await admin.call('GET', '/admin/api/outbound-mail?status=queued')).json().items as { to: string; last_error: string }[];
    expect(log.filter((m) => m.to === 'hang1@example.com').length).toBeGreaterThanOrEqual(4);
    expect(log[0]?.last_error).toMatch(/timeout|Timeout|did not finish|Greeting never received/i);
    await admin.call('PATCH', '/admin/api/settings', { webhook_url: null });
    await receiver.close();
    t.service.ctx.mailDispatcher.options.timeoutMs = 30_000;
    smtp.mode = 'accept';
  });

  // Sub-millisecond answers on a shared 2-core machine: the two medians drift apart by up to 9 % from the
  // machine alone (seen locally, either sign), while a real difference (hashing or mailing only for a known
  // login: 18-85 % before) moves every pair. So the test compares each known answer with the unknown one
  // timed next to it and takes the median of those differences: what the machine does over the run cancels.
  // Two retries. Each try has its own affiliate: a retry that added tim1 again was refused 409 and never measured.
  let timingTry = 0;
  it('forgot password takes the same time for a known and an unknown login (100 pairs, within 10 %)', { retry: 2 }, async () => {
    const ref = `tim${++timingTry}`;
    await addAffiliate(t, ref, `${ref}@example.com`);
    const timed = async (login: string) => {
      t.clock.advance(2 * HOUR);
      const started = performance.now();
      const res = await forgot(login);
      const ms = performance.now() - started;
      expect(res.statusCode).toBe(202);
      // the reset mail is queued after the answer: that finishes before the next request is timed
      await t.service.ctx.services.portalAuth.settled();
      return ms;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    const gaps: number[] = [];
    for (let i = 0; i < 110; i++) {
      // alternating which goes first, so neither gets the other's warm-up
      let k: number;
      let u: number;
      if (i % 2 === 0) {
        k = await timed(`${ref}@example.com`);
        u = await timed('nobody-here@example.com');
      } else {
        u = await timed('nobody-here@example.com');
        k = await timed(`${ref}@example.com`);
      }
      if (i < 10) continue;
      known.push(k);
      unknown.push(u);
      gaps.push(k - u);
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
    const k = median(known);
    const u = median(unknown);
    const gap = median(gaps);
    console.log(`forgot-password: known ${k.toFixed(3)} ms, unknown ${u.toFixed(3)} ms, median gap within a pair ${gap.toFixed(3)} ms (100 pairs)`);
    expect(Math.abs(gap) / Math.min(k, u)).toBeLessThan(0.1);
    await t.service.ctx.mailDispatcher.drain();
  });

  it('two instances on one database: each mail sent once', async () => {
    if (dialect !== 'postgres') return;
    const other = await t.sibling();
    try {
      const admin = await t.admin();
      for (let i = 0; i < 12; i++) await addAffiliate(t, `two${i}`, `two${i}@example.com`);
      smtp.mails.length = 0;
      for (let i = 0; i < 12; i++) await admin.call('POST', `/admin/api/affiliates/two${i}/invite`);
      await Promise.all([t.service.ctx.mailDispatcher.drain(), other.service.ctx.mailDispatcher.drain(), t.service.ctx.mailDispatcher.drain(), other.service.ctx.mailDispatcher.drain()]);
      const ids = smtp.mails.filter((m) => m.to[0]?.startsWith('two')).map((m) => m.messageId);
      expect(ids).toHaveLength(12);
      expect(new Set(ids).size).toBe(12);
    } finally {
      await other.close();
    }
  });
});

describeEachDatabase('outbound mail not configured', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
  });
  afterAll(async () => {
    await t.close();
  });

  it('queues nothing, and every place that would send says so', async () => {
    await addAffiliate(t, 'nc1', 'nc1@example.com');
    const admin = await t.admin();
    const invite = await admin.call('POST', '/admin/api/affiliates/nc1/invite');
    expect(invite.json()).toEqual({ success: true, invite_url: expect.stringContaining('#token='), expires_at: expect.any(String), mail: 'not_configured' });
    const f = await t.request('POST', '/portal/api/forgot-password', { login: 'nc1' });
    expect(f.statusCode).toBe(202);
    expect(f.json()).toEqual({ success: true, mail: 'not_configured' });
    expect((await admin.call('GET', '/admin/api/outbound-mail')).json()).toEqual({ success: true, items: [], next_cursor: null, mail_configured: false });
    const client = portalClient(t, 'nc1', await t.request('POST', '/portal/api/accept-invite', { token: tokenOf(invite.json().invite_url), password: PORTAL_PASSWORD }));
    expect((await client.call('GET', '/portal/api/me')).json().affiliate).toMatchObject({ notify: { commissions: true, payouts: true }, mail_configured: false });
  });
});
