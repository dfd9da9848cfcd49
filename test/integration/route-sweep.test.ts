import { createHmac } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase, freshDatabase, processDatabaseUrl, type TestDatabase } from '../helpers/databases.js';
import { describeWindows, LoopWatch, type LoopWindow } from '../helpers/loop-watch.js';
import { runSvc, type SvcProcess, started } from '../helpers/process.js';

/**
 * docs/architecture.md#every-route: no request a route admits by size holds the event loop 100 ms or
 * more, authenticated or not, and what a limit refuses is a contract error, never a 5xx. A real svc
 * process is started, its /openapi.json read, and EVERY operation it describes (so a route is swept the
 * day it is added) is sent the hostile shapes of that rule: a ~1 MiB JSON object of ~120,000 keys,
 * JSON nested 500,000 deep, every field of the route's body as one long string, 1 MiB of raw non-JSON
 * bytes, 700 headers, and ~2,000 query parameters (the route's own among them, 1,000 characters each).
 * Each goes once without credentials and once with them: the API key under /api, an admin session
 * (cookie + X-CSRF-Token) under /admin/api, an affiliate's portal session under /portal/api, a
 * mailbox's token and a mail.tm token on their routes, and on a webhook both a made-up signature and its
 * provider's real one over the very bytes.
 *
 * Every answer must be the route's success or a contract error (< 500, `success: false`, `error.code`);
 * without credentials, a hostile body gets the 401 any request without them gets, never a 400 that says
 * it was parsed first. The service's own event-loop delay (prom-client's max, read from /metrics before
 * and after each operation's requests) must stay under 100 ms; the worst operations are printed, with
 * the CPU time the service's main thread used beside each.
 */
const GUARD_MS = 100;
/** How often a shape of a slow operation is sent again before its delay counts (see the sweep). */
const RETRIES = 3;
/** Requests of one operation in flight at once. */
const CONCURRENCY = 3;
const KEY = 'sweep_api_key_0123456789abcdef01';
const ADMIN_PASSWORD = 'sweep-admin-password';
const PORTAL_PASSWORD = 'sweep-portal-password-1';
const METRICS_TOKEN = 'sweep-metrics-token-0123456789ab';
const DOMAIN = 'svc.test';
/** Under the default body limit (1 MiB), so each shape reaches the route instead of its 413. */
const BODY_BYTES = 1024 * 1024 - 1024;
/**
 * These change the credentials the sweep holds (a new API key, an ended session): they go last, in this
 * order, so every other operation is swept while the credentials still work.
 */
const LAST = ['post /admin/api/api-key/rotate', 'post /portal/api/logout', 'post /admin/api/logout'];

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly security: string[];
  readonly query: string[];
  readonly bodyFields: string[] | undefined;
}

interface Answer {
  readonly status: number;
  readonly type: string;
  readonly text: string;
}

const NONE: Record<string, string> = {};

/** The webhook secrets the sweep sets, so its "with credentials" requests to /integrations/* are signed. */
const WEBHOOK_SECRETS = { stripe: 'whsec_sweep_0123456789abcdef', paddle: 'pdl_ntfset_sweep_0123456789', lemonsqueezy: 'ls_sweep_0123456789abcdef' } as const;

/** Each provider's signature over the raw bytes, made as the provider makes it (integrations.test.ts). */
function signed(provider: string, body: Buffer, forged = false): Record<string, string> | undefined {
  const at = Math.floor(Date.now() / 1000);
  // a made-up signature has the right form and another secret
  const mac = (secret: string, prefix: string) => createHmac('sha256', forged ? 'made-up' : secret).update(prefix).update(body).digest('hex');
  if (provider === 'stripe') return { 'stripe-signature': `t=${at},v1=${mac(WEBHOOK_SECRETS.stripe, `${at}.`)}` };
  if (provider === 'paddle') return { 'paddle-signature': `ts=${at};h1=${mac(WEBHOOK_SECRETS.paddle, `${at}:`)}` };
  if (provider === 'lemonsqueezy') return { 'x-signature': mac(WEBHOOK_SECRETS.lemonsqueezy, '') };
  return undefined;
}

