import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { LIVE_STREAM_RETRY_AFTER_S } from '../../src/mail/messages/live-streams.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { createTestMailbox, type TestMailbox } from '../helpers/mail-fixtures.js';
import { waitFor } from '../helpers/process.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** An open event stream on a real socket: its status, what it has received, and whether it is still open. */
interface Stream {
  readonly status: number;
  readonly body: () => string;
  readonly closed: () => boolean;
  close(): void;
}

async function openStream(base: string, mailbox: TestMailbox, headers: Record<string, string> = {}): Promise<Stream> {
  const controller = new AbortController();
  const res = await fetch(`${base}/mailboxes/${mailbox.address}/events?token=${encodeURIComponent(mailbox.token)}`, { headers, signal: controller.signal });
  let body = '';
  let closed = false;
  if (res.status === 200 && res.body) {
    const reader = res.body.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for (;;) {
          const chunk = await reader.read();
          if (chunk.done) break;
          body += decoder.decode(chunk.value, { stream: true });
        }
      } catch {
        // aborted by close()
      }
      closed = true;
    })();
  } else {
    body = await res.text();
    closed = true;
  }
  return { status: res.status, body: () => body, closed: () => closed, close: () => controller.abort() };
}

function expectStreamRefused(s: Stream): void {
  expect(s.status).toBe(429);
  expect(JSON.parse(s.body())).toEqual({ success: false, error: { code: 'rate_limited', message: expect.any(String), details: { retry_after: LIVE_STREAM_RETRY_AFTER_S } } });
}

