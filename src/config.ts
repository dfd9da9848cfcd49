import { z } from 'zod';
import type { AdapterDefinition } from './platform/adapters/adapter.js';
import { ADAPTERS } from './platform/adapters/registry.js';
import type { DatabaseConfig } from './platform/db/database.js';
import type { LogFormat } from './platform/logger.js';
import { httpUrlProblem } from './platform/safe-url.js';
import { DEFAULT_CONTENT_POOL } from './mail/messages/content-pool.js';
import { DEFAULT_LONG_REQUESTS_PER_CLIENT } from './platform/limits/long-requests.js';
import { ConfigError } from './platform/config-error.js';
import { type OutboundMailConfig, parseOutboundMail } from './mail/outmail/outbound-mail.config.js';
import { DEFAULT_HTTP_LIMITS, type HttpLimits, parseTrustProxy } from './platform/http/http-config.js';
import { parseDatabaseUrl } from './platform/db/database-url.js';

// the pieces each area reads from the environment are parsed beside their area; this stays the one import path
export { ConfigError } from './platform/config-error.js';
export { type OutboundMailConfig, parseOutboundMail } from './mail/outmail/outbound-mail.config.js';
export { DEFAULT_HTTP_LIMITS, type HttpLimits, parseTrustProxy } from './platform/http/http-config.js';
export { parseDatabaseUrl } from './platform/db/database-url.js';

const boolString = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

// Digits only: Number() would also take `0x10` (port 16) or `1e3`.
const port = z
  .string()
  .regex(/^\d{1,5}$/, 'must be a port number (0..65535)')
  .transform(Number)
  .refine((n) => n <= 65535, 'must be a port number (0..65535)');

/** SMTP's port unless SMTP_PORT says otherwise (README.md#configuration): not 25, so it needs no root. */
export const DEFAULT_SMTP_PORT = 2525;

const domainRe = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

const envSchema = z.object({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(8080),
  DATABASE_URL: z.string().min(1).default('sqlite:./data/svc.db'),
  SVC_API_KEY: z.string().min(16, 'must be at least 16 characters').max(256).optional(),
  SVC_ADMIN_PASSWORD: z.string().min(8, 'must be at least 8 characters').max(1024).optional(),
  SVC_BASE_URL: z.string().optional(),
  SVC_MAIL_DOMAINS: z.string().default('svc.test'),
  SVC_WEBHOOK_ALLOW_PRIVATE: boolString,
  SMTP_PORT: z.union([z.literal('off'), port], { error: 'must be a port number (0..65535) or off' }).default(DEFAULT_SMTP_PORT),
  SMTP_HOST: z.string().optional(),
  SMTP_TLS_KEY: z.string().optional(),
  SMTP_TLS_CERT: z.string().optional(),
  SVC_INBOUND_MAX_BYTES: z.coerce.number().int().min(1024).max(1024 * 1024 * 1024).default(10 * 1024 * 1024),
  SVC_MAIL_HTML_TIMEOUT_MS: z.coerce.number({ error: 'must be a number' }).int('must be a whole number of milliseconds').min(1).max(60_000).default(2000),
  SVC_CATCH_ALL_SENDER_HOURLY: z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(1_000_000).default(50),
  SVC_CATCH_ALL_DOMAIN_HOURLY: z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(10_000_000).default(1000),
  SVC_MAIL_WORKERS: z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(64).optional(),
  SVC_MAIL_QUEUE: z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(0).max(100_000).default(256),
  SVC_MAIL_WORKER_MEMORY_MB: z.coerce.number({ error: 'must be a number' }).int('must be a whole number of MiB').min(16, 'must be at least 16').max(16_384).default(512),
  SVC_TRUST_PROXY: z.string().max(4096).optional(),
  SVC_MAX_CONNECTIONS: z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(1_000_000).default(10_000),
  SVC_LONG_REQUESTS_PER_CLIENT: z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(1_000_000).default(DEFAULT_LONG_REQUESTS_PER_CLIENT),
  SVC_WORKER: z.enum(['on', 'off']).default('on'),
  SVC_PG_PREPARE: z.enum(['on', 'off']).default('on'),
  SVC_CLICK_BATCHES: z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(16, 'must be at most 16').default(4),
  SVC_DELIVERY_RETENTION_DAYS: z.coerce.number().int('must be a whole number of days').min(0).max(3650).default(30),
  SVC_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').max(256).optional(),
  SVC_SMTP_URL: z.string().max(2048).optional(),
  SVC_MAIL_FROM: z.string().max(400).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  LOG_FORMAT: z.enum(['json', 'pretty'], { error: 'must be json or pretty' }).optional(),
});

/** A registered adapter with the values of the environment variables it declares, validated. */
export interface ConfiguredAdapter {
  readonly definition: AdapterDefinition;
  readonly env: Readonly<Record<string, unknown>>;
}