interface Shape {
  readonly name: string;
  /** A body no route admits (wide, deep, raw, long strings), as opposed to the plain `{}` of the head shapes. */
  readonly hostileBody?: boolean;
  readonly headers?: Record<string, string>;
  readonly query?: string;
  readonly body?: Buffer;
  readonly type?: string;
}

const wideJson = (() => {
  const parts: string[] = [];
  let size = 2;
  for (let i = 0; size < BODY_BYTES - 32; i++) {
    const member = `"k${i}":${i % 10}`;
    parts.push(member);
    size += member.length + 1;
  }
  return Buffer.from(`{${parts.join(',')}}`);
})();
const deepJson = Buffer.from(`${'['.repeat(BODY_BYTES / 2)}${']'.repeat(BODY_BYTES / 2)}`);
const rawBytes = (() => {
  const bytes = Buffer.alloc(BODY_BYTES);
  // a fixed pseudo-random fill (xorshift), so a failure repeats
  let x = 2463534242;
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes;
})();
const manyHeaders = Object.fromEntries(Array.from({ length: 700 }, (_, i) => [`x-s${i}`, 'v']));

function longStringBody(fields: readonly string[]): Buffer {
  const names = fields.length > 0 ? fields : ['text'];
  const each = Math.floor((BODY_BYTES - 64 * names.length) / names.length);
  // `a`s with an @ near the end: long enough for any pattern an email, URL or name check might try
  const value = `${'a'.repeat(each - 12)}@${'a'.repeat(5)}.test`;
  return Buffer.from(JSON.stringify(Object.fromEntries(names.map((n) => [n, value]))));
}

function manyQuery(names: readonly string[]): string {
  const own = names.map((n) => `${encodeURIComponent(n)}=${'x'.repeat(1000)}`);
  const junk = Array.from({ length: 2000 }, (_, i) => `q${i}=${i % 10}`);
  // within Node's 16 KB of request head (a longer URL is the 431 of app.ts's clientErrorHandler)
  let query = [...own, ...junk].join('&');
  if (query.length > 14_000) query = query.slice(0, 14_000).replace(/&[^&]*$/, '');
  return query;
}

function shapesFor(op: Operation): Shape[] {
  const json = 'application/json';
  // an empty object where a body is expected: the route's own answer to a request that is otherwise plain
  const plain = op.method === 'get' ? undefined : Buffer.from('{}');
  const timeout = op.query.includes('timeout') ? 'timeout=0' : '';
  const shapes: Shape[] = [
    { name: '700 headers', headers: manyHeaders, query: timeout, ...(plain ? { body: plain, type: json } : {}) },
    { name: '2,000 query parameters', query: manyQuery(op.query), ...(plain ? { body: plain, type: json } : {}) },
  ];
  if (op.method === 'get') return shapes;
  return [
    { name: 'wide JSON (1 MiB, many keys)', body: wideJson, type: json, hostileBody: true },
    { name: 'deep JSON', body: deepJson, type: json, hostileBody: true },
    { name: 'long strings', body: longStringBody(op.bodyFields ?? []), type: json, hostileBody: true },
    { name: 'raw bytes', body: rawBytes, type: json, hostileBody: true },
    ...shapes,
  ];
}

/** Plausible path values: real where the sweep made one (its mailbox, affiliate), else made up. */
function pathOf(path: string, values: Record<string, string>): string {
  return path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(values[name] ?? 'sweep_0001'));
}

/**
 * One request on its own connection, kept alive: an answer given before the upload ends (a 401 from an
 * onRequest hook) is followed by Node reading and dropping the rest of the body, where `Connection:
 * close` would have the service close the socket under the upload (EPIPE before the answer is read).
 */
function send(base: string, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Answer> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: method.toUpperCase(), headers: { connection: 'keep-alive', ...headers, ...(body ? { 'content-length': String(body.length) } : {}) }, agent: false, timeout: 60_000 },
      (res) => {
        const type = String(res.headers['content-type'] ?? '');
        if (type.startsWith('text/event-stream')) {
          // a stream that opened: its status is the answer
          req.destroy();
          resolve({ status: res.statusCode ?? 0, type, text: '' });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, type, text: Buffer.concat(chunks).toString('utf8') });
          req.destroy();
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('no answer within 60 s')));
    req.on('error', (err) => reject(err));
    req.end(body);
  });
}

