import { Agent, request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { NETWORK_CLICK_PARAMS } from '../../src/loop/clicks/click.service.js';
import { registeredRoutes } from '../../src/platform/http/app.js';
import { errorBody } from '../../src/platform/http/openapi.js';
import { WEB_PAGES } from '../../src/platform/web/web.routes.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { addAffiliate, addMailbox, earn } from '../helpers/ledger-fixtures.js';
import { type PortalClient, portalSignIn } from '../helpers/portal.js';
import { type AdminClient, startTestService, TEST_ADMIN_PASSWORD, type TestService } from '../helpers/service.js';

/**
 * Seeded fuzzing of EVERY registered route (CONTRACT §11, issue 11 item 6): public routes, /api with the
 * key and /admin/api with a session and CSRF token, over a real socket. Each request is hostile in some
 * way (wrong types, huge or NUL-carrying strings, deep nesting, invalid UTF-8, bad percent-encoding,
 * odd content types, huge/negative/float numbers, arrays for objects, long or odd path segments,
 * repeated query keys, junk X-Forwarded-For). The property: never a 5xx, and every 4xx carries the
 * contract's error body. The route list comes from the app at run time; a route the fuzzer has no
 * inputs for fails the run (describe it in /openapi.json, or in UNDOCUMENTED below for admin-only ones).
 *
 * SVC_FUZZ_SEED pins the seed (printed at the start of each run); SVC_FUZZ_RUNS sets the requests per
 * route (default 8, so the whole run stays well under a minute per database); SVC_FUZZ_ROUTE keeps only
 * the routes whose "METHOD /url" contains it.
 */
const SEED = process.env.SVC_FUZZ_SEED ? Number(process.env.SVC_FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const RUNS = process.env.SVC_FUZZ_RUNS ? Number(process.env.SVC_FUZZ_RUNS) : 8;
/** Only routes whose `METHOD /url` contains this (to repeat one failing route quickly). */
const ONLY = process.env.SVC_FUZZ_ROUTE;
const METRICS_TOKEN = 'fuzz-metrics-token-0123456789';

/** What the fuzzer knows about a route's inputs besides its path parameters (read from the URL pattern). */
interface Inputs {
  readonly query: readonly string[];
  /** Field names of a JSON object body; null when the route takes no body (it still gets hostile ones). */
  readonly body: readonly string[] | null;
}

const NONE: Inputs = { query: [], body: null };

/** Routes /openapi.json does not describe: web pages, catch-alls, the bare /go. */
const UNDOCUMENTED: Record<string, Inputs> = {
  'GET /go': { query: [...NETWORK_CLICK_PARAMS], body: null },
  'GET /go/*': { query: [...NETWORK_CLICK_PARAMS], body: null },
  'GET /assets/*': NONE,
  ...Object.fromEntries(WEB_PAGES.map((p) => [`GET ${p}`, NONE])),
  // the 404 of /api behind the key, for every method
  ...Object.fromEntries(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'QUERY', 'TRACE', 'SEARCH', 'PROPFIND'].map((m) => [`${m} /api/*`, { query: ['x'], body: [] }])),
  // the 404 of /portal/api behind the session
  ...Object.fromEntries(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'QUERY', 'TRACE', 'SEARCH', 'PROPFIND'].map((m) => [`${m} /portal/api/*`, { query: ['x'], body: [] }])),
};

interface Doc {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> } }>>;
}

/** Inputs of every documented operation, by `METHOD /path/:param`; /api operations also under /admin/api. */
function documentedInputs(doc: Doc): Map<string, Inputs> {
  const out = new Map<string, Inputs>();
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const url = path.replace(/\{([^}]+)\}/g, ':$1');
      const schema = op.requestBody?.content['application/json']?.schema;
      const inputs: Inputs = {
        query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
        body: schema ? Object.keys(schema.properties ?? {}) : null,
      };
      out.set(`${method.toUpperCase()} ${url}`, inputs);
      if (url.startsWith('/api/')) out.set(`${method.toUpperCase()} /admin${url}`, inputs);
    }
  }
  return out;
}

// ---- hostile values ---------------------------------------------------------------------------

