import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { addMailbox } from '../helpers/ledger-fixtures.js';
import { PORTAL_PASSWORD, portalClient } from '../helpers/portal.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { type CapturedMail, linkIn, type SmtpCapture, startSmtpCapture } from '../helpers/smtp-capture.js';

// Mail svc sends cannot be aimed at a victim (docs/api.md#email-confirmation, README.md#outbound-mail).

const HOUR = 3600_000;
const FROM = 'Affiliates <noreply@svc.test.local>';
const tokenOf = (link: string) => link.split('#token=')[1] as string;

describeEachDatabase('mail svc sends cannot be aimed at a victim', (dialect) => {
  let smtp: SmtpCapture;
  let t: TestService;
  let ip = 0;
  const freshIp = () => `198.51.100.${++ip % 250}`;
  const post = (url: string, payload: unknown) => t.service.app.inject({ method: 'POST', url, payload: payload as object, remoteAddress: freshIp() });
  const forgot = (login: string) => post('/portal/api/forgot-password', { login });
  const signup = (ref: string, email: string, name = 'Sam') => post('/portal/api/signup', { ref_code: ref, name, email, password: PORTAL_PASSWORD });
  const login = (loginName: string, password = PORTAL_PASSWORD) => post('/portal/api/login', { login: loginName, password });
  const mailsTo = (to: string) => smtp.mails.filter((m) => m.to.includes(to));
  const flush = async () => {
    await t.service.ctx.services.portalAuth.settled();
    await t.service.ctx.dispatcher.drain();
    await t.service.ctx.mailDispatcher.drain();
  };
  /** An affiliate the operator creates, with a confirmed email and a portal password. */
  const addOwner = async (ref: string, email: string) => {
    expect((await t.api('POST', '/api/affiliates', { ref_code: ref, name: 'Owner', email })).statusCode).toBe(201);
    const admin = await t.admin();
    const invite = await admin.call('POST', `/admin/api/affiliates/${ref}/invite`);
    expect(invite.json().mail).toBe('queued');
    expect((await t.request('POST', '/portal/api/accept-invite', { token: tokenOf(invite.json().invite_url), password: PORTAL_PASSWORD })).statusCode).toBe(200);
  };
  const storedMailsTo = async (to: string) =>
    (await t.service.ctx.db.selectFrom('outbound_mail').select(['template', 'created_at']).where('to_address', '=', to).orderBy('id').execute()).map((r) => r.template);

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    t = await startTestService(dialect, { env: { SVC_SMTP_URL: smtp.url, SVC_MAIL_FROM: FROM } });
    await (await t.admin()).call('PATCH', '/admin/api/settings', { affiliate_signup: 'open' });
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });
  beforeEach(() => {
    t.clock.advance(2 * HOUR);
    smtp.mails.length = 0;
  });

  it('8 anonymous requests naming one address, over several accounts: 5 mails in the hour, the rest answered the same and not sent; the next hour again', async () => {
    const victim = 'victim@example.com';
    await addOwner('vic', victim);
    t.clock.advance(2 * HOUR); // the invitation is the operator's, not counted; and out of the window anyway
    await flush();
    smtp.mails.length = 0;

    const answers: number[] = [];
    const forgotAnswers: unknown[] = [];
    // 3 resets by email, 2 by ref code, 3 sign-ups of accounts naming the victim's address
    for (const login of ['Victim@example.com', 'victim@example.com', 'VICTIM@example.com', 'vic', 'vic']) {
      const res = await forgot(login);
      answers.push(res.statusCode);
      forgotAnswers.push(res.json());
      await t.service.ctx.services.portalAuth.settled();
    }
    const signups = [];
    for (const ref of ['atk1', 'atk2', 'atk3']) signups.push(await signup(ref, victim, 'Your account is locked: call +1 555 0100'));
    expect(answers).toEqual([202, 202, 202, 202, 202]);
    expect(forgotAnswers.every((a) => JSON.stringify(a) === JSON.stringify({ success: true, mail: 'queued' }))).toBe(true);
    // the sign-ups answer as they would with mail sent: nothing tells the address is capped
    for (const s of signups) {
      expect(s.statusCode).toBe(201);
      expect(s.json()).toMatchObject({ success: true, affiliate: { email: victim, status: 'active' }, confirmation_mail: 'queued' });
    }
    // 6th, 7th, 8th: over the cap whatever their kind
    expect((await forgot('vic')).json()).toEqual({ success: true, mail: 'queued' });
    await flush();
    expect(mailsTo(victim).map((m) => m.subject)).toEqual(Array(5).fill('Reset your affiliate portal password'));
    expect((await storedMailsTo(victim)).filter((m) => m !== 'invitation')).toEqual(Array(5).fill('password_reset'));
    // no token was issued for a mail not sent
    const confirmTokens = await t.service.ctx.db.selectFrom('affiliate_invites').select('ref_code').where('kind', '=', 'confirm').where('ref_code', 'in', ['atk1', 'atk2', 'atk3']).execute();
    expect(confirmTokens).toEqual([]);

    // rolling: 59 minutes after the first, still capped; an hour after the first five, mail again
    // (a new account each time: the logins used above are at their own limit of 3 resets an hour)
    t.clock.advance(HOUR - 60_000);
    expect((await signup('atk4', victim)).json().confirmation_mail).toBe('queued');
    await flush();
    expect(mailsTo(victim)).toHaveLength(5);
    t.clock.advance(2 * 60_000);
    expect((await signup('atk5', victim)).json().confirmation_mail).toBe('queued');
    await flush();
    expect(mailsTo(victim)).toHaveLength(6);
    expect(mailsTo(victim)[5]?.text).toContain('This mail is for the affiliate account atk5');
    // an address of its own is never held back by another's cap
    await addOwner('bystander', 'bystander@example.com');
    expect((await forgot('bystander')).statusCode).toBe(202);
    await flush();
    expect(mailsTo('bystander@example.com').map((m) => m.subject)).toContain('Reset your affiliate portal password');
  });

  it("signing up with someone else's email: the confirmed owner still signs in and resets by email, the impostor's confirmation is 409 and changes nothing", async () => {
    const owner = 'owner@example.com';
    await addOwner('own1', owner);
    await flush();
    smtp.mails.length = 0;

    const impostor = await signup('imp1', 'Owner@Example.com', 'Owner');
    expect(impostor.statusCode).toBe(201);
    expect(impostor.json().affiliate.email).toBe(owner);
    const imp = portalClient(t, 'imp1', impostor);
    expect((await imp.call('GET', '/portal/api/me')).json().affiliate).toMatchObject({ email: owner, email_confirmed: false });

    // the owner's email still signs the owner in; the impostor's password does not sign in by it
    const byEmail = await login(owner);
    expect(byEmail.statusCode, byEmail.body).toBe(200);
    expect(byEmail.json().ref_code).toBe('own1');
    // a reset by that email goes to the owner's account only
    expect((await forgot(owner)).statusCode).toBe(202);
    await flush();
    const mails = mailsTo(owner);
    expect(mails.map((m) => m.subject).sort()).toEqual(['Confirm your email address for the affiliate portal', 'Reset your affiliate portal password']);
    const reset = mails.find((m) => m.subject.startsWith('Reset')) as CapturedMail;
    expect(reset.text).toContain('This mail is for the affiliate account own1');
    const resetDone = await t.request('POST', '/portal/api/reset-password', { token: tokenOf(linkIn(reset, 'Choose a new password')), password: 'owner-new-password' });
    expect(resetDone.json()).toMatchObject({ success: true, ref_code: 'own1' });

    // the owner clicks the impostor's confirmation link (it came to the owner's address): refused, nothing changes
    const confirmation = mails.find((m) => m.subject.startsWith('Confirm')) as CapturedMail;
    expect(confirmation.text).toContain('This mail is for the affiliate account imp1, named "Owner".');
    const token = tokenOf(linkIn(confirmation, 'Confirm this address'));
    const refused = await t.request('POST', '/portal/api/confirm-email', { token });
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({ success: false, error: { code: 'email_taken', message: expect.stringContaining('already confirmed') } });
    // the link was not used up by the refusal, and still changes nothing
    expect((await t.request('POST', '/portal/api/confirm-email', { token })).statusCode).toBe(409);
    expect((await imp.call('GET', '/portal/api/me')).json().affiliate.email_confirmed).toBe(false);
    expect((await login(owner, 'owner-new-password')).json().ref_code).toBe('own1');
    // the impostor, signed in by its ref code, gets nothing by the address
    expect((await post('/portal/api/login', { login: 'imp1', password: PORTAL_PASSWORD })).statusCode).toBe(200);
  });

  it('an unconfirmed email signs in, resets and is notified by nothing until its link is followed; then it does; the link is single use and expires', async () => {
    const email = 'newbie@example.com';
    const name = 'Ann\r\nYour payout is on hold: log in at https://evil.example\u202E\u200B';
    const res = await signup('unc1', email, name);
    expect(res.statusCode).toBe(201);
    expect(res.json().confirmation_mail).toBe('queued');
    const client = portalClient(t, 'unc1', res);
    expect((await client.call('GET', '/portal/api/me')).json().affiliate).toMatchObject({ email, email_confirmed: false });
    await flush();
    const confirmation = mailsTo(email)[0] as CapturedMail;
    expect(mailsTo(email)).toHaveLength(1);
    expect(confirmation.subject).toBe('Confirm your email address for the affiliate portal');
    // the name is data: after fixed words, quoted, on one line, without its line break or invisible characters
    expect(confirmation.text.split('\n')[0]).toBe('Hello,');
    expect(confirmation.text).toContain('This mail is for the affiliate account unc1, named "Ann Your payout is on hold: log in at https://evil.example".');
    expect(confirmation.text.split('\n').some((l) => l.startsWith('Your payout'))).toBe(false);
    expect(confirmation.text).not.toMatch(/[\u202E\u200B]/);
    const link = linkIn(confirmation, 'Confirm this address');
    expect(link.startsWith('http://svc.test.local/portal/confirm-email#token=')).toBe(true);
    // stored hashed
    const rows = await t.service.ctx.db.selectFrom('affiliate_invites').selectAll().where('kind', '=', 'confirm').where('ref_code', '=', 'unc1').execute();
    expect(rows.map((r) => r.email)).toEqual([email]);
    expect(rows.some((r) => r.token_hash === tokenOf(link))).toBe(false);

    // before confirming: sign-in by email 401, by ref code 200; no reset by email or by ref code
    expect((await login(email)).statusCode).toBe(401);
    expect((await login('unc1')).statusCode).toBe(200);
    smtp.mails.length = 0;
    expect((await forgot(email)).json()).toEqual({ success: true, mail: 'queued' });
    expect((await forgot('unc1')).json()).toEqual({ success: true, mail: 'queued' });
    // no notification either: a commission approved is not mailed to it
    await addMailbox(t, 'buyer-unc1@svc.test', 'unc1');
    await t.api('POST', '/api/orders', { order_id: 'unc-o1', email: 'buyer-unc1@svc.test', amount: 100, product: 'p' });
    const paid = await t.api('POST', '/api/orders/pay', { order_id: 'unc-o1' });
    expect((await t.api('POST', `/api/commissions/${paid.json().commission.id}/approve`)).statusCode).toBe(200);
    // nor an invitation from the admin
    expect((await (await t.admin()).call('POST', '/admin/api/affiliates/unc1/invite')).json().mail).toBe('no_email');
    await flush();
    expect(mailsTo(email)).toEqual([]);

    // a link that is not one: 400 naming token
    const bogus = await t.request('POST', '/portal/api/confirm-email', { token: 'not-a-token' });
    expect(bogus.statusCode).toBe(400);
    expect(bogus.json().error.details).toEqual([{ field: 'token', message: expect.any(String) }]);
    // confirmed, once
    const confirmed = await t.request('POST', '/portal/api/confirm-email', { token: tokenOf(link) });
    expect(confirmed.json()).toEqual({ success: true, ref_code: 'unc1', email });
    const again = await t.request('POST', '/portal/api/confirm-email', { token: tokenOf(link) });
    expect(again.statusCode).toBe(400);
    expect(again.json().error.details).toEqual([{ field: 'token', message: expect.any(String) }]);
    expect((await client.call('GET', '/portal/api/me')).json().affiliate.email_confirmed).toBe(true);
    expect((await client.call('POST', '/portal/api/confirm-email/resend')).json()).toEqual({ success: false, error: { code: 'email_already_confirmed', message: expect.any(String) } });

    // now it signs in, gets resets and notifications
    const byEmail = await login(email);
    expect(byEmail.json()).toMatchObject({ success: true, ref_code: 'unc1' });
    expect((await forgot(email)).statusCode).toBe(202);
    await t.api('POST', '/api/orders', { order_id: 'unc-o2', email: 'buyer-unc1@svc.test', amount: 100, product: 'p' });
    const paid2 = await t.api('POST', '/api/orders/pay', { order_id: 'unc-o2' });
    await t.api('POST', `/api/commissions/${paid2.json().commission.id}/approve`);
    await flush();
    expect(mailsTo(email).map((m) => m.subject).sort()).toEqual(['Commission approved: 10.00', 'Reset your affiliate portal password']);
    for (const m of mailsTo(email)) expect(m.text.split('\n')[0]).toBe('Hello,');
  });

  it('resend mails a new link within the cap; a link expires after 24 hours; a later change of the email voids it', async () => {
    const email = 'late@example.com';
    let client = portalClient(t, 'late1', await signup('late1', email));
    const resent = await client.call('POST', '/portal/api/confirm-email/resend');
    expect(resent.statusCode).toBe(202);
    expect(resent.json()).toEqual({ success: true, mail: 'queued' });
    await flush();
    const links = mailsTo(email).map((m) => tokenOf(linkIn(m, 'Confirm this address')));
    expect(links).toHaveLength(2);
    expect(new Set(links).size).toBe(2);
    // resends count against the same cap: 5 mails in the hour, then none (same answer)
    for (let i = 0; i < 5; i++) expect((await client.call('POST', '/portal/api/confirm-email/resend')).json()).toEqual({ success: true, mail: 'queued' });
    await flush();
    expect(mailsTo(email)).toHaveLength(5);

    t.clock.advance(24 * HOUR + 1);
    // the session has ended by now: signed in again by the ref code
    client = portalClient(t, 'late1', await login('late1'));
    const expired = await t.request('POST', '/portal/api/confirm-email', { token: links[0] });
    expect(expired.statusCode).toBe(400);
    expect((await client.call('GET', '/portal/api/me')).json().affiliate.email_confirmed).toBe(false);

    // a fresh link, then the operator changes the email: the link no longer confirms anything
    smtp.mails.length = 0;
    await client.call('POST', '/portal/api/confirm-email/resend');
    await flush();
    const fresh = tokenOf(linkIn(mailsTo(email)[0] as CapturedMail, 'Confirm this address'));
    const admin = await t.admin();
    // saving the same address again leaves it unconfirmed (an admin editing the name confirms nothing)
    expect((await admin.call('PATCH', '/admin/api/affiliates/late1', { email, name: 'Late' })).statusCode).toBe(200);
    expect((await client.call('GET', '/portal/api/me')).json().affiliate.email_confirmed).toBe(false);
    // a new address from the operator is confirmed as given
    expect((await admin.call('PATCH', '/admin/api/affiliates/late1', { email: 'late-new@example.com' })).statusCode).toBe(200);
    expect((await client.call('GET', '/portal/api/me')).json().affiliate).toMatchObject({ email: 'late-new@example.com', email_confirmed: true });
    expect((await t.request('POST', '/portal/api/confirm-email', { token: fresh })).statusCode).toBe(400);
    expect((await login('late-new@example.com')).json().ref_code).toBe('late1');
  });
});

describeEachDatabase('email confirmation without outbound mail', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
    await (await t.admin()).call('PATCH', '/admin/api/settings', { affiliate_signup: 'open' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('a sign-up says no confirmation mail goes; it signs in with its ref code', async () => {
    const res = await t.request('POST', '/portal/api/signup', { ref_code: 'nm1', name: 'N', email: 'nm1@example.com', password: PORTAL_PASSWORD });
    expect(res.statusCode).toBe(201);
    expect(res.json().confirmation_mail).toBe('not_configured');
    const client = portalClient(t, 'nm1', res);
    expect((await client.call('POST', '/portal/api/confirm-email/resend')).json()).toEqual({ success: true, mail: 'not_configured' });
    expect((await client.call('GET', '/portal/api/me')).json().affiliate).toMatchObject({ email_confirmed: false, mail_configured: false });
    expect((await t.service.app.inject({ method: 'POST', url: '/portal/api/login', payload: { login: 'nm1', password: PORTAL_PASSWORD }, remoteAddress: '192.0.2.9' })).statusCode).toBe(200);
  });
});
