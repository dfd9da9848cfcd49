import type { LightMyRequestResponse } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LIVE_STREAM_RETRY_AFTER_S } from '../../src/mail/messages/live-streams.js';
import { PUBLIC_MAILBOX_LIMIT } from '../../src/mail/mailboxes/mailbox.routes.js';
import { MAILTM_TOKEN_LIMIT } from '../../src/mail/mailtm/mailtm.routes.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { addAffiliate } from '../helpers/ledger-fixtures.js';
import { createTestMailbox, type TestMailbox } from '../helpers/mail-fixtures.js';
import { PORTAL_PASSWORD, portalLogin, portalSignIn } from '../helpers/portal.js';
import { waitFor } from '../helpers/process.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** A live stream's lease lives four stream heartbeats (15 s each) unless its instance renews it. */
const LEASE_TTL_MS = 4 * 15_000;
const LOGIN_WINDOW_MS = 15 * 60 * 1000;
/** loopback is the trusted proxy, so X-Forwarded-For plays the part of different clients on real sockets. */
const TRUST_LOOPBACK = { env: { SVC_TRUST_PROXY: 'loopback' } };

let ipCounter = 0;
/** A client address no other test uses (TEST-NET-2), so each test starts with clean per-client counts. */
const freshIp = () => `198.51.100.${++ipCounter}`;

function post(t: TestService, url: string, payload: unknown, remoteAddress: string): Promise<LightMyRequestResponse> {
  return t.service.app.inject({ method: 'POST', url, payload: payload as object, remoteAddress });
}

function expectLimited(res: { statusCode: number; json(): unknown; headers: Record<string, unknown> }, retryAfter?: number): void {
  expect(res.statusCode).toBe(429);
  expect(res.json()).toEqual({ success: false, error: { code: 'rate_limited', message: expect.any(String), details: { retry_after: retryAfter ?? expect.any(Number) } } });
  if (retryAfter !== undefined) expect(Number(res.headers['retry-after'])).toBe(retryAfter);
  else expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
}

/** An open event stream on a real socket: its status and body (for a refusal), and a way to hang up. */
interface Stream {
  readonly status: number;
  readonly body: string;
  close(): void;
}

async function openStream(url: string, headers: Record<string, string> = {}): Promise<Stream> {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  if (res.status !== 200) return { status: res.status, body: await res.text(), close: () => {} };
  // read (and drop) what arrives, so the socket stays drained until close()
  void res.body?.pipeTo(new WritableStream()).catch(() => {});
  return { status: 200, body: '', close: () => controller.abort() };
}

function expectStreamRefused(s: Stream): void {
  expect(s.status).toBe(429);
  expect(JSON.parse(s.body)).toEqual({ success: false, error: { code: 'rate_limited', message: expect.any(String), details: { retry_after: LIVE_STREAM_RETRY_AFTER_S } } });
}