describeEachDatabase('live streams: at most 5 per mailbox and 50 per client (CONTRACT §11)', (dialect) => {
  let t: TestService;
  let base: string;
  const open: Stream[] = [];
  let n = 0;
  const mailbox = () => createTestMailbox(t, `limits${++n}@svc.test`);
  // loopback is the trusted proxy, so X-Forwarded-For plays the part of different clients
  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  const stream = async (m: TestMailbox, headers?: Record<string, string>) => {
    const s = await openStream(base, m, headers);
    open.push(s);
    return s;
  };

  beforeAll(async () => {
    t = await startTestService(dialect, { env: { SVC_TRUST_PROXY: 'loopback' } });
    base = await t.service.start();
  });
  afterEach(async () => {
    for (const s of open.splice(0)) s.close();
    await waitFor(() => t.service.ctx.liveStreams.open === 0, 10_000);
  });
  afterAll(() => t.close());

  it('answers the sixth stream of a mailbox 429 rate_limited with Retry-After, whoever opens it', async () => {
    const m = await mailbox();
    for (let i = 0; i < 5; i++) expect((await stream(m, from(`192.0.2.${i + 1}`))).status).toBe(200);
    const refused = await stream(m, from('192.0.2.99'));
    expectStreamRefused(refused);
    // the five are untouched and another mailbox is not affected
    expect(open.slice(0, 5).every((s) => !s.closed())).toBe(true);
    expect((await stream(await mailbox(), from('192.0.2.99'))).status).toBe(200);
  });

  it('gives the slot back when a stream closes', async () => {
    const m = await mailbox();
    const five: Stream[] = [];
    for (let i = 0; i < 5; i++) five.push(await stream(m));
    expectStreamRefused(await stream(m));
    five[0]!.close();
    await waitFor(() => t.service.ctx.liveStreams.open === 4, 10_000);
    expect((await stream(m)).status).toBe(200);
  });

  it('answers a client its 51st stream 429, across mailboxes; other clients still get theirs', async () => {
    const client = from('198.51.100.20');
    for (let i = 0; i < 10; i++) {
      const m = await mailbox();
      for (let j = 0; j < 5; j++) expect((await stream(m, client)).status).toBe(200);
    }
    const m = await mailbox();
    expectStreamRefused(await stream(m, client));
    expect((await stream(m, from('198.51.100.21'))).status).toBe(200);
  });

  it('counts an IPv6 /64 as one client', async () => {
    for (let i = 0; i < 10; i++) {
      const m = await mailbox();
      for (let j = 0; j < 5; j++) expect((await stream(m, from(`2001:db8:5:6::${i * 5 + j + 1}`))).status).toBe(200);
    }
    expectStreamRefused(await stream(await mailbox(), from('2001:db8:5:6:aaaa::1')));
  });

  it('takes no slot for a refused token', async () => {
    const m = await mailbox();
    for (let i = 0; i < 10; i++) expect((await stream({ address: m.address, token: 'wrong' })).status).toBe(401);
    for (let i = 0; i < 5; i++) expect((await stream(m)).status).toBe(200);
  });

  it('answers HEAD with the stream headers at once and holds no slot (it used to hang)', async () => {
    const m = await mailbox();
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${base}/mailboxes/${m.address}/events?token=${encodeURIComponent(m.token)}`, { method: 'HEAD', signal: AbortSignal.timeout(10_000) });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    }
    expect(t.service.ctx.liveStreams.open).toBe(0);
    for (let i = 0; i < 5; i++) expect((await stream(m)).status).toBe(200);
  });
});

/** A raw TCP connection to the server, recording what it receives and when it closes. */
function rawConnection(address: string): Promise<{ socket: Socket; received: () => string; closed: Promise<void>; isClosed: () => boolean }> {
  const url = new URL(address);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let received = '';
    let isClosed = false;
    const closed = new Promise<void>((r) =>
      socket.on('close', () => {
        isClosed = true;
        r();
      }),
    );
    socket.on('data', (d) => {
      received += d.toString('latin1');
    });
    socket.on('error', () => {});
    socket.once('connect', () => resolve({ socket, received: () => received, closed, isClosed: () => isClosed }));
    socket.once('error', reject);
  });
}

async function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

describeEachDatabase('HTTP server: connection cap and timeouts (CONTRACT §11)', (dialect) => {
  let t: TestService | undefined;
  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('closes connections beyond SVC_MAX_CONNECTIONS as they arrive, and takes new ones when some close', async () => {
    const svc = await startTestService(dialect, { env: { SVC_MAX_CONNECTIONS: '5' } });
    t = svc;
    const base = await svc.service.start();
    const server = svc.service.app.server as unknown as { _connections: number };
    const held: Awaited<ReturnType<typeof rawConnection>>[] = [];
    for (let i = 0; i < 5; i++) {
      const c = await rawConnection(base);
      c.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await waitFor(() => c.received().includes('"status":"ok"'), 10_000);
      held.push(c);
    }
    const sixth = await rawConnection(base);
    sixth.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await withTimeout(sixth.closed, 10_000, 'the sixth connection closed');
    expect(sixth.received()).toBe('');
    // the five held connections still work
    held[0]!.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await waitFor(() => held[0]!.received().split('"status":"ok"').length === 3, 10_000);
    held[1]!.socket.destroy();
    await waitFor(() => server._connections === 4, 10_000);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    for (const c of held) c.socket.destroy();
  });

  it('answers 408 to a client still sending its headers after headersTimeout (slowloris)', async () => {
    t = await startTestService(dialect, { http: { headersTimeoutMs: 1000, idleTimeoutMs: 30_000 } });
    const base = await t.service.start();
    const c = await rawConnection(base);
    c.socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
    // one header line every 100 ms: never idle, never done
    const trickle = setInterval(() => c.socket.writable && c.socket.write('X-Slow: 1\r\n'), 100);
    try {
      await withTimeout(c.closed, 15_000, 'the slow client was cut off');
    } finally {
      clearInterval(trickle);
    }
    expect(c.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(c.received()).toContain('"code":"invalid_request"');
  });

  it('closes a silent connection after idleTimeout, while an event stream with heartbeats stays open', async () => {
    t = await startTestService(dialect, { http: { idleTimeoutMs: 1500, streamHeartbeatMs: 100 } });
    const base = await t.service.start();
    const m = await createTestMailbox(t, 'idle@svc.test');
    const s = await openStream(base, m);
    expect(s.status).toBe(200);
    const silent = await rawConnection(base);
    const opened = Date.now();
    await withTimeout(silent.closed, 15_000, 'the silent connection closed');
    expect(silent.received()).toBe('');
    // the stream outlives it by two more idle periods, heartbeats flowing
    const heartbeatsBefore = s.body().split(': heartbeat').length;
    await waitFor(() => Date.now() - opened > 2 * 1500 + 1500 || s.closed(), 20_000);
    expect(s.closed()).toBe(false);
    expect(s.body().split(': heartbeat').length).toBeGreaterThan(heartbeatsBefore + 5);
    s.close();
  });
});