const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff\ud800',
    '\u202e\u0301',
    '\r\nX-Injected: 1',
    '\t',
    '../../../etc/passwd',
    "' OR 1=1 --",
    '<script>alert(1)</script>',
    `$\{jndi:ldap://x}`, // the text ${jndi:…}, not a placeholder
    '__proto__',
    'constructor',
    'NaN',
    'Infinity',
    '-0',
    '1e309',
    '0x10',
    '%00',
    '%',
    'null',
    '[]',
    '{}',
    'alpha',
    'https://evil.example/\r\n',
    'javascript:alert(1)',
    '😀'.repeat(100),
  ),
  fc.integer({ min: 100, max: 20_000 }).map((n) => 'x'.repeat(n)),
  fc.constant('y'.repeat(300_000)),
);

const hostileNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, -1, 1e-7, 0.001, 1.005, 2 ** 53 + 1, -(2 ** 63), 1e308, -1e308, 1_000_000_000.01, 999_999_999_999, 5e-324),
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
  { weight: 1, arbitrary: fc.array(fc.oneof(hostileString, hostileNumber), { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(hostileString, hostileNumber), { maxKeys: 4 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 31 }).map((d) => JSON.parse(nested(d))) },
);

/** Values that pass validation, by field name, so that one hostile field among valid ones reaches deeper code. */
function validFor(name: string, f: Fixtures): fc.Arbitrary<unknown> {
  const table: Record<string, fc.Arbitrary<unknown>> = {
    ref_code: fc.constantFrom('alpha', 'beta', 'fuzz_new'),
    ref: fc.constantFrom('alpha', 'beta', null),
    order_id: fc.constantFrom(f.orderId, 'fuzz-order'),
    email: fc.constantFrom('alpha@svc.test', 'fuzz@svc.test'),
    amount: fc.constantFrom(0.01, 1, 12.34),
    product: fc.constant('product'),
    name: fc.constantFrom('fuzzbox', 'Name', null),
    domain: fc.constantFrom('svc.test', null),
    status: fc.constantFrom('pending', 'approved', 'paid', 'void', 'created', 'partially_refunded', 'refunded', 'requested', 'rejected', 'active', 'disabled', 'delivered', 'failed'),
    limit: fc.constantFrom('1', '50', '500'),
    cursor: fc.constantFrom(...f.cursors),
    commission_rate: fc.constantFrom(0, 10, 12.5, null),
    cookie_lifetime_days: fc.constantFrom(1, 30),
    mailbox_ttl_hours: fc.constantFrom(1, 24),
    landing_url: fc.constantFrom('https://shop.example/', 'http://svc.test.local/'),
    webhook_url: fc.constantFrom('http://127.0.0.1:9/hook', null, ''),
    webhook_secret: fc.constant('whsec_fuzzfuzzfuzzfuzzfuzz'),
    username: fc.constantFrom('admin', 'nobody'),
    password: fc.constantFrom('wrong', 'x'),
    to: fc.constantFrom(f.mailbox.address, `Name <${f.mailbox.address}>`),
    from: fc.constantFrom('a@b.example', '"Name" <a@b.example>'),
    subject: fc.constant('subject'),
    text: fc.constant('text'),
    html: fc.constant('<p>hi</p>'),
    attachments: fc.constant([{ filename: 'a.txt', content_type: 'text/plain', content_base64: 'aGk=' }]),
    from_name: fc.constant('Name'),
    from_date: fc.constant('2026-01-01'),
    to_date: fc.constant('2026-01-31'),
    q: fc.constant('alpha'),
    event: fc.constantFrom('order.paid', 'webhook.test'),
    target: fc.constantFrom('webhook', 'adapter:logging'),
    token: fc.constant(f.mailbox.token),
    rate: fc.constantFrom(5, 12.5, null),
    flat: fc.constantFrom(1, 2.5, null),
    duration_days: fc.constantFrom(1, 30, null),
    max_orders: fc.constantFrom(1, 3, null),
    holding_days: fc.constantFrom(0, 14, null),
    kind: fc.constantFrom('sale', 'clawback'),
  };
  if (name === 'from' || name === 'to') return fc.oneof(table[name]!, fc.constantFrom('2026-01-01', '2026-01-31'));
  return Object.hasOwn(table, name) ? (table[name] as fc.Arbitrary<unknown>) : fc.string({ maxLength: 20 });
}

