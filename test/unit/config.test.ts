import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('config', () => {
  it('defaults to SQLite under ./data and 127.0.0.1:8080', () => {
    const c = loadConfig({});
    expect(c.database).toEqual({ kind: 'sqlite', path: './data/svc.db', url: 'sqlite:./data/svc.db' });
    expect(c.host).toBe('127.0.0.1');
    expect(c.port).toBe(8080);
    expect(c.baseUrl).toBe('http://127.0.0.1:8080');
    expect(c.mailDomains).toEqual(['svc.test']);
    expect(c.webhookAllowPrivate).toBe(false);
    expect(c.smtp).toEqual({ port: 2525, host: '127.0.0.1', tlsKey: undefined, tlsCert: undefined });
    expect(c.deliveryRetentionDays).toBe(30);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('runs SMTP on SMTP_HOST (default HOST) port 2525 unless SMTP_PORT=off (README.md#configuration)', () => {
    expect(loadConfig({ HOST: '0.0.0.0' }).smtp).toMatchObject({ port: 2525, host: '0.0.0.0' });
    expect(loadConfig({ HOST: '0.0.0.0', SMTP_HOST: '127.0.0.1', SMTP_PORT: '25' }).smtp).toMatchObject({ port: 25, host: '127.0.0.1' });
    expect(loadConfig({ SMTP_PORT: '0' }).smtp?.port).toBe(0);
    // an empty value is unset: the default
    expect(loadConfig({ SMTP_PORT: '' }).smtp?.port).toBe(2525);
    expect(loadConfig({ SMTP_PORT: 'off' }).smtp).toBeUndefined();
  });

  it('writes readable log lines to a terminal and JSON lines otherwise, unless LOG_FORMAT says', () => {
    expect(loadConfig({}, { stdoutIsTerminal: true }).logFormat).toBe('pretty');
    expect(loadConfig({}, { stdoutIsTerminal: false }).logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'json' }, { stdoutIsTerminal: true }).logFormat).toBe('json');
    expect(loadConfig({ LOG_FORMAT: 'pretty' }, { stdoutIsTerminal: false }).logFormat).toBe('pretty');
  });

  it('accepts postgres URLs and trims the base URL', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/svc', SVC_BASE_URL: 'https://x.example/', SMTP_PORT: '2525' });
    expect(c.database.kind).toBe('postgres');
    expect(c.baseUrl).toBe('https://x.example');
    expect(c.secureCookies).toBe(true);
    expect(c.smtp?.port).toBe(2525);
  });

  it('prepares PostgreSQL statements unless SVC_PG_PREPARE=off', () => {
    const url = 'postgres://u:p@db:5432/svc';
    expect(loadConfig({ DATABASE_URL: url }).database).toEqual({ kind: 'postgres', url });
    expect(loadConfig({ DATABASE_URL: url, SVC_PG_PREPARE: 'off' }).database).toEqual({ kind: 'postgres', url, prepare: false });
    expect(loadConfig({ SVC_PG_PREPARE: 'off' }).database.kind).toBe('sqlite');
  });

  it('takes the delivery retention in days, 0 meaning keep', () => {
    expect(loadConfig({ SVC_DELIVERY_RETENTION_DAYS: '0' }).deliveryRetentionDays).toBe(0);
    expect(loadConfig({ SVC_DELIVERY_RETENTION_DAYS: '7' }).deliveryRetentionDays).toBe(7);
  });

  it('splits and lower-cases mail domains', () => {
    expect(loadConfig({ SVC_MAIL_DOMAINS: ' A.example , b.test' }).mailDomains).toEqual(['a.example', 'b.test']);
  });

  it.each([
    [{ PORT: 'abc' }, /^PORT: /],
    [{ PORT: '70000' }, /^PORT: /],
    [{ SMTP_PORT: 'no' }, /^SMTP_PORT: must be a port number \(0\.\.65535\) or off \(got "no"\)$/],
    [{ SMTP_PORT: 'OFF' }, /^SMTP_PORT: must be a port number \(0\.\.65535\) or off/],
    [{ SMTP_PORT: '70000' }, /^SMTP_PORT: must be a port number \(0\.\.65535\) \(got "70000"\)$/],
    [{ SMTP_PORT: '0x10' }, /^SMTP_PORT: must be a port number \(0\.\.65535\) or off \(got "0x10"\)$/],
    [{ PORT: '1e3' }, /^PORT: must be a port number \(0\.\.65535\) \(got "1e3"\)$/],
    [{ PORT: '2600', SMTP_PORT: '2600' }, /^SMTP_PORT: 2600 is the HTTP port \(PORT\) too; choose another, or SMTP_PORT=off$/],
    [{ LOG_FORMAT: 'text' }, /^LOG_FORMAT: must be json or pretty \(got "text"\)$/],
    [{ DATABASE_URL: 'mysql://x' }, /^DATABASE_URL: .*sqlite: or postgres:\/\//],
    [{ DATABASE_URL: 'sqlite:' }, /^DATABASE_URL: /],
    [{ SVC_BASE_URL: 'ftp://x' }, /^SVC_BASE_URL: /],
    [{ SVC_MAIL_DOMAINS: 'bad domain' }, /^SVC_MAIL_DOMAINS: /],
    [{ SVC_API_KEY: 'short' }, /^SVC_API_KEY: /],
    [{ SVC_WEBHOOK_ALLOW_PRIVATE: 'maybe' }, /^SVC_WEBHOOK_ALLOW_PRIVATE: /],
    [{ SVC_PG_PREPARE: 'false' }, /^SVC_PG_PREPARE: /],
    [{ SVC_DELIVERY_RETENTION_DAYS: '-1' }, /^SVC_DELIVERY_RETENTION_DAYS: /],
    [{ SVC_DELIVERY_RETENTION_DAYS: '1.5' }, /^SVC_DELIVERY_RETENTION_DAYS: /],
    [{ SVC_TRUST_PROXY: 'true' }, /^SVC_TRUST_PROXY: "true" would trust any X-Forwarded-For; write the number of proxies in front of svc \(e\.g\. 1\) or their addresses/],
    [{ SVC_TRUST_PROXY: 'yes' }, /^SVC_TRUST_PROXY: "yes" would trust any X-Forwarded-For/],
    [{ SVC_TRUST_PROXY: '10.0.0.1,proxy.example' }, /^SVC_TRUST_PROXY: "proxy\.example" is not an IP address or CIDR/],
    [{ SVC_TRUST_PROXY: '10.0.0.0/33' }, /^SVC_TRUST_PROXY: "10\.0\.0\.0\/33" is not an IP address or CIDR/],
    [{ SVC_TRUST_PROXY: '10.0.0.1,,10.0.0.2' }, /^SVC_TRUST_PROXY: "" is not an IP address or CIDR/],
    [{ SVC_TRUST_PROXY: '1000' }, /^SVC_TRUST_PROXY: 1000 hops is not plausible/],
    [{ SVC_TRUST_PROXY: '10.0.0.1,\n10.0.0.2x' }, /^SVC_TRUST_PROXY: "10\.0\.0\.2x" is not/],
    [{ SVC_TRUST_PROXY: '10.0.0.1,10.0.0.2\ninjected' }, /^SVC_TRUST_PROXY: "10\.0\.0\.2\\ninjected" is not/],
    [{ SVC_MAX_CONNECTIONS: '0' }, /^SVC_MAX_CONNECTIONS: must be at least 1 \(got "0"\)$/],
    [{ SVC_MAX_CONNECTIONS: 'lots' }, /^SVC_MAX_CONNECTIONS: /],
    [{ SVC_LONG_REQUESTS_PER_CLIENT: '0' }, /^SVC_LONG_REQUESTS_PER_CLIENT: must be at least 1 \(got "0"\)$/],
    [{ SVC_LONG_REQUESTS_PER_CLIENT: '2.5' }, /^SVC_LONG_REQUESTS_PER_CLIENT: must be a whole number/],
    [{ SVC_NETWORK_POSTBACK_URL: 'https://n.example/p?o={order_id}\r\nX-Injected: 1' }, /^SVC_NETWORK_POSTBACK_URL: must not contain control characters/],
    [{ SVC_NETWORK_POSTBACK_URL: 'https://n.example/p?o={order_id}\t' }, /^SVC_NETWORK_POSTBACK_URL: must not contain control characters/],
    [{ SVC_NETWORK_POSTBACK_URL: 'javascript:alert(1)//{order_id}' }, /^SVC_NETWORK_POSTBACK_URL: must be an absolute http\(s\) URL template/],
    [{ SVC_BASE_URL: 'http://x\ny' }, /^SVC_BASE_URL: /],
  ])('rejects %j with one readable line', (env, pattern) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(pattern);
    expect((error as Error).message).not.toContain('\n');
  });

  it('takes SVC_TRUST_PROXY as false, a hop count or a list of proxy addresses and CIDRs', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ SVC_TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ SVC_TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ SVC_TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ SVC_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ SVC_TRUST_PROXY: ' 10.0.0.1 , 10.1.0.0/16,fd00::/8, ::1,loopback' }).trustProxy).toEqual(['10.0.0.1', '10.1.0.0/16', 'fd00::/8', '::1', 'loopback']);
  });

  it('caps HTTP connections at SVC_MAX_CONNECTIONS (default 10000) and sets deliberate timeouts', () => {
    expect(loadConfig({}).http).toEqual({
      maxConnections: 10_000,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      idleTimeoutMs: 60_000,
      keepAliveTimeoutMs: 72_000,
      streamHeartbeatMs: 15_000,
    });
    expect(loadConfig({ SVC_MAX_CONNECTIONS: '500' }).http.maxConnections).toBe(500);
  });

  it('lets a client hold SVC_LONG_REQUESTS_PER_CLIENT long-lived requests at once (default 50)', () => {
    expect(loadConfig({}).longRequestsPerClient).toBe(50);
    expect(loadConfig({ SVC_LONG_REQUESTS_PER_CLIENT: '200' }).longRequestsPerClient).toBe(200);
  });

  it('keeps a value with a line break on one line when it echoes it', () => {
    expect(() => loadConfig({ SVC_MAX_CONNECTIONS: '5\n6' })).toThrow(/^SVC_MAX_CONNECTIONS: .*\(got "5\\n6"\)$/);
  });

  it('never echoes secrets in errors', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://user:hunter2@h/db' })).toThrow(/user:\*\*\*@/);
  });

  it('reads SVC_SMTP_URL and SVC_MAIL_FROM; a malformed value names its variable', () => {
    expect(loadConfig({}).outboundMail).toBeUndefined();
    expect(loadConfig({ SVC_SMTP_URL: 'smtp://u%40x:p%3Aw@mail.example.com:2587?starttls=required', SVC_MAIL_FROM: 'Aff <noreply@example.com>' }).outboundMail).toEqual({
      host: 'mail.example.com',
      port: 2587,
      secure: false,
      requireTls: true,
      user: 'u@x',
      password: 'p:w',
      from: 'Aff <noreply@example.com>',
    });
    expect(loadConfig({ SVC_SMTP_URL: 'smtps://mail.example.com', SVC_MAIL_FROM: 'noreply@example.com' }).outboundMail).toMatchObject({ port: 465, secure: true, requireTls: false });
    const bad = (env: Record<string, string>) => () => loadConfig(env);
    expect(bad({ SVC_SMTP_URL: 'not a url', SVC_MAIL_FROM: 'a@example.com' })).toThrow(/^SVC_SMTP_URL: /);
    expect(bad({ SVC_SMTP_URL: 'http://mail.example.com', SVC_MAIL_FROM: 'a@example.com' })).toThrow(/^SVC_SMTP_URL: must start with smtp/);
    expect(bad({ SVC_SMTP_URL: 'smtp://mail.example.com?starttls=maybe', SVC_MAIL_FROM: 'a@example.com' })).toThrow(/^SVC_SMTP_URL: starttls/);
    expect(bad({ SVC_SMTP_URL: 'smtp://mail.example.com:99999', SVC_MAIL_FROM: 'a@example.com' })).toThrow(/^SVC_SMTP_URL: /);
    expect(bad({ SVC_SMTP_URL: 'smtp://mail.example.com' })).toThrow(/^SVC_MAIL_FROM: must be set/);
    expect(bad({ SVC_SMTP_URL: 'smtp://mail.example.com', SVC_MAIL_FROM: 'nobody' })).toThrow(/^SVC_MAIL_FROM: /);
    expect(bad({ SVC_SMTP_URL: 'smtp://mail.example.com', SVC_MAIL_FROM: 'a@example.com\r\nBcc: x@example.com' })).toThrow(/^SVC_MAIL_FROM: /);
    // the password never shows in the message
    expect(bad({ SVC_SMTP_URL: 'smtp://user:hunter2@ bad', SVC_MAIL_FROM: 'a@example.com' })).toThrow(/^(?!.*hunter2)/);
    expect(bad({ SVC_SMTP_URL: 'x', SVC_MAIL_FROM: 'a@example.com' })).toThrow(ConfigError);
  });
});
