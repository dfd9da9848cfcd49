import type { LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import type { AdapterDefinition } from '../../src/platform/adapters/adapter.js';
import { FakeClock } from '../../src/platform/clock.js';
import { type Config, type HttpLimits, loadConfig } from '../../src/config.js';
import type { Dialect } from '../../src/platform/db/database.js';
import { createService, type Service } from '../../src/server.js';
import type { Resolver } from '../../src/platform/webhooks/ssrf.js';
import { freshDatabase, type TestDatabase } from './databases.js';

export const TEST_API_KEY = 'test_api_key_0123456789abcdef';
export const TEST_ADMIN_PASSWORD = 'test-admin-password';

export interface TestService {
  readonly service: Service;
  readonly clock: FakeClock;
  readonly database: TestDatabase;
  /** Calls /api/... with the API key. */
  api(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** Calls any route with no credentials. */
  request(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  /** Logs in as admin and returns a caller for /admin/api/... that sends the session cookie and CSRF token. */
  admin(): Promise<AdminClient>;
  /** A second instance on the same database (PostgreSQL multi-instance tests). */
  sibling(): Promise<TestService>;
  close(): Promise<void>;
}

export interface AdminClient {
  readonly cookie: string;
  readonly csrf: string;
  call(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}

export interface TestServiceOptions {
  readonly env?: Record<string, string>;
  readonly clock?: FakeClock;
  readonly database?: TestDatabase;
  /** DNS used by the SSRF guard (simulated names, DNS rebinding). */
  readonly resolver?: Resolver;
  /** The adapters to register instead of the registry's (a test adds a throwaway one). */
  readonly adapters?: readonly AdapterDefinition[];
  /** Shorter HTTP timeouts or heartbeats than the real ones (tests of the limits themselves). */
  readonly http?: Partial<HttpLimits>;
  /** Rows per page a CSV export reads (small, to cross pages with a few rows). */
  readonly exportPageSize?: number;
  /** The byte quota of new mail.tm accounts (small, to reach it with a few small messages). */
  readonly mailtmQuotaBytes?: number;
  /** Content pool settings the environment cannot set apart (a read-time limit other than the intake's). */
  readonly contentPool?: Partial<Config['contentPool']>;
}

/** The real app on a fresh database with a fake clock; the caller closes it. */
export async function startTestService(dialect: Dialect, opts: TestServiceOptions = {}): Promise<TestService> {
  const database = opts.database ?? (await freshDatabase(dialect));
  const ownsDatabase = !opts.database;
  const clock = opts.clock ?? new FakeClock(Date.UTC(2026, 0, 15, 12, 0, 0));
  const loaded = loadConfig({
    DATABASE_URL: database.url,
    SVC_API_KEY: TEST_API_KEY,
    SVC_ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
    SVC_BASE_URL: 'http://svc.test.local',
    SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
    PORT: '0',
    // SMTP only where a test asks for it (SMTP_PORT: '0'): suites start many services at once, and only one could have 2525.
    SMTP_PORT: 'off',
    LOG_LEVEL: 'silent',
    // One content worker process per test service (a suite starts dozens; each worker costs ~0.5 s of CPU to start).
    SVC_MAIL_WORKERS: '1',
    ...opts.env,
  }, { adapters: opts.adapters });
  const config: Config = {
    ...loaded,
    ...(opts.http ? { http: { ...loaded.http, ...opts.http } } : {}),
    ...(opts.exportPageSize ? { exportPageSize: opts.exportPageSize } : {}),
    ...(opts.mailtmQuotaBytes ? { mailtmQuotaBytes: opts.mailtmQuotaBytes } : {}),
    ...(opts.contentPool ? { contentPool: { ...loaded.contentPool, ...opts.contentPool } } : {}),
  };
  const service = await createService(config, {
    clock,
    logger: pino({ level: process.env.SVC_TEST_LOG ?? 'silent' }),
    databaseOptions: { pgSchema: database.pgSchema, poolMax: 10 },
    resolver: opts.resolver,
  });
  // what start() does once it listens; most tests never listen (app.inject)
  await service.bootstrap().catch(async (err: unknown) => {
    await service.destroy();
    throw err;
  });

  const inject = (method: string, url: string, body: unknown, headers: Record<string, string>) =>
    service.app.inject({
      method: method as 'GET',
      url,
      headers: body !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json', ...headers } : headers,
      payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });

  const self: TestService = {
    service,
    clock,
    database,
    api: (method, url, body, headers = {}) => inject(method, url, body, { 'x-api-key': TEST_API_KEY, ...headers }),
    request: (method, url, body, headers = {}) => inject(method, url, body, headers),
    async admin() {
      const res = await inject('POST', '/admin/api/login', { username: 'admin', password: TEST_ADMIN_PASSWORD }, {});
      if (res.statusCode !== 200) throw new Error(`admin login failed: ${res.statusCode} ${res.body}`);
      const setCookie = res.headers['set-cookie'];
      const raw = Array.isArray(setCookie) ? setCookie[0] : setCookie;
      const cookie = (raw ?? '').split(';')[0] as string;
      const csrf = (res.json() as { csrf_token: string }).csrf_token;
      return {
        cookie,
        csrf,
        call: (method, url, body, headers = {}) => inject(method, url, body, { cookie, 'x-csrf-token': csrf, ...headers }),
      };
    },
    sibling: () => startTestService(dialect, { ...opts, clock, database }),
    async close() {
      await service.destroy();
      if (ownsDatabase) await database.drop();
    },
  };
  return self;
}