describeEachDatabase('limits shared by every instance on one database (CONTRACT §16)', (dialect) => {
  let a: TestService;
  let b: TestService;
  beforeAll(async () => {
    a = await startTestService(dialect, TRUST_LOOPBACK);
    // SQLite serves one instance by design (and two in one process would block each other's event loop
    // on its file lock), so there the same requests all go to one instance: the single-instance behaviour.
    b = dialect === 'postgres' ? await a.sibling() : a;
  });
  afterAll(async () => {
    if (b !== a) await b.service.destroy();
    await a.close();
  });

  describe('per-client request limits (@fastify/rate-limit, counted in the database)', () => {
    it('POST /mailboxes: 15 creations on each instance use up the 30 of a client; the 31st is refused on both', async () => {
      const ip = freshIp();
      const half = PUBLIC_MAILBOX_LIMIT.max / 2;
      const first = await post(a, '/mailboxes', {}, ip);
      expect(first.statusCode).toBe(201);
      // the plugin's headers are kept, and count both instances' requests
      expect(first.headers['x-ratelimit-limit']).toBe(String(PUBLIC_MAILBOX_LIMIT.max));
      expect(first.headers['x-ratelimit-remaining']).toBe(String(PUBLIC_MAILBOX_LIMIT.max - 1));
      expect(first.headers['x-ratelimit-reset']).toBe('60');
      for (let i = 1; i < half; i++) expect((await post(a, '/mailboxes', {}, ip)).statusCode).toBe(201);
      for (let i = 0; i < half; i++) {
        const res = await post(b, '/mailboxes', {}, ip);
        expect(res.statusCode).toBe(201);
        expect(res.headers['x-ratelimit-remaining']).toBe(String(half - 1 - i));
      }
      expectLimited(await post(a, '/mailboxes', {}, ip), 60);
      expectLimited(await post(b, '/mailboxes', {}, ip), 60);
      // another client is not held back
      expect((await post(b, '/mailboxes', {}, freshIp())).statusCode).toBe(201);
      const mailboxes = await a.service.ctx.db.selectFrom('mailboxes').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
      expect(Number(mailboxes.n)).toBe(PUBLIC_MAILBOX_LIMIT.max + 1);
    });

    it('counts on the service clock: Retry-After is what is left of the window, and the window ends for every instance', async () => {
      const ip = freshIp();
      for (let i = 0; i < PUBLIC_MAILBOX_LIMIT.max; i++) expect((await post(i % 2 ? a : b, '/mailboxes', {}, ip)).statusCode).toBe(201);
      a.clock.advance(20_000);
      expectLimited(await post(a, '/mailboxes', {}, ip), 40);
      // refused requests do not extend the window
      a.clock.advance(40_000);
      const again = await post(b, '/mailboxes', {}, ip);
      expect(again.statusCode).toBe(201);
      expect(again.headers['x-ratelimit-remaining']).toBe(String(PUBLIC_MAILBOX_LIMIT.max - 1));
    });

    it('mail.tm POST /accounts: the 30 a minute of a client hold over both instances', async () => {
      const ip = freshIp();
      const half = PUBLIC_MAILBOX_LIMIT.max / 2;
      const account = (i: number) => ({ address: `shared${ipCounter}x${i}@svc.test`, password: 'secret-pass' });
      // two real accounts, the rest refused by validation: every request counts, as the plugin counts them
      expect((await post(a, '/mailtm/accounts', account(0), ip)).statusCode).toBe(201);
      expect((await post(b, '/mailtm/accounts', account(1), ip)).statusCode).toBe(201);
      for (let i = 1; i < half; i++) expect((await post(a, '/mailtm/accounts', {}, ip)).statusCode).toBe(400);
      for (let i = 1; i < half; i++) expect((await post(b, '/mailtm/accounts', {}, ip)).statusCode).toBe(400);
      expectLimited(await post(a, '/mailtm/accounts', account(2), ip));
      expectLimited(await post(b, '/mailtm/accounts', account(3), ip));
    });

    it(`mail.tm POST /token: the ${MAILTM_TOKEN_LIMIT.max} a minute of a client hold over both instances`, async () => {
      const ip = freshIp();
      const half = MAILTM_TOKEN_LIMIT.max / 2;
      for (let i = 0; i < half; i++) expect((await post(a, '/mailtm/token', {}, ip)).statusCode).toBe(400);
      for (let i = 0; i < half; i++) expect((await post(b, '/mailtm/token', {}, ip)).statusCode).toBe(400);
      expectLimited(await post(b, '/mailtm/token', { address: 'nobody@svc.test', password: 'secret-pass' }, ip));
      expectLimited(await post(a, '/mailtm/token', { address: 'nobody@svc.test', password: 'secret-pass' }, ip));
    });

    it('the retention job deletes windows that have ended', async () => {
      const ip = freshIp();
      expect((await post(a, '/mailboxes', {}, ip)).statusCode).toBe(201);
      const windows = () => a.service.ctx.db.selectFrom('rate_limit_windows').select('key').where('key', '=', ip).execute();
      expect(await windows()).toHaveLength(1);
      await b.service.ctx.rateWindows.purgeEnded();
      expect(await windows()).toHaveLength(1);
      a.clock.advance(PUBLIC_MAILBOX_LIMIT.timeWindow);
      expect(await b.service.ctx.rateWindows.purgeEnded()).toBeGreaterThanOrEqual(1);
      expect(await windows()).toEqual([]);
    });
  });

  describe('sign-up and login throttles (already counted in the database)', () => {
    beforeEach(() => a.clock.advance(LOGIN_WINDOW_MS + 1));

    it('portal sign-up: 3 from one address on each instance get 5 × 201 and then 429', async () => {
      const admin = await a.admin();
      await admin.call('PATCH', '/admin/api/settings', { affiliate_signup: 'open' });
      try {
        const ip = freshIp();
        const signup = (t: TestService, ref: string) => post(t, '/portal/api/signup', { ref_code: ref, name: 'Bot', email: `${ref}@example.com`, password: PORTAL_PASSWORD }, ip);
        const codes: number[] = [];
        for (let i = 0; i < 3; i++) {
          codes.push((await signup(a, `sa${ipCounter}x${i}`)).statusCode);
          codes.push((await signup(b, `sb${ipCounter}x${i}`)).statusCode);
        }
        expect(codes).toEqual([201, 201, 201, 201, 201, 429]);
        expectLimited(await signup(a, `sc${ipCounter}`));
      } finally {
        await admin.call('PATCH', '/admin/api/settings', { affiliate_signup: 'closed' });
      }
    });

    it('portal login: 3 wrong passwords on each instance get 5 × 401 and then 429, the right password included', async () => {
      const ref = `login${ipCounter}`;
      await addAffiliate(a, ref);
      await portalSignIn(a, ref);
      const ip = freshIp();
      const codes: number[] = [];
      for (let i = 0; i < 3; i++) {
        codes.push((await portalLogin(a, ref, `wrong-password-${i}a`, ip)).statusCode);
        codes.push((await portalLogin(b, ref, `wrong-password-${i}b`, ip)).statusCode);
      }
      expect(codes).toEqual([401, 401, 401, 401, 401, 429]);
      expectLimited(await portalLogin(a, ref, PORTAL_PASSWORD, ip));
    });
  });

  describe('live streams (leases in the database)', () => {
    let baseA: string;
    let baseB: string;
    const open: Stream[] = [];
    let n = 0;
    const mailbox = () => createTestMailbox(a, `shared${++n}@svc.test`);
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    const inbox = (base: string, m: TestMailbox) => `${base}/mailboxes/${m.address}/events?token=${encodeURIComponent(m.token)}`;
    const inboxOf = (base: string, address: string) => `${base}/mailboxes/${address}/events`;
    const stream = async (url: string, headers?: Record<string, string>) => {
      const s = await openStream(url, headers);
      open.push(s);
      return s;
    };
    /** Streams open over both instances (one on SQLite). */
    const held = () => a.service.ctx.liveStreams.open + (b === a ? 0 : b.service.ctx.liveStreams.open);

    beforeAll(async () => {
      baseA = await a.service.start();
      baseB = b === a ? baseA : await b.service.start();
    });
    afterEach(async () => {
      for (const s of open.splice(0)) s.close();
      await waitFor(() => held() === 0, 10_000);
    });

    it('5 per mailbox over both instances: 3 on one and 2 on the other, the 6th is refused on either', async () => {
      const m = await mailbox();
      for (let i = 0; i < 3; i++) expect((await stream(inbox(baseA, m), from(freshIp()))).status).toBe(200);
      for (let i = 0; i < 2; i++) expect((await stream(inbox(baseB, m), from(freshIp()))).status).toBe(200);
      expectStreamRefused(await stream(inbox(baseA, m), from(freshIp())));
      expectStreamRefused(await stream(inbox(baseB, m), from(freshIp())));
      // a stream closed on one instance gives its slot to the other
      open[0]?.close();
      await waitFor(() => held() === 4, 10_000);
      expect((await stream(inbox(baseB, m), from(freshIp()))).status).toBe(200);
    });

    it('the mail.tm Mercure stream and the inbox stream take the same slots, on any instance', async () => {
      const ip = freshIp();
      const address = `mercure${++n}@svc.test`;
      expect((await post(a, '/mailtm/accounts', { address, password: 'secret-pass' }, ip)).statusCode).toBe(201);
      const { id, token } = (await post(b, '/mailtm/token', { address, password: 'secret-pass' }, ip)).json() as { id: string; token: string };
      const mercure = (base: string) => `${base}/mailtm/.well-known/mercure?topic=/accounts/${id}`;
      const auth = { authorization: `Bearer ${token}` };
      for (let i = 0; i < 3; i++) expect((await stream(mercure(i % 2 ? baseB : baseA), { ...auth, ...from(freshIp()) })).status).toBe(200);
      // the account's token opens the mailbox's inbox stream too (CONTRACT §14): two of those fill the five
      for (let i = 0; i < 2; i++) expect((await stream(inboxOf(i ? baseA : baseB, address), { ...auth, ...from(freshIp()) })).status).toBe(200);
      expectStreamRefused(await stream(mercure(baseA), { ...auth, ...from(freshIp()) }));
      expectStreamRefused(await stream(inboxOf(baseB, address), { ...auth, ...from(freshIp()) }));
    });

    it('50 per client over both instances: 25 on each, the 51st is refused on either; another client gets its own', async () => {
      const client = from(freshIp());
      for (let i = 0; i < 10; i++) {
        const m = await mailbox();
        for (let j = 0; j < 5; j++) expect((await stream(inbox(i < 5 ? baseA : baseB, m), client)).status).toBe(200);
      }
      const m = await mailbox();
      expectStreamRefused(await stream(inbox(baseA, m), client));
      expectStreamRefused(await stream(inbox(baseB, m), client));
      expect((await stream(inbox(baseB, m), from(freshIp()))).status).toBe(200);
    });

    it('a live instance keeps its slots by renewing them: past the lease time they are still taken', async () => {
      const m = await mailbox();
      for (let i = 0; i < 5; i++) expect((await stream(inbox(baseA, m), from(freshIp()))).status).toBe(200);
      expectStreamRefused(await stream(inbox(baseB, m), from(freshIp())));
      a.clock.advance(LEASE_TTL_MS - 1000);
      await a.service.ctx.liveStreams.renew();
      a.clock.advance(LEASE_TTL_MS - 1000);
      expectStreamRefused(await stream(inbox(baseB, m), from(freshIp())));
    });

    /**
     * An instance on a database of its own, with a mailbox whose five slots it fills, and what a second
     * instance started on that database after it (the other instance, or the restart on SQLite) sees.
     */
    async function fullMailboxThen(stop: (first: TestService) => Promise<void>, check: (heir: TestService, heirBase: string, m: TestMailbox) => Promise<void>) {
      const first = await startTestService(dialect, TRUST_LOOPBACK);
      const theirs: Stream[] = [];
      let heir: TestService | undefined;
      try {
        const base = await first.service.start();
        const m = await createTestMailbox(first, 'full@svc.test');
        for (let i = 0; i < 5; i++) theirs.push(await openStream(inbox(base, m), from(freshIp())));
        expect(theirs.map((s) => s.status)).toEqual([200, 200, 200, 200, 200]);
        await stop(first);
        heir = await startTestService(dialect, { ...TRUST_LOOPBACK, database: first.database, clock: first.clock });
        await check(heir, await heir.service.start(), m);
      } finally {
        for (const s of theirs) s.close();
        await heir?.service.destroy();
        await first.service.destroy().catch(() => {});
        await first.database.drop();
      }
    }

    it('a crashed instance does not hold its slots forever: they free when its leases expire', async () => {
      await fullMailboxThen(
        // the instance loses its database: it can neither renew nor give back its leases
        (first) => first.service.ctx.handle.destroy(),
        async (heir, base, m) => {
          const own: Stream[] = [];
          try {
            const open = async () => {
              const s = await openStream(inbox(base, m), from(freshIp()));
              own.push(s);
              return s;
            };
            expectStreamRefused(await open());
            heir.clock.advance(LEASE_TTL_MS - 1000);
            expectStreamRefused(await open());
            heir.clock.advance(1000);
            for (let i = 0; i < 5; i++) expect((await open()).status).toBe(200);
            expectStreamRefused(await open());
            // the retention job deletes the dead leases (two keys each: the mailbox and the client); the heir's own
            // every-minute task may have purged some already, so only the total is certain
            const dead = () => heir.service.ctx.db.selectFrom('limit_leases').select('id').where('expires_at', '<=', heir.clock.now()).execute();
            const before = (await dead()).length;
            expect(before).toBeLessThanOrEqual(10);
            expect(await heir.service.ctx.liveStreams.purgeExpired()).toBeGreaterThanOrEqual(before);
            expect(await dead()).toEqual([]);
          } finally {
            for (const s of own) s.close();
          }
        },
      );
    });

    it('an instance that stops gives its slots back at once', async () => {
      await fullMailboxThen(
        (first) => first.service.destroy(),
        async (heir, base, m) => {
          const own: Stream[] = [];
          try {
            for (let i = 0; i < 5; i++) own.push(await openStream(inbox(base, m), from(freshIp())));
            expect(own.map((s) => s.status)).toEqual([200, 200, 200, 200, 200]);
            expect(heir.service.ctx.liveStreams.open).toBe(5);
          } finally {
            for (const s of own) s.close();
          }
        },
      );
    });
  });
});