export interface Config {
  readonly host: string;
  readonly port: number;
  readonly database: DatabaseConfig;
  readonly apiKey?: string;
  readonly adminPassword?: string;
  readonly baseUrl: string;
  readonly secureCookies: boolean;
  readonly mailDomains: readonly string[];
  readonly webhookAllowPrivate: boolean;
  /** The SMTP server for inbound mail: on unless SMTP_PORT=off (README.md#configuration). */
  readonly smtp?: { readonly port: number; readonly host: string; readonly tlsKey?: string; readonly tlsCert?: string };
  readonly inboundMaxBytes: number;
  /** The content pool (docs/architecture.md#outsider-bytes-never-run-on-the-event-loop): every job on outsider bytes runs in one of `workers` threads, at most `timeLimitMs` (a message's first read: `htmlTimeLimitMs`; more for large inputs) and `memoryLimitMb`; at most `queue` wait. */
  readonly contentPool: { readonly workers: number; readonly queue: number; readonly timeLimitMs: number; readonly htmlTimeLimitMs: number; readonly memoryLimitMb: number };
  readonly bodyLimitBytes: number;
  /**
   * Which peers may set X-Forwarded-For: none (false), the nearest N hops, or these addresses/CIDRs.
   * Handed to Fastify's trustProxy; `true` (trust anyone) is refused at start.
   */
  readonly trustProxy: false | number | readonly string[];
  readonly http: HttpLimits;
  /** Long-lived requests (message waits, event streams, MCP requests) one client may have open at once, over every instance (SVC_LONG_REQUESTS_PER_CLIENT). */
  readonly longRequestsPerClient: number;
  readonly worker: boolean;
  /** PostgreSQL: click batches /go writes at once (SVC_CLICK_BATCHES), each on a pool connection of its own. */
  readonly clickBatchesInFlight: number;
  /** Finished deliveries, their attempts and their events are deleted after this many days; 0 keeps them. */
  readonly deliveryRetentionDays: number;
  readonly logLevel: string;
  /** `pretty`: one readable line per event (a terminal); `json`: one JSON object per line (anything else). */
  readonly logFormat: LogFormat;
  /** Every registered adapter (src/platform/adapters/registry.ts) with its own configuration. */
  readonly adapters: readonly ConfiguredAdapter[];
  /** Bearer token for GET /metrics; unset serves no metrics. */
  readonly metricsToken?: string;
  /** The SMTP server svc sends its own mail through (SVC_SMTP_URL, SVC_MAIL_FROM); unset: svc sends no mail. */
  readonly outboundMail?: OutboundMailConfig;
  /** Rows a CSV export reads per keyset page (docs/api.md#csv-exports); not from the environment, tests shrink it. */
  readonly exportPageSize: number;
  /** The byte quota of a new mail.tm account (docs/mailtm.md#the-quota); not from the environment, tests shrink it. */
  readonly mailtmQuotaBytes: number;
  /** Mailboxes a catch-all domain creates on arrival, per hour: per connecting client IP and per domain (mail/catch-all-cap.ts). */
  readonly catchAllHourly: { readonly perClient: number; readonly perDomain: number };
}

export const DEFAULT_EXPORT_PAGE_SIZE = 1000;
/** mail.tm's account quota, which its clients know: 40 MiB. */
export const DEFAULT_MAILTM_QUOTA_BYTES = 40 * 1024 * 1024;

/**
 * The variables an adapter declares, validated by their schemas. The values are not echoed in the error:
 * an adapter's URL may carry the network's credentials.
 */