/** Percent-encodes any string, lone surrogates included (pct throws on those). */
function pct(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += /[A-Za-z0-9_.~-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

// ---- requests -----------------------------------------------------------------------------------

interface Fixtures {
  readonly mailbox: { address: string; token: string };
  readonly orderId: string;
  readonly commissionIds: string[];
  readonly withdrawalIds: string[];
  readonly deliveryIds: string[];
  readonly messageId: string;
  readonly attachmentId: string;
  readonly cursors: string[];
  /** A token of the mail.tm-compatible API (its account is another mailbox than `mailbox`). */
  readonly mailtmToken: string;
}

interface Route {
  readonly method: string;
  readonly url: string;
}

interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: Buffer;
  /** Which credentials to add when sending (read fresh then: the API key may have been rotated). */
  readonly auth: 'none' | 'wrong' | 'right';
}

function validParam(name: string, route: Route, f: Fixtures): fc.Arbitrary<string> {
  if (name === 'ref_code') return fc.constantFrom('alpha', 'beta', 'ALPHA');
  if (name === 'order_id') return fc.constant(f.orderId);
  if (name === 'address') return fc.constant(f.mailbox.address);
  if (name === 'attachmentId') return fc.constant(f.attachmentId);
  if (name === 'id') {
    if (route.url.includes('/commissions/')) return fc.constantFrom(...f.commissionIds);
    if (route.url.includes('/withdrawals/')) return fc.constantFrom(...f.withdrawalIds);
    if (route.url.includes('/deliveries/')) return fc.constantFrom(...f.deliveryIds);
    return fc.constant(f.messageId);
  }
  if (name === '*') return fc.constantFrom('alpha', 'assets/x.js', 'index-abc.js', 'a/b/c', 'alpha/');
  return fc.string({ maxLength: 10 });
}

/** A path segment as sent: valid, or hostile (already percent-encoded, or deliberately not). */
function paramArb(name: string, route: Route, f: Fixtures): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: validParam(name, route, f).map(pct) },
    { weight: 2, arbitrary: hostileString.map((s) => pct(s.slice(0, 2000)).replace(/%2F/g, '/')) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('%00', '%E0%A4%A', '%zz', '%', '%C3%28', '%ED%A0%80', '..', '%2e%2e', '%2F%2F', 'x'.repeat(999), 'x'.repeat(1001), '.', '~', '%25', '+', "'"),
    },
  );
}

function queryArb(names: readonly string[], f: Fixtures): fc.Arbitrary<string> {
  const all = [...names, 'limit', 'cursor', 'unknown', '__proto__', 'token'];
  const pair = fc.tuple(
    fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...all) }, { weight: 1, arbitrary: hostileString.map((s) => s.slice(0, 50)) }),
    fc.oneof({ weight: 1, arbitrary: fc.constant(undefined) }, { weight: 3, arbitrary: fc.oneof(hostileString.map((s) => s.slice(0, 3000)), hostileNumber.map(String)) }),
  );
  const encoded = fc.array(pair, { maxLength: 5 }).chain((pairs) =>
    fc
      .array(
        fc.constantFrom(...all).chain((n) => validFor(n, f).map((v) => `${pct(n)}=${pct(String(v ?? ''))}`)),
        { maxLength: 3 },
      )
      .map((valid) => [...valid, ...pairs.map(([k, v]) => (v === undefined ? pct(k) : `${pct(k)}=${pct(String(v))}`))].join('&')),
  );
  return fc.oneof(
    { weight: 5, arbitrary: encoded },
    // repeated keys, arrays, bad percent-encoding, nothing after the ?
    { weight: 1, arbitrary: fc.constantFrom('limit=1&limit=2', 'cursor=a&cursor=b', 'status[]=paid', 'limit=%zz', 'q=%E0%A4%A', 'a=%', '&&&', '=', 'limit=-1', 'limit=1.5', 'limit=1e309', 'limit=NaN', 'limit=0x10', '%00=%00') },
  );
}

const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'APPLICATION/JSON',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/merge-patch+json',
  'application/json, text/plain',
  '',
];

interface FuzzBody {
  readonly body?: Buffer;
  readonly contentType?: string;
}

