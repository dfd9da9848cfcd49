import type { FastifySchema } from 'fastify';
import { z } from 'zod';

/**
 * The OpenAPI 3.1 description of the service, served at `GET /openapi.json`: built from the registered
 * routes, whose schemas (route-schema.ts) both validate requests and describe them; response schemas
 * are strict, and the tests parse real responses with them, so the document cannot drift from what the
 * service answers.
 */

/** adminSession: the admin area's own routes (cookie from POST /admin/api/login; mutations also need X-CSRF-Token). */
export type Auth = 'apiKey' | 'mailboxToken' | 'adminSession' | 'portalSession' | 'metricsToken' | 'mailtmToken' | 'none';

export interface ApiResponse {
  readonly description: string;
  /** A JSON body; omitted for bodiless answers. */
  readonly body?: z.ZodType;
  /** A non-JSON body (HTML, bytes, an event stream): its media type. */
  readonly mediaType?: string;
  readonly headers?: Record<string, string>;
}

export interface ApiOperation {
  readonly method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI path form, e.g. `/api/orders/{order_id}`. */
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  readonly auth: Auth;
  readonly params?: z.ZodObject;
  readonly query?: z.ZodObject;
  readonly body?: z.ZodType;
  readonly responses: Readonly<Record<number, ApiResponse>>;
}

export const isoTime = z.string().meta({ format: 'date-time', examples: ['2026-01-15T12:00:00.000Z'] });
/** A resource id in a path (`com_…`, `wd_…`, message and attachment ids) that is checked: longer ones are 400. */
export const idParam = z.string().min(1).max(100);
/**
 * A path segment the route looks up as it is: anything it does not know is that route's 404. The router
 * refuses segments over 1000 characters (maxParamLength), so this bound is the router's, never a 400.
 */
export const pathSegment = z.string().max(1000);
export const money = z.number().meta({ description: "Amount with at most the program currency's decimals (USD 2, JPY 0, KWD 3)" });

/** Every list's page: `{success, items, next_cursor}` (docs/api.md#conventions). */
export function pageOf(item: z.ZodType) {
  return z.strictObject({ success: z.literal(true), items: z.array(item), next_cursor: z.string().nullable() });
}

/** `{success: true, <key>: item}`, the single-object answer. */
export function one<K extends string>(key: K, item: z.ZodType) {
  return z.strictObject({ success: z.literal(true), [key]: item } as Record<K, z.ZodType> & { success: z.ZodLiteral<true> });
}

export const errorBody = z.strictObject({
  success: z.literal(false),
  error: z.strictObject({
    code: z.string().meta({ examples: ['invalid_request'] }),
    message: z.string(),
    details: z.unknown().optional().meta({ description: 'For invalid_request: [{field, message}]' }),
  }),
});

const ERROR_TEXT: Record<number, string> = {
  400: 'invalid_request: the body, query or a path segment is not valid; details name each field',
  401: 'unauthorized: missing or wrong credentials',
  403: 'signup_closed (portal sign-up is off), password_required (portal: payout details need the current password) or csrf_failed',
  404: 'not found (the code names what: order_not_found, affiliate_not_found, mailbox_not_found, commission_not_found, withdrawal_not_found, commission_rule_not_found, not_found)',
  409: 'conflict (order_exists, affiliate_exists, mailbox_exists, invalid_transition, idempotency_conflict)',
  413: 'payload_too_large',
  422: 'insufficient_balance (details.available is the balance) or refund_exceeds_amount (details.refundable is what is left)',
  429: 'rate_limited, with Retry-After',
  503: 'overloaded: the mail content pool is full; nothing was stored, retry after Retry-After seconds',
};

/** The contract's error envelope for each status (docs/api.md#conventions). */
export function errors(...statuses: number[]): Record<number, ApiResponse> {
  return Object.fromEntries(statuses.map((s) => [s, { description: ERROR_TEXT[s] ?? 'error', body: errorBody }]));
}

/**
 * The schema of `POST <base>/:id/<action>` for one action of a state machine
 * (docs/ledger.md#commission-states, docs/ledger.md#balance-and-withdrawals: already in the target state
 * answers 200 unchanged, any other state 409 invalid_transition), answering `{success, <key>}`.
 */
export function transitionSchema(tag: string, key: string, body: z.ZodType, summary: string) {
  return {
    tags: [tag],
    summary,
    description: 'Already in the target state: 200 unchanged; any other state: 409 invalid_transition.',
    params: z.object({ id: pathSegment }),
    responses: { 200: { description: `The ${key} after the change`, body: one(key, body) }, ...errors(404, 409) },
  };
}

/** A route as registered (app.ts collects them with an onRoute hook). */
export interface RegisteredRoute {
  readonly method: string;
  readonly url: string;
  readonly schema?: FastifySchema;
  /** An /admin/api route reachable without a session (login). */
  readonly adminPublic?: boolean;
  /** A /portal/api route reachable without an affiliate session (login, sign-up, accept-invite). */
  readonly portalPublic?: boolean;
}

const MUTATIONS = new Set(['post', 'patch', 'put', 'delete']);

/**
 * The operations /openapi.json describes, read off the registered routes: every route whose schema has a
 * summary. Every /api route is also served under /admin/api (session + CSRF instead of the key); the
 * document says so once and describes it under /api only. The admin-only routes are tagged `admin`.
 * The credentials a mount asks for add their error answers (401, and 403 csrf_failed for admin mutations).
 */
