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
    expect(c.smtp).toBeUndefined();
    expect(c.deliveryRetentionDays).toBe(30);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('accepts postgres URLs and trims the base URL', () => {
    const c = loadConfig({ DATABASE_URL: 'postgres://u:p@db:5432/svc', SVC_BASE_URL: 'https://x.example/', SMTP_PORT: '2525' });
    expect(c.database.kind).toBe('postgres');
    expect(c.baseUrl).toBe('https://x.example');
    expect(c.secureCookies).toBe(true);
    expect(c.smtp?.port).toBe(2525);
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
    [{ DATABASE_URL: 'mysql://x' }, /^DATABASE_URL: .*sqlite: or postgres:\/\//],
    [{ DATABASE_URL: 'sqlite:' }, /^DATABASE_URL: /],
    [{ SVC_BASE_URL: 'ftp://x' }, /^SVC_BASE_URL: /],
    [{ SVC_MAIL_DOMAINS: 'bad domain' }, /^SVC_MAIL_DOMAINS: /],
    [{ SVC_API_KEY: 'short' }, /^SVC_API_KEY: /],
    [{ SVC_WEBHOOK_ALLOW_PRIVATE: 'maybe' }, /^SVC_WEBHOOK_ALLOW_PRIVATE: /],
    [{ SVC_DELIVERY_RETENTION_DAYS: '-1' }, /^SVC_DELIVERY_RETENTION_DAYS: /],
    [{ SVC_DELIVERY_RETENTION_DAYS: '1.5' }, /^SVC_DELIVERY_RETENTION_DAYS: /],
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

  it('never echoes secrets in errors', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://user:hunter2@h/db' })).toThrow(/user:\*\*\*@/);
  });
});