function bodyArb(fields: readonly string[] | null, f: Fixtures): fc.Arbitrary<FuzzBody> {
  const known = fields ?? [];
  // Every known field with a valid value, then up to two made hostile, maybe one dropped, maybe an
  // unknown key: most requests get past the first check and reach the code behind it.
  const objectBody = fc
    .record({
      hostile: fc.oneof(fc.constant<string[]>([]), fc.subarray([...known], { maxLength: Math.min(2, known.length) })),
      dropped: fc.oneof({ weight: 3, arbitrary: fc.constant<string[]>([]) }, { weight: 1, arbitrary: fc.subarray([...known], { maxLength: Math.min(1, known.length) }) }),
      extra: fc.option(fc.tuple(hostileString.map((s) => s.slice(0, 100)), hostileValue), { nil: undefined, freq: 4 }),
    })
    .chain(({ hostile, dropped, extra }) =>
      fc
        .tuple(...known.map((name) => (hostile.includes(name) ? hostileValue : validFor(name, f)).map((v) => [name, v] as const)))
        .map((entries) => {
          const obj: Record<string, unknown> = {};
          for (const [k, v] of entries) if (!dropped.includes(k)) obj[k] = v;
          if (extra) obj[extra[0]] = extra[1];
          return JSON.stringify(obj);
        }),
    );
  const rawText = fc.constantFrom(
    '',
    ' ',
    'null',
    '"string"',
    '42',
    '[]',
    '[{}]',
    'true',
    '{',
    '{"a":',
    '{"a":1,"a":2}',
    '\ufeff{}',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"a":"\\u0000"}',
    '{"\\u0000":1}',
    '{"a":"\\ud800"}',
    nested(33),
    nested(10_000),
    `{"a":${'{"a":'.repeat(40)}1${'}'.repeat(40)}}`,
    `[${'1,'.repeat(100_000)}1]`,
    `{"x":"${'z'.repeat(1_100_000)}"}`,
    'a=1&b=2',
    '<xml/>',
  );
  const invalidUtf8 = fc.constantFrom(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]), Buffer.from([0xff, 0xfe, 0x7b, 0x7d]), Buffer.from([0xed, 0xa0, 0x80]));
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant<FuzzBody>({}) },
    { weight: 5, arbitrary: fc.tuple(objectBody, fc.constantFrom(...CONTENT_TYPES.slice(0, 2))).map(([b, ct]) => ({ body: Buffer.from(b), contentType: ct })) },
    { weight: 2, arbitrary: hostileValue.map((v) => ({ body: Buffer.from(JSON.stringify(v) ?? 'null'), contentType: 'application/json' })) },
    { weight: 2, arbitrary: fc.tuple(rawText, fc.constantFrom(...CONTENT_TYPES)).map(([b, ct]) => ({ body: Buffer.from(b), contentType: ct })) },
    { weight: 1, arbitrary: fc.tuple(invalidUtf8, fc.constantFrom(...CONTENT_TYPES)).map(([b, ct]) => ({ body: b, contentType: ct })) },
  );
}

const FORWARDED_FOR = fc.oneof(
  { weight: 5, arbitrary: fc.ipV4() },
  { weight: 1, arbitrary: fc.ipV6() },
  { weight: 1, arbitrary: fc.constantFrom('unknown', 'garbage, 1.2.3.4', '', ' , ,', '999.1.1.1', `${'10.0.0.1, '.repeat(200)}10.0.0.2`, '::ffff:127.0.0.1', '[::1]:80') },
);

/** Attribution and session cookies as a browser (or a forger) might send them. */
const COOKIES = fc
  .array(
    fc.tuple(
      fc.constantFrom('svc_ref', 'svc_click', 'svc_session', 'other'),
      fc.oneof(fc.constantFrom('alpha', '123', '1e309', '-1', '999999999999999999', '%00', '%E0%A4%A', ''), hostileString.map((v) => pct(v.slice(0, 500)))),
    ),
    { maxLength: 3 },
  )
  .map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('; '));