export function operationsOf(routes: readonly RegisteredRoute[]): ApiOperation[] {
  const served = new Set(routes.map((r) => `${r.method} ${r.url}`));
  const ops: ApiOperation[] = [];
  for (const r of routes) {
    const s = r.schema;
    if (!s?.summary || r.method === 'HEAD') continue;
    const admin = r.url.startsWith('/admin/api/');
    if (admin && served.has(`${r.method} ${r.url.replace(/^\/admin\/api\//, '/api/')}`)) continue;
    const portal = r.url.startsWith('/portal/api/');
    const auth: Auth = r.url.startsWith('/api/')
      ? 'apiKey'
      : admin
        ? r.adminPublic
          ? 'none'
          : 'adminSession'
        : portal
          ? r.portalPublic
            ? 'none'
            : 'portalSession'
          : (s.auth ?? 'none');
    const method = r.method.toLowerCase() as ApiOperation['method'];
    const responses: Record<number, ApiResponse> = { ...s.responses };
    if (auth === 'apiKey' || auth === 'adminSession' || auth === 'portalSession') responses[401] ??= { description: ERROR_TEXT[401] as string, body: errorBody };
    if ((auth === 'adminSession' || auth === 'portalSession') && MUTATIONS.has(method)) responses[403] ??= { description: 'csrf_failed: X-CSRF-Token missing or wrong', body: errorBody };
    ops.push({
      method,
      path: r.url.replace(/:(\w+)/g, '{$1}'),
      tag: admin ? 'admin' : (s.tags?.[0] ?? 'other'),
      summary: s.summary,
      ...(s.description ? { description: s.description } : {}),
      auth,
      ...(s.params ? { params: s.params as z.ZodObject } : {}),
      ...(s.querystring ? { query: s.querystring as z.ZodObject } : {}),
      ...(s.body ? { body: s.body as z.ZodType } : {}),
      responses,
    });
  }
  return ops;
}

const SECURITY: Record<Auth, unknown[]> = {
  apiKey: [{ apiKey: [] }],
  mailboxToken: [{ mailboxToken: [] }],
  adminSession: [{ adminSession: [] }],
  portalSession: [{ portalSession: [] }],
  metricsToken: [{ metricsToken: [] }],
  mailtmToken: [{ mailtmToken: [] }],
  none: [],
};

export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  return rest;
}

function parameters(where: 'path' | 'query', schema: z.ZodObject | undefined): unknown[] {
  if (!schema) return [];
  const js = jsonSchema(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(js.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (js.required ?? []).includes(name),
    schema: s,
  }));
}

export function openApiDocument(operations: readonly ApiOperation[], info: { version: string; serverUrl: string }): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const responses = Object.fromEntries(
      Object.entries(op.responses).map(([status, r]) => {
        const content = r.body
          ? { 'application/json': { schema: jsonSchema(r.body, 'output') } }
          : r.mediaType
            ? { [r.mediaType]: { schema: { type: 'string', ...(r.mediaType === 'application/octet-stream' ? { format: 'binary' } : {}) } } }
            : undefined;
        const headers = r.headers ? Object.fromEntries(Object.entries(r.headers).map(([h, d]) => [h, { description: d, schema: { type: 'string' } }])) : undefined;
        return [status, { description: r.description, ...(content ? { content } : {}), ...(headers ? { headers } : {}) }];
      }),
    );
    const parametersList = [...parameters('path', op.params), ...parameters('query', op.query)];
    if ((op.auth === 'apiKey' && op.method === 'post') || (op.path === '/portal/api/withdrawals' && op.method === 'post')) {
      parametersList.push({
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        schema: { type: 'string', maxLength: 255 },
        description:
          'Replays the first answer for the same key and body for 24 h (a repeat while the first is still running waits up to 10 s for its answer); another body with the same key is 409 idempotency_conflict',
      });
    }
    paths[op.path] ??= {};
    paths[op.path]![op.method] = {
      tags: [op.tag],
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      operationId: `${op.method}${op.path.replace(/\{([^}]+)\}/g, 'By_$1').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      security: SECURITY[op.auth],
      ...(parametersList.length > 0 ? { parameters: parametersList } : {}),
      ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(op.body, 'input') } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'svc',
      version: info.version,
      description:
        'Temporary mailboxes with a built-in affiliate loop. Every /api route is also served under /admin/api with an admin session (cookie + X-CSRF-Token) instead of the key; it is described once, under /api. The routes only the admin area has are tagged admin.',
    },
    servers: [{ url: info.serverUrl }],
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        mailboxToken: { type: 'http', scheme: 'bearer', description: 'The token returned when the mailbox was created' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'SVC_METRICS_TOKEN, for GET /metrics' },
        portalSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'svc_portal',
          description: "An affiliate's portal session set by POST /portal/api/login {ref_code, password} (or accept-invite, or an open sign-up); every mutation also sends X-CSRF-Token (else 403 csrf_failed). It reads and changes only that affiliate's rows, and never works on /api or /admin/api",
        },
        mailtmToken: { type: 'http', scheme: 'bearer', description: 'The token of POST /mailtm/token {address, password} (mail.tm-compatible API)' },
        adminSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'svc_session',
          description: 'The admin session set by POST /admin/api/login {username, password}; every mutation also sends X-CSRF-Token with the csrf_token of that answer (else 403 csrf_failed)',
        },
      },
    },
    paths,
  };
}
