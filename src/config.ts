import { z } from 'zod';

/** Raised when the environment cannot be turned into a valid config; main prints its message as one line. */
export class ConfigError extends Error {}

const boolString = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const port = z.coerce
  .number({ error: 'must be a number' })
  .int('must be an integer')
  .min(0, 'must be 0..65535')
  .max(65535, 'must be 0..65535');

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
  SMTP_PORT: port.optional(),
  SMTP_HOST: z.string().optional(),
  SMTP_TLS_KEY: z.string().optional(),
  SMTP_TLS_CERT: z.string().optional(),
  SVC_INBOUND_MAX_BYTES: z.coerce.number().int().min(1024).max(1024 * 1024 * 1024).default(10 * 1024 * 1024),
  SVC_TRUST_PROXY: boolString,
  SVC_WORKER: z.enum(['on', 'off']).default('on'),
  SVC_DELIVERY_RETENTION_DAYS: z.coerce.number().int('must be a whole number of days').min(0).max(3650).default(30),
  SVC_NETWORK_POSTBACK_URL: z.string().max(2048).optional(),
  SVC_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').max(256).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type DatabaseConfig =
  | { readonly kind: 'sqlite'; readonly path: string; readonly url: string }
  | { readonly kind: 'postgres'; readonly url: string };

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
  readonly smtp?: { readonly port: number; readonly host: string; readonly tlsKey?: string; readonly tlsCert?: string };
  readonly inboundMaxBytes: number;
  readonly bodyLimitBytes: number;
  readonly trustProxy: boolean;
  readonly worker: boolean;
  /** Finished deliveries, their attempts and their events are deleted after this many days; 0 keeps them. */
  readonly deliveryRetentionDays: number;
  readonly logLevel: string;
  /** Conversion URL template of the network-postback adapter; unset keeps that adapter disabled. */
  readonly networkPostbackUrl?: string;
  /** Bearer token for GET /metrics; unset serves no metrics. */
  readonly metricsToken?: string;
}

export function parseDatabaseUrl(url: string): DatabaseConfig {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\//, '');
    if (!path) throw new ConfigError(`DATABASE_URL: "${url}" names no file (use sqlite:./data/svc.db or sqlite::memory:)`);
    return Object.freeze({ kind: 'sqlite', path, url });
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    try {
      const u = new URL(url);
      if (!u.hostname && !u.searchParams.get('host')) throw new Error('no host');
    } catch {
      throw new ConfigError(`DATABASE_URL: "${redact(url)}" is not a valid postgres:// URL`);
    }
    return Object.freeze({ kind: 'postgres', url });
  }
  throw new ConfigError(`DATABASE_URL: "${redact(url)}" must start with sqlite: or postgres://`);
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
}

/** Reads the environment once; throws ConfigError with one readable line on any bad value. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const name = first?.path.join('.') ?? 'environment';
    const value = cleaned[name as keyof typeof cleaned];
    throw new ConfigError(`${name}: ${first?.message ?? 'invalid'}${value !== undefined && !/KEY|PASSWORD/.test(name) ? ` (got "${value}")` : ''}`);
  }
  const e = parsed.data;
  const database = parseDatabaseUrl(e.DATABASE_URL);
  const hostForUrl = e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST === '0.0.0.0' ? '127.0.0.1' : e.HOST;
  let baseUrl = e.SVC_BASE_URL ?? `http://${hostForUrl}:${e.PORT}`;
  try {
    const u = new URL(baseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
    baseUrl = u.toString().replace(/\/$/, '');
  } catch {
    throw new ConfigError(`SVC_BASE_URL: "${baseUrl}" must be an absolute http(s) URL`);
  }
  const mailDomains = e.SVC_MAIL_DOMAINS.split(',')
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);
  if (mailDomains.length === 0) throw new ConfigError('SVC_MAIL_DOMAINS: must name at least one domain');
  for (const d of mailDomains) {
    if (!domainRe.test(d)) throw new ConfigError(`SVC_MAIL_DOMAINS: "${d}" is not a valid domain name`);
  }
  if (e.SVC_NETWORK_POSTBACK_URL && !/^https?:\/\/[^/]/.test(e.SVC_NETWORK_POSTBACK_URL)) {
    throw new ConfigError('SVC_NETWORK_POSTBACK_URL: must be an absolute http(s) URL template');
  }
  if ((e.SMTP_TLS_KEY && !e.SMTP_TLS_CERT) || (!e.SMTP_TLS_KEY && e.SMTP_TLS_CERT)) {
    throw new ConfigError('SMTP_TLS_KEY and SMTP_TLS_CERT: set both or neither');
  }
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
      e.SMTP_PORT !== undefined
        ? Object.freeze({ port: e.SMTP_PORT, host: e.SMTP_HOST ?? e.HOST, tlsKey: e.SMTP_TLS_KEY, tlsCert: e.SMTP_TLS_CERT })
        : undefined,
    inboundMaxBytes: e.SVC_INBOUND_MAX_BYTES,
    bodyLimitBytes: 1024 * 1024,
    trustProxy: e.SVC_TRUST_PROXY,
    worker: e.SVC_WORKER === 'on',
    deliveryRetentionDays: e.SVC_DELIVERY_RETENTION_DAYS,
    logLevel: e.LOG_LEVEL,
    networkPostbackUrl: e.SVC_NETWORK_POSTBACK_URL,
    metricsToken: e.SVC_METRICS_TOKEN,
  });
}
