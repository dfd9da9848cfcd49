import { type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_HTTP_LIMITS } from '../../src/config.js';
import { MAX_WAIT_SECONDS } from '../../src/mail/messages/message-waits.js';
import { HOLD_OPEN_MARGIN_MS } from '../../src/platform/http/idle-timeout.js';
import { CLIENT_BUDGET_RETRY_AFTER_S, clientBudgetKey, DEFAULT_LONG_REQUESTS_PER_CLIENT } from '../../src/platform/limits/long-requests.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { createTestMailbox, type TestMailbox } from '../helpers/mail-fixtures.js';
import { waitFor } from '../helpers/process.js';
import { startTestService, TEST_API_KEY, type TestService, type TestServiceOptions } from '../helpers/service.js';

/** loopback is the trusted proxy, so X-Forwarded-For plays the part of different clients on real sockets. */
const TRUST_LOOPBACK = { SVC_TRUST_PROXY: 'loopback' };

let ipCounter = 0;
/** A client address no other test uses (TEST-NET-3), so each test starts with a clean budget. */
const freshIp = () => `203.0.113.${++ipCounter}`;
const from = (ip: string) => ({ 'x-forwarded-for': ip });

interface Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A request on a connection of its own: its status once the headers came, its whole answer, and a way to hang up. */
interface LongRequest {
  /** The status and headers (an event stream's 200 comes at once, a wait's only with its answer). */
  readonly responded: Promise<Answer>;
  /** The whole answer (never, for an open event stream). */
  readonly answered: Promise<Answer>;
  close(): void;
}

function longRequest(base: string, path: string, opts: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): LongRequest {
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  const req = httpRequest(new URL(path, base), {
    method: opts.method ?? 'GET',
    agent: false,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }), ...opts.headers },
  });
  let respond: (a: Answer) => void = () => {};
  const responded = new Promise<Answer>((resolve, reject) => {
    respond = resolve;
    req.once('error', reject);
  });
  const answered = new Promise<Answer>((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (res) => {
      respond({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        text += d;
      });
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      res.once('error', reject);
    });
  });
  // a request closed on purpose ends in an error nobody awaits
  responded.catch(() => {});
  answered.catch(() => {});
  req.end(body);
  return { responded, answered, close: () => req.destroy() };
}