/** Why an answer is not the route's success or a contract error, or undefined. */
function problemOf(path: string, answer: Answer): string | undefined {
  if (answer.status >= 500 || answer.status < 200) return `answered ${answer.status}: ${answer.text.slice(0, 300)}`;
  if (answer.status < 400) return undefined;
  if (!answer.type.startsWith('application/json')) return `answered ${answer.status} as ${answer.type || 'no type'}: ${answer.text.slice(0, 200)}`;
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.text);
  } catch {
    return `answered ${answer.status} with a body that is not JSON: ${answer.text.slice(0, 200)}`;
  }
  const body = parsed as { success?: unknown; jsonrpc?: unknown; error?: { code?: unknown; message?: unknown } };
  // MCP's transport answers in JSON-RPC 2.0 (docs/mcp.md): its error object is the protocol's own
  if (path === '/mcp' && body.jsonrpc === '2.0' && typeof body.error?.code === 'number' && typeof body.error.message === 'string') return undefined;
  if (body.success !== false || typeof body.error?.code !== 'string' || typeof body.error.message !== 'string') {
    return `answered ${answer.status} without the contract's error body: ${answer.text.slice(0, 300)}`;
  }
  return undefined;
}

describeEachDatabase('route sweep: every operation of /openapi.json, sent every hostile shape with and without credentials, answers its success or a contract error and holds the event loop under 100 ms (docs/architecture.md#every-route)', (dialect) => {
  let database: TestDatabase;
  let svc: SvcProcess | undefined;
  let base: string;
  let watch: LoopWatch | undefined;
  const credentials: Record<string, Record<string, string>> = {};
  const values: Record<string, string> = {};
  const killOnExit = () => svc?.child.kill('SIGKILL');

  async function json(method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown>; cookie: string }> {
    const res = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
    const cookie = (res.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, cookie };
  }

  beforeAll(async () => {
    database = await freshDatabase(dialect);
    svc = runSvc({
      DATABASE_URL: processDatabaseUrl(database),
      PORT: '0',
      SVC_API_KEY: KEY,
      SVC_ADMIN_PASSWORD: ADMIN_PASSWORD,
      SVC_METRICS_TOKEN: METRICS_TOKEN,
      SVC_MAIL_DOMAINS: DOMAIN,
    });
    process.once('exit', killOnExit);
    base = await started(svc);

    const key = { 'x-api-key': KEY };
    const admin = await json('POST', '/admin/api/login', { username: 'admin', password: ADMIN_PASSWORD });
    expect(admin.status, JSON.stringify(admin.body)).toBe(200);
    const adminHeaders = { cookie: admin.cookie, 'x-csrf-token': String(admin.body.csrf_token) };
    const affiliate = await json('POST', '/api/affiliates', { ref_code: 'sweep' }, key);
    expect(affiliate.status, JSON.stringify(affiliate.body)).toBe(201);
    const invite = await json('POST', '/admin/api/affiliates/sweep/invite', {}, adminHeaders);
    expect(invite.status, JSON.stringify(invite.body)).toBe(200);
    const token = String(invite.body.invite_url).split('#token=')[1];
    const portal = await json('POST', '/portal/api/accept-invite', { token, password: PORTAL_PASSWORD });
    expect(portal.status, JSON.stringify(portal.body)).toBe(200);
    const mailbox = await json('POST', '/api/mailboxes', { name: 'sweep', domain: DOMAIN }, key);
    expect(mailbox.status, JSON.stringify(mailbox.body)).toBe(201);
    const mailtm = await json('POST', '/mailtm/accounts', { address: `sweep-mt@${DOMAIN}`, password: PORTAL_PASSWORD });
    expect(mailtm.status, JSON.stringify(mailtm.body)).toBe(201);
    const mailtmToken = await json('POST', '/mailtm/token', { address: `sweep-mt@${DOMAIN}`, password: PORTAL_PASSWORD });
    expect(mailtmToken.status, JSON.stringify(mailtmToken.body)).toBe(200);

    // MCP takes the key as a Bearer token (docs/mcp.md), the rest of /api as X-API-Key
    credentials.apiKey = { ...key, authorization: `Bearer ${KEY}` };
    credentials.adminSession = adminHeaders;
    credentials.portalSession = { cookie: portal.cookie, 'x-csrf-token': String(portal.body.csrf_token) };
    credentials.mailboxToken = { authorization: `Bearer ${String((mailbox.body.mailbox as { token: string }).token)}` };
    credentials.mailtmToken = { authorization: `Bearer ${String(mailtmToken.body.token)}` };
    credentials.metricsToken = { authorization: `Bearer ${METRICS_TOKEN}` };
    const secrets = await json(
      'PATCH',
      '/admin/api/settings',
      { stripe_webhook_secret: WEBHOOK_SECRETS.stripe, paddle_webhook_secret: WEBHOOK_SECRETS.paddle, lemonsqueezy_webhook_secret: WEBHOOK_SECRETS.lemonsqueezy },
      adminHeaders,
    );
    expect(secrets.status, JSON.stringify(secrets.body)).toBe(200);
    Object.assign(values, { address: `sweep@${DOMAIN}`, ref_code: 'sweep', id: 'sweep_0001', domain: 'nowhere.test', username: 'sweep-nobody', order_id: 'sweep-order' });

    watch = new LoopWatch(base, METRICS_TOKEN, svc.child.pid);
    await watch.loopLagMs();
  }, 120_000);

  afterAll(async () => {
    await watch?.stop();
    if (svc) {
      const forced = setTimeout(() => svc?.child.kill('SIGKILL'), 20_000);
      await svc.stop();
      clearTimeout(forced);
    }
    process.off('exit', killOnExit);
    await database?.drop();
  });

  async function operations(): Promise<Operation[]> {
    const res = await fetch(`${base}/openapi.json`);
    const doc = (await res.json()) as {
      paths: Record<string, Record<string, { security?: Record<string, unknown>[]; parameters?: { name: string; in: string }[]; requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } }>>;
    };
    const ops: Operation[] = [];
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const schema = op.requestBody?.content['application/json']?.schema;
        ops.push({
          method,
          path,
          security: (op.security ?? []).flatMap((s) => Object.keys(s)),
          query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
          bodyFields: schema ? Object.keys(schema.properties ?? {}) : undefined,
        });
      }
    }
    const rank = (op: Operation) => LAST.indexOf(`${op.method} ${op.path}`);
    return ops.sort((a, b) => rank(a) - rank(b));
  }

  it('refuses a webhook body that is not UTF-8 as invalid_signature, even signed over its bytes, and records nothing', async () => {
    for (const provider of ['stripe', 'paddle', 'lemonsqueezy']) {
      for (const headers of [NONE, signed(provider, rawBytes, true) ?? NONE, signed(provider, rawBytes) ?? NONE]) {
        const answer = await send(base, 'post', `/integrations/${provider}`, { 'content-type': 'application/json', ...headers }, rawBytes);
        expect([answer.status, (JSON.parse(answer.text) as { error: { code: string } }).error.code], `${provider} ${JSON.stringify(headers)}`).toEqual([400, 'invalid_signature']);
      }
    }
    const events = await fetch(`${base}/admin/api/integrations/events`, { headers: credentials.adminSession });
    expect(await events.json()).toEqual({ success: true, items: [], next_cursor: null });
  });

  it('sweeps every operation', async () => {
    const ops = await operations();
    // the description lists the routes of every mount (a broken one would make the sweep vacuous)
    expect(ops.length).toBeGreaterThan(100);
    for (const mount of ['/api/', '/admin/api/', '/portal/api/', '/mailtm/', '/integrations/', '/mailboxes']) expect(ops.some((op) => op.path.startsWith(mount)), mount).toBe(true);

    const problems: string[] = [];
    let sent = 0;
    async function sendShapes(op: Operation, shapes: readonly Shape[]): Promise<void> {
      const label = `${op.method.toUpperCase()} ${op.path}`;
      const path = pathOf(op.path, values);
      const modes: [string, Record<string, string>][] = [['without credentials', NONE]];
      const given = op.security.map((s) => credentials[s]).find((c) => c !== undefined);
      if (given) modes.push(['with credentials', given]);
      const provider = /^\/integrations\/(\w+)$/.exec(op.path)?.[1];
      const requests: { shape: Shape; mode: string; headers: Record<string, string> }[] = [];
      for (const shape of shapes) {
        // a webhook's credentials are its provider's signature over these very bytes
        const body = shape.body ?? Buffer.alloc(0);
        const signatures: [string, Record<string, string>][] = provider
          ? [
              ['made-up signature', signed(provider, body, true) ?? NONE],
              ['signed', signed(provider, body) ?? NONE],
            ]
          : [];
        for (const [mode, headers] of [...modes, ...signatures]) requests.push({ shape, mode, headers });
      }
      // CONCURRENCY at a time: the delay bound is per request, and the sweep stays within its time
      const next = async (): Promise<void> => {
        for (let r = requests.shift(); r; r = requests.shift()) await sendOne(op, label, path, r.shape, r.mode, r.headers);
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, next));
    }

    async function sendOne(op: Operation, label: string, path: string, shape: Shape, mode: string, headers: Record<string, string>): Promise<void> {
      const url = shape.query ? `${path}?${shape.query}` : path;
      // what an MCP client accepts (the others ignore it): the route's own answer, not a 406
      const all = { accept: 'application/json, text/event-stream', ...shape.headers, ...headers, ...(shape.type ? { 'content-type': shape.type } : {}) };
      sent++;
      try {
        const answer = await send(base, op.method, url, all, shape.body);
        const problem = problemOf(op.path, answer);
        if (problem) problems.push(`${label}, ${shape.name}, ${mode}: ${problem}`);
        // Before its credentials hold, a route does nothing with a body but read it: the hostile one
        // is answered as any other unauthenticated request, never refused for what it holds (400, 415).
        else if (shape.hostileBody && op.security.length > 0 && headers === NONE && ![401, 403, 404].includes(answer.status)) {
          problems.push(`${label}, ${shape.name}, ${mode}: answered ${answer.status} before its credentials were checked: ${answer.text.slice(0, 200)}`);
        }
      } catch (err) {
        problems.push(`${label}, ${shape.name}, ${mode}: no answer (${(err as Error).message})`);
      }
    }

    // One window per operation. On this shared machine a window can be slow because the service was not
    // scheduled; a stall of the service's own is there every time: a slow operation's shapes are sent
    // again one window each, up to RETRIES times, and a shape fails only when every try was slow.
    const windows: LoopWindow[] = [];
    const stalls: LoopWindow[] = [];
    const retried: LoopWindow[] = [];
    for (const op of ops) {
      const label = `${op.method.toUpperCase()} ${op.path}`;
      const shapes = shapesFor(op);
      const { window } = await watch!.watch(label, () => sendShapes(op, shapes));
      windows.push(window);
      if (window.loopMs < GUARD_MS) continue;
      for (const shape of shapes) {
        let best: LoopWindow | undefined;
        for (let i = 0; i < RETRIES && (best === undefined || best.loopMs >= GUARD_MS); i++) {
          const again = (await watch!.watch(`${label}, ${shape.name}`, () => sendShapes(op, [shape]))).window;
          retried.push(again);
          if (best === undefined || again.loopMs < best.loopMs) best = again;
        }
        if (best && best.loopMs >= GUARD_MS) stalls.push(best);
      }
    }
    const worst = [...windows].sort((a, b) => b.loopMs - a.loopMs);
    console.log(
      `[${dialect}] route sweep: ${ops.length} operations, ${sent} requests; the slowest operations:\n${describeWindows(worst.slice(0, 10))}` +
        (retried.length > 0 ? `\n${retried.length} shape windows sent again, the slowest:\n${describeWindows(retried.slice().sort((a, b) => b.loopMs - a.loopMs).slice(0, 5))}` : ''),
    );
    if (stalls.length > 0) console.log(`[${dialect}] slow on every try:\n${describeWindows(stalls)}`);
    expect(problems, problems.join('\n')).toEqual([]);
    expect(stalls.length, `[${dialect}] event-loop delay of ${GUARD_MS} ms or more on every try of\n${describeWindows(stalls)}`).toBe(0);
  }, 600_000);
});