function adapterEnv(definition: AdapterDefinition, env: Record<string, string>): Readonly<Record<string, unknown>> {
  const values: Record<string, unknown> = {};
  for (const [name, variable] of Object.entries(definition.env)) {
    const parsed = variable.schema.safeParse(env[name]);
    if (!parsed.success) throw new ConfigError(`${name}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    values[name] = parsed.data;
  }
  return Object.freeze(values);
}

export interface LoadOptions {
  /** The adapters to configure; the registry unless a test adds one. */
  readonly adapters?: readonly AdapterDefinition[];
  /** Whether the process writes to a terminal, which makes LOG_FORMAT default to pretty; the process's stdout unless a test says. */
  readonly stdoutIsTerminal?: boolean;
}

/** Reads the environment once; throws ConfigError with one readable line on any bad value. */
export function loadConfig(env: Record<string, string | undefined> = process.env, options: LoadOptions = {}): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const name = first?.path.join('.') ?? 'environment';
    const value = cleaned[name as keyof typeof cleaned];
    // JSON-quoted and cut: a value with a line break (or 4 KB of anything) still makes one readable line.
    const shown = value !== undefined && !/KEY|PASSWORD|TOKEN|SMTP_URL/.test(name) ? ` (got ${JSON.stringify(value.slice(0, 200))})` : '';
    throw new ConfigError(`${name}: ${first?.message ?? 'invalid'}${shown}`);
  }
  const e = parsed.data;
  const fromUrl = parseDatabaseUrl(e.DATABASE_URL);
  // PostgreSQL statements prepared per connection, BEGIN sent with the first statement; off for poolers that cannot keep them
  const database: DatabaseConfig = fromUrl.kind === 'postgres' && e.SVC_PG_PREPARE === 'off' ? Object.freeze({ ...fromUrl, prepare: false }) : fromUrl;
  const hostForUrl = e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST === '0.0.0.0' ? '127.0.0.1' : e.HOST;
  let baseUrl = e.SVC_BASE_URL ?? `http://${hostForUrl}:${e.PORT}`;
  const baseUrlProblem = httpUrlProblem(baseUrl);
  if (baseUrlProblem) throw new ConfigError(`SVC_BASE_URL: ${JSON.stringify(baseUrl.slice(0, 200))} ${baseUrlProblem}`);
  baseUrl = new URL(baseUrl).toString().replace(/\/$/, '');
  const mailDomains = e.SVC_MAIL_DOMAINS.split(',')
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);
  if (mailDomains.length === 0) throw new ConfigError('SVC_MAIL_DOMAINS: must name at least one domain');
  for (const d of mailDomains) {
    if (!domainRe.test(d)) throw new ConfigError(`SVC_MAIL_DOMAINS: "${d}" is not a valid domain name`);
  }
  const trustProxy = parseTrustProxy(e.SVC_TRUST_PROXY);
  if ((e.SMTP_TLS_KEY && !e.SMTP_TLS_CERT) || (!e.SMTP_TLS_KEY && e.SMTP_TLS_CERT)) {
    throw new ConfigError('SMTP_TLS_KEY and SMTP_TLS_CERT: set both or neither');
  }
  if (e.SMTP_PORT !== 'off' && e.SMTP_PORT !== 0 && e.SMTP_PORT === e.PORT && (e.SMTP_HOST ?? e.HOST) === e.HOST) {
    throw new ConfigError(`SMTP_PORT: ${e.SMTP_PORT} is the HTTP port (PORT) too; choose another, or SMTP_PORT=off`);
  }
  const adapters = (options.adapters ?? ADAPTERS).map((definition) => Object.freeze({ definition, env: adapterEnv(definition, cleaned) }));
  return Object.freeze({
    host: e.HOST,
    port: e.PORT,
    database,
    apiKey: e.SVC_API_KEY,
    adminPassword: e.SVC_ADMIN_PASSWORD,
    baseUrl,
    secureCookies: baseUrl.startsWith('https:'),
    mailDomains: Object.freeze(mailDomains),
    webhookAllowPrivate: e.SVC_WEBHOOK_ALLOW_PRIVATE,
    smtp:
      e.SMTP_PORT !== 'off'
        ? Object.freeze({ port: e.SMTP_PORT, host: e.SMTP_HOST ?? e.HOST, tlsKey: e.SMTP_TLS_KEY, tlsCert: e.SMTP_TLS_CERT })
        : undefined,
    inboundMaxBytes: e.SVC_INBOUND_MAX_BYTES,
    contentPool: Object.freeze({
      workers: e.SVC_MAIL_WORKERS ?? DEFAULT_CONTENT_POOL.threads,
      queue: e.SVC_MAIL_QUEUE,
      timeLimitMs: e.SVC_MAIL_HTML_TIMEOUT_MS,
      htmlTimeLimitMs: e.SVC_MAIL_HTML_TIMEOUT_MS,
      memoryLimitMb: e.SVC_MAIL_WORKER_MEMORY_MB,
    }),
    bodyLimitBytes: 1024 * 1024,
    trustProxy,
    http: Object.freeze({ ...DEFAULT_HTTP_LIMITS, maxConnections: e.SVC_MAX_CONNECTIONS }),
    longRequestsPerClient: e.SVC_LONG_REQUESTS_PER_CLIENT,
    worker: e.SVC_WORKER === 'on',
    deliveryRetentionDays: e.SVC_DELIVERY_RETENTION_DAYS,
    clickBatchesInFlight: e.SVC_CLICK_BATCHES,
    logLevel: e.LOG_LEVEL,
    logFormat: e.LOG_FORMAT ?? ((options.stdoutIsTerminal ?? process.stdout.isTTY === true) ? 'pretty' : 'json'),
    adapters: Object.freeze(adapters),
    metricsToken: e.SVC_METRICS_TOKEN,
    outboundMail: parseOutboundMail(e.SVC_SMTP_URL, e.SVC_MAIL_FROM),
    exportPageSize: DEFAULT_EXPORT_PAGE_SIZE,
    mailtmQuotaBytes: DEFAULT_MAILTM_QUOTA_BYTES,
    catchAllHourly: Object.freeze({ perClient: e.SVC_CATCH_ALL_SENDER_HOURLY, perDomain: e.SVC_CATCH_ALL_DOMAIN_HOURLY }),
  });
}