function requestArb(route: Route, inputs: Inputs, f: Fixtures): fc.Arbitrary<FuzzRequest> {
  const names = [...route.url.matchAll(/:(\w+)|\*/g)].map((m) => m[1] ?? '*');
  const path = fc.tuple(...names.map((n) => paramArb(n, route, f))).map((values) => {
    let i = 0;
    return route.url.replace(/:(\w+)|\*/g, () => values[i++] as string);
  });
  const takesBody = !['GET', 'HEAD', 'OPTIONS', 'TRACE'].includes(route.method);
  return fc
    .record({
      path,
      query: fc.option(queryArb(inputs.query, f), { nil: undefined, freq: 3 }),
      body: takesBody ? bodyArb(inputs.body, f) : fc.constant<FuzzBody>({}),
      auth: fc.constantFrom<FuzzRequest['auth']>('right', 'right', 'right', 'right', 'right', 'wrong', 'none'),
      forwardedFor: FORWARDED_FOR,
      cookie: fc.option(COOKIES, { freq: 3 }),
      idempotencyKey: fc.option(fc.oneof(fc.uuid(), fc.constantFrom('', ' ', 'x'.repeat(300), 'é', 'key with spaces')), { freq: 3 }),
    })
    .map(({ path: p, query, body, auth, forwardedFor, cookie, idempotencyKey }) => {
      const headers: Record<string, string> = { 'x-forwarded-for': forwardedFor };
      if (cookie !== null && cookie !== '') headers.cookie = cookie;
      if (body.contentType) headers['content-type'] = body.contentType;
      if (idempotencyKey !== null) headers['idempotency-key'] = idempotencyKey;
      return { method: route.method, path: shortWait(route, query === undefined ? p : `${p}?${query}`), headers, body: body.body, auth };
    });
}

/** A long poll answers when its timeout passes: the fuzz keeps that within a second (any other timeout it drew is replaced). */
function shortWait(route: Route, path: string): string {
  if (!route.url.endsWith('/messages/wait')) return path;
  const [p, q = ''] = path.split('?');
  const kept = q.split('&').filter((pair) => pair !== '' && !pair.startsWith('timeout='));
  return `${p}?${[...kept, 'timeout=0.5'].join('&')}`;
}

// ---- sending ------------------------------------------------------------------------------------

interface Answer {
  readonly status: number;
  readonly contentType: string;
  readonly body: string;
}

/** The request's own headers over the credentials, except that cookies are joined (a session survives). */
function mergeHeaders(credentials: Record<string, string>, own: Record<string, string>): Record<string, string> {
  const merged = { ...credentials, ...own };
  if (credentials.cookie && own.cookie) merged.cookie = `${own.cookie}; ${credentials.cookie}`;
  return merged;
}

function send(base: URL, agent: Agent, req: FuzzRequest, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const r = httpRequest(
      { host: base.hostname, port: base.port, method: req.method, path: req.path, headers: mergeHeaders(headers, req.headers), agent },
      (res) => {
        const contentType = String(res.headers['content-type'] ?? '');
        // an event stream never ends: its status and type are the answer
        if (contentType.startsWith('text/event-stream')) {
          res.destroy();
          return resolve({ status: res.statusCode ?? 0, contentType, body: '' });
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      },
    );
    r.setTimeout(30_000, () => r.destroy(new Error('no answer within 30 s')));
    r.on('error', reject);
    r.end(req.body);
  });
}

