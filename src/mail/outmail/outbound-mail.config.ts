import { ConfigError, redact } from '../../platform/config-error.js';

/** Where svc's own mail goes out: parsed from SVC_SMTP_URL, with SVC_MAIL_FROM as the sender. */
export interface OutboundMailConfig {
  readonly host: string;
  readonly port: number;
  /** smtps: TLS from the first byte. */
  readonly secure: boolean;
  /** `?starttls=required`: refuse to send unless the server upgrades with STARTTLS. */
  readonly requireTls: boolean;
  readonly user?: string;
  readonly password?: string;
  readonly from: string;
}

const MAIL_FROM_RE = /^(?:[^<>\r\n]{0,200}<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/;

/** SVC_SMTP_URL and SVC_MAIL_FROM, or undefined when SVC_SMTP_URL is unset; a malformed value is a ConfigError naming its variable. */
export function parseOutboundMail(url: string | undefined, from: string | undefined): OutboundMailConfig | undefined {
  if (url === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new ConfigError(`SVC_SMTP_URL: "${redact(url).slice(0, 200)}" is not a URL (write smtp://user:pass@host:587 or smtps://host:465)`);
  }
  if (u.protocol !== 'smtp:' && u.protocol !== 'smtps:') throw new ConfigError(`SVC_SMTP_URL: must start with smtp:// or smtps:// (got ${JSON.stringify(u.protocol)})`);
  if (!u.hostname) throw new ConfigError('SVC_SMTP_URL: names no host');
  if (u.pathname && u.pathname !== '/' && u.pathname !== '') throw new ConfigError('SVC_SMTP_URL: must have no path (write smtp://host:port)');
  const starttls = u.searchParams.get('starttls');
  for (const key of u.searchParams.keys()) if (key !== 'starttls') throw new ConfigError(`SVC_SMTP_URL: unknown parameter ${JSON.stringify(key.slice(0, 50))} (only starttls=required)`);
  if (starttls !== null && starttls !== 'required') throw new ConfigError('SVC_SMTP_URL: starttls must be "required" when given');
  if (u.protocol === 'smtps:' && starttls) throw new ConfigError('SVC_SMTP_URL: starttls=required is for smtp://; smtps:// is TLS from the start');
  if (from === undefined) throw new ConfigError('SVC_MAIL_FROM: must be set when SVC_SMTP_URL is (the sender address, e.g. "Affiliates <noreply@example.com>")');
  if (!MAIL_FROM_RE.test(from.trim())) throw new ConfigError(`SVC_MAIL_FROM: ${JSON.stringify(from.slice(0, 200))} is not an address (write noreply@example.com or "Name <noreply@example.com>")`);
  const secure = u.protocol === 'smtps:';
  return Object.freeze({
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    requireTls: starttls === 'required',
    user: u.username ? decodeURIComponent(u.username) : undefined,
    password: u.password ? decodeURIComponent(u.password) : undefined,
    from: from.trim(),
  });
}
