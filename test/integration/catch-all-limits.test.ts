import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.js';
import type { SmtpGateway } from '../../src/mail/smtp/smtp-gateway.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { sendSmtp } from '../helpers/raw-smtp.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * docs/api.md#catch-all: the caps on mailboxes a catch-all domain creates count the connecting client IP
 * and the domain, never MAIL FROM. On main before this, ten messages with made-up senders used up a domain's
 * hour and the real senders were refused. Each client here is a loopback address of its own (127.0.0.x).
 */
const CAP = { SVC_CATCH_ALL_SENDER_HOURLY: '10', SVC_CATCH_ALL_DOMAIN_HOURLY: '20' };

function smtpPort(t: TestService): number {
  return (t.service.ctx.background.find((task) => task.name === 'smtp') as SmtpGateway).address().port;
}

function send(t: TestService, from: string, to: string, client: string, subject = 'Hello') {
  const source = Buffer.from(`From: ${from}\r\nTo: ${to}\r\nSubject: ${subject}\r\n\r\nYour code is 482913\r\n`);
  return sendSmtp(smtpPort(t), { from, to }, source, 60_000, client);
}

const random = () => randomBytes(5).toString('hex');

describeEachDatabase('catch-all caps per client IP and per domain, never per MAIL FROM', (dialect) => {
  let a: TestService;
  let b: TestService;
  beforeAll(async () => {
    a = await startTestService(dialect, { env: { SMTP_PORT: '0', SVC_MAIL_DOMAINS: 'flood.test', ...CAP }, clock: new FakeClock(Date.now()) });
    await a.service.start();
    // SQLite serves one instance by design: there both "instances" are the one; on PostgreSQL the caps are summed over both.
    b = dialect === 'postgres' ? await a.sibling() : a;
    if (b !== a) await b.service.start();
    await a.api('PATCH', '/api/domains/flood.test', { catch_all: true });
  });
  afterAll(async () => {
    if (b !== a) await b.service.destroy();
    await a.close();
  });

  it('a flood with a new MAIL FROM each time uses up its own client\'s cap only; a real sender on another IP is still taken; then the domain cap holds for everyone', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 25; i++) {
      const reply = await send(i % 2 === 0 ? a : b, `${random()}@forged-${random()}.example`, `victim-${i}@flood.test`, '127.0.0.21');
      codes.push(reply.code);
      if (reply.code === 450) expect(reply.text).toMatch(/^450 4\.7\.1 <victim-\d+@flood\.test>: too many new mailboxes on this domain or from your address, try again in 60 min/);
    }
    expect(codes).toEqual([...Array(10).fill(250), ...Array(15).fill(450)]);

    // the real sender, from another client, whose MAIL FROM the flood may even have used
    const real = await send(b, 'alerts@bank.example', 'billing@flood.test', '127.0.0.22', 'Your statement');
    expect(real.code).toBe(250);
    const messages = (await a.api('GET', '/api/mailboxes/billing@flood.test/messages')).json();
    expect(messages.items).toMatchObject([{ subject: 'Your statement', from: 'alerts@bank.example' }]);

    // the domain: 20 an hour whoever connects; 11 are used (the flood's refusals did not count against it)
    for (let i = 0; i < 9; i++) expect((await send(a, 'ok@sender.example', `third-${i}@flood.test`, '127.0.0.23')).code).toBe(250);
    const full = await send(b, 'alerts@bank.example', 'late@flood.test', '127.0.0.24');
    expect(full.code).toBe(450);
    expect(full.text).toMatch(/try again in 60 min/);
    const created = await a.service.ctx.db.selectFrom('mailboxes').select('address').where('domain', '=', 'flood.test').execute();
    expect(created).toHaveLength(20);
    // mail to mailboxes that exist is never capped, whoever sends it
    expect((await send(a, `${random()}@forged.example`, 'billing@flood.test', '127.0.0.21')).code).toBe(250);

    // an hour later every window has ended, on both instances
    a.clock.advance(3_600_000);
    expect((await send(b, `${random()}@forged.example`, 'victim-next@flood.test', '127.0.0.21')).code).toBe(250);
    expect((await send(a, 'alerts@bank.example', 'late@flood.test', '127.0.0.24')).code).toBe(250);
  });

  it('POST /api/inbound (the API key\'s relay) counts against the domain only, whatever its `from`', async () => {
    await a.api('POST', '/api/domains', { domain: 'relay.test', catch_all: true });
    // more than the per-client cap through one relay, each with a forged `from`: the domain's 20 are what bound it
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) {
      const res = await (i % 2 === 0 ? a : b).api('POST', '/api/inbound', { from: `${random()}@forged.example`, to: `r-${i}@relay.test`, subject: 'Hi', text: 'Hello' });
      statuses.push(res.statusCode);
      if (res.statusCode === 429) {
        expect(res.json()).toEqual({ success: false, error: { code: 'rate_limited', message: expect.any(String), details: { retry_after: 3600 } } });
      }
    }
    expect(statuses).toEqual([...Array(20).fill(201), 429]);
  });
});