/** Why an answer breaks the contract (CONTRACT §1, §11), or undefined. */
function violation(req: FuzzRequest, a: Answer): string | undefined {
  if (a.status >= 500) return `answered ${a.status}: ${a.body.slice(0, 300)}`;
  if (a.status < 400 || req.method === 'HEAD') return undefined;
  if (!a.contentType.startsWith('application/json')) return `answered ${a.status} as ${a.contentType || 'no content type'}`;
  let json: unknown;
  try {
    json = JSON.parse(a.body);
  } catch {
    return `answered ${a.status} with a body that is not JSON: ${a.body.slice(0, 200)}`;
  }
  const parsed = errorBody.safeParse(json);
  if (!parsed.success) return `answered ${a.status} without the contract's error body: ${a.body.slice(0, 300)}`;
  if (/node_modules|\/src\/|\.ts:\d+|\bat \w+ \(/.test(parsed.data.error.message)) return `leaks internals: ${parsed.data.error.message.slice(0, 200)}`;
  return undefined;
}

// ---- the run ------------------------------------------------------------------------------------

describeEachDatabase('fuzz: hostile input to every route (CONTRACT §11)', (dialect) => {
  let t: TestService;
  let base: URL;
  let admin: AdminClient;
  let portal: PortalClient;
  let fixtures: Fixtures;
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });

  beforeAll(async () => {
    t = await startTestService(dialect, { env: { SVC_TRUST_PROXY: 'loopback', SVC_METRICS_TOKEN: METRICS_TOKEN } });
    base = new URL(await t.service.start());
    admin = await t.admin();
    const commissionIds: string[] = [];
    const withdrawalIds: string[] = [];
    for (const code of ['alpha', 'beta']) {
      await addAffiliate(t, code);
      await addMailbox(t, `${code}@svc.test`, code);
      commissionIds.push(await earn(t, `order-${code}`, `${code}@svc.test`, 100));
      withdrawalIds.push((await t.api('POST', '/api/withdrawals', { ref_code: code, amount: 1 })).json().withdrawal.id);
    }
    await addAffiliate(t, 'portalfuzz');
    portal = await portalSignIn(t, 'portalfuzz');
    const created = await t.api('POST', '/api/mailboxes', { name: 'fuzzbox' });
    const mailbox = { address: created.json().mailbox.address, token: created.json().mailbox.token };
    const mail = await t.api('POST', '/api/inbound', {
      to: mailbox.address,
      subject: 'hello',
      html: '<p>hi</p>',
      attachments: [{ filename: 'a.txt', content_type: 'text/plain', content_base64: 'aGk=' }],
    });
    const messageId = mail.json().message.id;
    const read = await t.api('GET', `/api/mailboxes/${mailbox.address}/messages/${messageId}`);
    const mailtmAccount = { address: 'fuzz-mailtm@svc.test', password: 'fuzz-password' };
    await t.request('POST', '/mailtm/accounts', mailtmAccount);
    const mailtmToken = (await t.request('POST', '/mailtm/token', mailtmAccount)).json().token as string;
    await admin.call('PATCH', '/admin/api/settings', { webhook_url: 'http://127.0.0.1:9/hook' });
    const test = await admin.call('POST', '/admin/api/webhooks/test');
    const cursors = [
      (await t.api('GET', '/api/orders?limit=1')).json().next_cursor,
      (await t.api('GET', '/api/affiliates?limit=1')).json().next_cursor,
      'not-a-cursor',
    ];
    fixtures = {
      mailbox,
      orderId: 'order-alpha',
      commissionIds,
      withdrawalIds,
      deliveryIds: [test.json().delivery.id],
      messageId,
      attachmentId: read.json().message.attachments[0].id,
      cursors,
      mailtmToken,
    };
    process.stdout.write(`\nfuzz [${dialect}]: seed ${SEED}, ${RUNS} requests per route (reproduce: SVC_FUZZ_SEED=${SEED} npx vitest run test/integration/fuzz.test.ts)\n`);
  });
  afterAll(async () => {
    agent.destroy();
    await t.close();
  });

  it('has inputs for every registered route', async () => {
    const doc = (await t.request('GET', '/openapi.json')).json() as Doc;
    const known = documentedInputs(doc);
    const unknown = registeredRoutes(t.service.app)
      .map((r) => `${r.method === 'HEAD' ? 'GET' : r.method} ${r.url}`)
      .filter((key) => !known.has(key) && !(key in UNDOCUMENTED));
    expect(unknown, 'the fuzzer cannot build inputs for these routes: describe them in /openapi.json or add them to UNDOCUMENTED').toEqual([]);
  });

  it('never answers 5xx, and every 4xx has the contract error body', { timeout: 240_000 }, async () => {
    const doc = (await t.request('GET', '/openapi.json')).json() as Doc;
    const known = documentedInputs(doc);
    const routes = registeredRoutes(t.service.app);
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    let sent = 0;
    for (const [index, route] of routes.entries()) {
      const key = `${route.method === 'HEAD' ? 'GET' : route.method} ${route.url}`;
      const inputs = known.get(key) ?? UNDOCUMENTED[key];
      if (!inputs) continue; // reported by the test above
      if (ONLY && !`${route.method} ${route.url}`.includes(ONLY)) continue;
      try {
        await fc.assert(
          fc.asyncProperty(requestArb(route, inputs, fixtures), async (req) => {
            sent++;
            const headers = await credentials(route, req.auth);
            const answer = await send(base, agent, req, headers);
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
            const problem = violation(req, answer);
            if (problem) throw new Error(`${req.method} ${req.path.slice(0, 300)} (auth ${req.auth}, content-type ${req.headers['content-type'] ?? '-'}): ${problem}`);
          }),
          // one seed per route, derived from the run's seed: a failing route reproduces on its own
          { seed: SEED + index, numRuns: RUNS, endOnFailure: true },
        );
      } catch (err) {
        // fast-check's report: the counterexample, its seed and path, and the error it raised
        const lines = (err as Error).message.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('Hint:'));
        const cause = (err as Error).cause instanceof Error ? ` | ${((err as Error).cause as Error).message}` : '';
        failures.push(`${route.method} ${route.url}: ${lines.slice(0, 12).join(' | ').slice(0, 3000)}${cause.slice(0, 1000)}`);
      }
    }
    const histogram = [...statuses.entries()].sort(([a], [b]) => a - b).map(([status, n]) => `${status}: ${n}`);
    process.stdout.write(`fuzz [${dialect}]: ${sent} requests over ${routes.length} routes; answers ${histogram.join(', ')}\n`);
    expect(sent).toBeGreaterThanOrEqual(ONLY ? 1 : routes.length);
    expect(failures, `seed ${SEED}: reproduce with SVC_FUZZ_SEED=${SEED} npx vitest run test/integration/fuzz.test.ts`).toEqual([]);
  });

  /** The route's credentials as they are now (the fuzzer may have rotated the key or ended a session). */
  async function credentials(route: Route, auth: FuzzRequest['auth']): Promise<Record<string, string>> {
    if (auth === 'none') return {};
    const right = auth === 'right';
    if (route.url.startsWith('/api/')) return { 'x-api-key': right ? ((await t.service.ctx.services.apiKeys.current()) ?? '') : 'wrong-key-0123456789' };
    if (route.url.startsWith('/admin/api/')) {
      if (!right) return { cookie: 'svc_session=wrong', 'x-csrf-token': 'wrong' };
      if (!(await t.service.ctx.services.adminAuth.sessionFor(admin.cookie.split('=')[1]))) admin = await freshAdmin();
      return { cookie: admin.cookie, 'x-csrf-token': admin.csrf };
    }
    if (route.url.startsWith('/portal/api/')) {
      if (!right) return { cookie: 'svc_portal=wrong', 'x-csrf-token': 'wrong' };
      // the fuzzer may have signed it out, changed its password or disabled it: sign in again
      if (!(await t.service.ctx.services.portalAuth.sessionFor(portal.cookie.split('=')[1]))) {
        await t.service.ctx.services.affiliates.update('portalfuzz', { status: 'active' });
        portal = await portalSignIn(t, 'portalfuzz');
      }
      return { cookie: portal.cookie, 'x-csrf-token': portal.csrf };
    }
    if (route.url === '/metrics') return { authorization: `Bearer ${right ? METRICS_TOKEN : 'wrong'}` };
    if (route.url.startsWith('/mailboxes/')) return { authorization: `Bearer ${right ? fixtures.mailbox.token : 'wrong'}` };
    if (route.url.startsWith('/mailtm/')) return { authorization: `Bearer ${right ? fixtures.mailtmToken : 'wrong'}` };
    return {};
  }

  /** A new admin session from an address the login fuzzing never uses (its failures there are throttled). */
  async function freshAdmin(): Promise<AdminClient> {
    // past the login window: the fuzzing of /admin/api/login may have locked the user name `admin`
    t.clock.advance(16 * 60 * 1000);
    const res = await t.service.app.inject({
      method: 'POST',
      url: '/admin/api/login',
      payload: { username: 'admin', password: TEST_ADMIN_PASSWORD },
      remoteAddress: `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
    });
    if (res.statusCode !== 200) throw new Error(`fuzz: admin login failed: ${res.statusCode} ${res.body}`);
    const cookie = String(res.headers['set-cookie']).split(';')[0] as string;
    const csrf = res.json().csrf_token as string;
    return { cookie, csrf, call: () => Promise.reject(new Error('not used')) };
  }
});