const mcpCall = (args: Record<string, unknown>) => ({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait_for_message', arguments: args } });
const MCP_HEADERS = { authorization: `Bearer ${TEST_API_KEY}`, accept: 'application/json, text/event-stream' };

function expectBudgetSpent(a: Answer, perClient: number): void {
  expect(a.status).toBe(429);
  expect(Number(a.headers['retry-after'])).toBe(CLIENT_BUDGET_RETRY_AFTER_S);
  expect(JSON.parse(a.body)).toEqual({
    success: false,
    error: {
      code: 'rate_limited',
      message: `This client has ${perClient} long-lived requests open (message waits, event streams, MCP requests): close one first`,
      details: { retry_after: CLIENT_BUDGET_RETRY_AFTER_S },
    },
  });
}

/** Two instances sharing one database (PostgreSQL), or one (SQLite serves one instance by design), listening. */
async function instances(dialect: 'sqlite' | 'postgres', opts: TestServiceOptions) {
  const a = await startTestService(dialect, opts);
  const b = dialect === 'postgres' ? await a.sibling() : a;
  const baseA = await a.service.start();
  const baseB = b === a ? baseA : await b.service.start();
  const both = (count: (t: TestService) => number) => count(a) + (b === a ? 0 : count(b));
  return {
    a,
    b,
    baseA,
    baseB,
    waits: () => both((t) => t.service.ctx.services.messageWaits.open),
    streams: () => both((t) => t.service.ctx.liveStreams.open),
    mcp: () => both((t) => t.service.ctx.mcpRequests.open),
    /** Live leases of a client's budget in the database, whichever instance took them. */
    budgetHeld: async (ip: string) =>
      Number(
        (
          await a.service.ctx.db
            .selectFrom('limit_leases')
            .select((eb) => eb.fn.countAll<number | string>().as('n'))
            .where('key', '=', clientBudgetKey(ip))
            .where('expires_at', '>', a.clock.now())
            .executeTakeFirstOrThrow()
        ).n,
      ),
    async close() {
      if (b !== a) await b.service.destroy();
      await a.close();
    },
  };
}

/** Polls an async count (a row count in the database) until it is `n`. */
async function until(count: () => Promise<number>, n: number): Promise<void> {
  let last = await count();
  const deadline = Date.now() + 10_000;
  while (last !== n) {
    if (Date.now() > deadline) throw new Error(`count stayed ${last}, not ${n}`);
    await new Promise((r) => setTimeout(r, 25));
    last = await count();
  }
}

describeEachDatabase('long-lived requests: one budget per client, and waits that outlive the idle timeout (docs/api.md#long-lived-requests-per-client)', (dialect) => {
  describe('the budget of one client over two instances (README.md#limits)', () => {
    let s: Awaited<ReturnType<typeof instances>>;
    const open: LongRequest[] = [];
    let n = 0;
    const mailbox = () => createTestMailbox(s.a, `long${++n}@svc.test`);
    const wait = (base: string, m: TestMailbox, ip: string, timeout = 30) => {
      const r = longRequest(base, `/mailboxes/${m.address}/messages/wait?timeout=${timeout}`, { headers: { authorization: `Bearer ${m.token}`, ...from(ip) } });
      open.push(r);
      return r;
    };
    beforeAll(async () => {
      s = await instances(dialect, { env: TRUST_LOOPBACK });
    });
    afterEach(async () => {
      for (const r of open.splice(0)) r.close();
      await waitFor(() => s.waits() === 0 && s.streams() === 0 && s.mcp() === 0, 10_000);
    });
    afterAll(() => s.close());

    it(`${DEFAULT_LONG_REQUESTS_PER_CLIENT} waits over 10 mailboxes fill a client's budget: the next is 429 on either instance, another client still waits, a closed wait frees exactly its slot`, async () => {
      const ip = freshIp();
      const mailboxes: TestMailbox[] = [];
      for (let i = 0; i < 10; i++) mailboxes.push(await mailbox());
      const mine: LongRequest[] = [];
      for (let i = 0; i < DEFAULT_LONG_REQUESTS_PER_CLIENT; i++) mine.push(wait(i % 2 ? s.baseB : s.baseA, mailboxes[i % 10] as TestMailbox, ip));
      await waitFor(() => s.waits() === DEFAULT_LONG_REQUESTS_PER_CLIENT, 20_000);
      expect(await s.budgetHeld(ip)).toBe(DEFAULT_LONG_REQUESTS_PER_CLIENT);

      const eleventh = await mailbox();
      expectBudgetSpent(await wait(s.baseA, eleventh, ip).answered, DEFAULT_LONG_REQUESTS_PER_CLIENT);
      expectBudgetSpent(await wait(s.baseB, eleventh, ip).answered, DEFAULT_LONG_REQUESTS_PER_CLIENT);
      // the refusals took nothing, and the open waits are untouched
      expect(await s.budgetHeld(ip)).toBe(DEFAULT_LONG_REQUESTS_PER_CLIENT);
      expect(s.waits()).toBe(DEFAULT_LONG_REQUESTS_PER_CLIENT);

      // another client waits on that mailbox; on a full mailbox it meets the mailbox's own cap, not the budget
      const other = freshIp();
      wait(s.baseB, eleventh, other);
      await waitFor(() => s.waits() === DEFAULT_LONG_REQUESTS_PER_CLIENT + 1, 10_000);
      const mailboxFull = await wait(s.baseA, mailboxes[0] as TestMailbox, other).answered;
      expect(mailboxFull.status).toBe(429);
      expect(JSON.parse(mailboxFull.body)).toEqual({
        success: false,
        error: { code: 'rate_limited', message: 'This mailbox has 5 waits open: retry later', details: { retry_after: 5 } },
      });

      // a wait closed by its client frees its slot at once, once: 49 held, and a new wait takes it back
      mine[1]?.close();
      await until(() => s.budgetHeld(ip), DEFAULT_LONG_REQUESTS_PER_CLIENT - 1);
      await waitFor(() => s.waits() === DEFAULT_LONG_REQUESTS_PER_CLIENT, 10_000);
      const again = wait(s.baseA, eleventh, ip);
      await waitFor(() => s.waits() === DEFAULT_LONG_REQUESTS_PER_CLIENT + 1, 10_000);
      expect(await s.budgetHeld(ip)).toBe(DEFAULT_LONG_REQUESTS_PER_CLIENT);
      expectBudgetSpent(await wait(s.baseB, eleventh, ip).answered, DEFAULT_LONG_REQUESTS_PER_CLIENT);

      // a wait that is answered frees its slot too
      await s.a.api('POST', '/api/inbound', { to: eleventh.address, subject: 'for the eleventh' });
      expect(JSON.parse((await again.answered).body).message).toMatchObject({ subject: 'for the eleventh' });
      await until(() => s.budgetHeld(ip), DEFAULT_LONG_REQUESTS_PER_CLIENT - 1);

      for (const r of mine) r.close();
      await until(() => s.budgetHeld(ip), 0);
    });
  });

  describe('event streams, waits and MCP requests share the one budget (SVC_LONG_REQUESTS_PER_CLIENT=3)', () => {
    let s: Awaited<ReturnType<typeof instances>>;
    const open: LongRequest[] = [];
    beforeAll(async () => {
      s = await instances(dialect, { env: { ...TRUST_LOOPBACK, SVC_LONG_REQUESTS_PER_CLIENT: '3' } });
    });
    afterAll(async () => {
      for (const r of open.splice(0)) r.close();
      await waitFor(() => s.waits() === 0 && s.streams() === 0 && s.mcp() === 0, 10_000);
      await s.close();
    });

    it('one of each fills it; then each kind is refused with the body, and a closed MCP request frees a slot for a stream', async () => {
      const ip = freshIp();
      const m = await createTestMailbox(s.a, 'shared.budget@svc.test');
      const auth = { authorization: `Bearer ${m.token}`, ...from(ip) };
      const stream = (base: string) => {
        const r = longRequest(base, `/mailboxes/${m.address}/events`, { headers: auth });
        open.push(r);
        return r;
      };
      const wait = (base: string) => {
        const r = longRequest(base, `/mailboxes/${m.address}/messages/wait?timeout=30`, { headers: auth });
        open.push(r);
        return r;
      };
      const mcp = (base: string) => {
        const r = longRequest(base, '/mcp', { method: 'POST', headers: { ...MCP_HEADERS, ...from(ip) }, body: mcpCall({ address: m.address, timeout: 30 }) });
        open.push(r);
        return r;
      };

      expect((await stream(s.baseA).responded).status).toBe(200);
      wait(s.baseB);
      const agent = mcp(s.baseA);
      await waitFor(() => s.waits() === 2 && s.mcp() === 1, 10_000);
      // the MCP request's wait_for_message takes a slot of the mailbox's waits, not a second one of the budget
      expect(await s.budgetHeld(ip)).toBe(3);

      expectBudgetSpent(await stream(s.baseB).answered, 3);
      expectBudgetSpent(await wait(s.baseA).answered, 3);
      expectBudgetSpent(await mcp(s.baseB).answered, 3);
      expect(s.streams()).toBe(1);
      expect(s.waits()).toBe(2);
      expect(s.mcp()).toBe(1);

      agent.close();
      await waitFor(() => s.mcp() === 0 && s.waits() === 1, 10_000);
      await until(() => s.budgetHeld(ip), 2);
      expect((await stream(s.baseB).responded).status).toBe(200);
      expect(await s.budgetHeld(ip)).toBe(3);
      // another client has a budget of its own
      const otherAgent = longRequest(s.baseB, '/mcp', { method: 'POST', headers: { ...MCP_HEADERS, ...from(freshIp()) }, body: mcpCall({ address: m.address, timeout: 0.1 }) });
      const answer = await otherAgent.answered;
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { structuredContent: { message: null } } });
    });
  });

  describe('with every server timeout shortened to 400 ms', () => {
    const SHORT = 400;
    let t: TestService;
    let base: string;
    beforeAll(async () => {
      t = await startTestService(dialect, { http: { headersTimeoutMs: SHORT - 100, requestTimeoutMs: SHORT, idleTimeoutMs: SHORT, keepAliveTimeoutMs: SHORT } });
      base = await t.service.start();
    });
    afterAll(() => t.close());

    it(`a wait and an MCP wait_for_message of ${4 * SHORT} ms answer at their end, while a silent connection is closed`, async () => {
      const m = await createTestMailbox(t, 'short.timeouts@svc.test');
      const { port } = new URL(base);
      const silent: Socket = connect(Number(port), '127.0.0.1');
      let silentClosed = false;
      silent.on('close', () => {
        silentClosed = true;
      });
      silent.on('error', () => {});
      // read what comes (its 408), or its end would wait behind those unread bytes
      let heard = '';
      silent.on('data', (d: Buffer) => {
        heard += d.toString('latin1');
      });
      const seconds = (4 * SHORT) / 1000;
      const waited = longRequest(base, `/mailboxes/${m.address}/messages/wait?timeout=${seconds}`, { headers: { authorization: `Bearer ${m.token}` } });
      const agent = longRequest(base, '/mcp', { method: 'POST', headers: MCP_HEADERS, body: mcpCall({ address: m.address, timeout: seconds }) });
      const [w, a] = await Promise.all([waited.answered, agent.answered]);
      expect(w.status).toBe(200);
      expect(JSON.parse(w.body)).toEqual({ success: true, message: null });
      expect(a.status).toBe(200);
      expect(JSON.parse(a.body)).toMatchObject({ jsonrpc: '2.0', id: 1, result: { structuredContent: { message: null } } });
      expect(a.body).not.toContain('isError');
      // both ran their whole time: the silent connection, opened with them, was closed long before
      expect(silentClosed).toBe(true);
      expect(heard).toMatch(/^(HTTP\/1\.1 408 |$)/);
      silent.destroy();
    });
  });

  describe('with the default timeouts', () => {
    let t: TestService;
    let base: string;
    beforeAll(async () => {
      t = await startTestService(dialect);
      base = await t.service.start();
    });
    afterAll(() => t.close());

    it(`a wait and an MCP wait_for_message of the maximum ${MAX_WAIT_SECONDS} s get a connection whose idle timeout is past it`, async () => {
      // The idle timeout is what would close a silent answer: Node's headers and request timeouts end with
      // the request read in full (the shortened run above proves both), and keepAliveTimeout starts after the answer.
      expect(t.service.app.server.timeout).toBe(DEFAULT_HTTP_LIMITS.idleTimeoutMs);
      const m = await createTestMailbox(t, 'default.timeouts@svc.test');
      const sockets: Socket[] = [];
      t.service.app.server.on('connection', (socket: Socket) => sockets.push(socket));
      const requests = [
        longRequest(base, `/mailboxes/${m.address}/messages/wait?timeout=${MAX_WAIT_SECONDS}`, { headers: { authorization: `Bearer ${m.token}` } }),
        longRequest(base, '/mcp', { method: 'POST', headers: MCP_HEADERS, body: mcpCall({ address: m.address, timeout: MAX_WAIT_SECONDS }) }),
      ];
      try {
        await waitFor(() => t.service.ctx.services.messageWaits.open === 2, 10_000);
        expect(sockets).toHaveLength(2);
        for (const socket of sockets) expect(socket.timeout).toBeGreaterThanOrEqual(MAX_WAIT_SECONDS * 1000 + HOLD_OPEN_MARGIN_MS);
      } finally {
        for (const r of requests) r.close();
      }
      await waitFor(() => t.service.ctx.services.messageWaits.open === 0 && t.service.ctx.mcpRequests.open === 0, 10_000);
    });
  });
});
