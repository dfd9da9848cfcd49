import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bannerValue, runSvc as run, started } from '../helpers/process.js';

describe('the svc process (dist/main.js)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-proc-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    [{ PORT: 'eighty' }, /^svc: configuration error: PORT: /],
    [{ DATABASE_URL: 'mongodb://x' }, /^svc: configuration error: DATABASE_URL: /],
    [{ LOG_FORMAT: 'text' }, /^svc: configuration error: LOG_FORMAT: must be json or pretty \(got "text"\)$/],
    [{ SMTP_PORT: 'none' }, /^svc: configuration error: SMTP_PORT: must be a port number \(0\.\.65535\) or off \(got "none"\)$/],
  ])('stops with one readable line and a non-zero code for %j', async (env, pattern) => {
    const r = run(env);
    const code = await r.exited;
    expect(code).not.toBe(0);
    expect(r.stderr().trim()).toMatch(pattern);
    expect(r.stderr().trim().split('\n')).toHaveLength(1);
  });

  it('prints the secrets on first start only, serves login and /api with the printed key, and stops on SIGTERM', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'svc.db')}`, PORT: '0', SVC_BASE_URL: 'https://svc.example' };
    const first = run(env);
    const base = await started(first);
    expect(first.messages()).toContain('svc is running at https://svc.example/ (admin area: https://svc.example/admin, database: sqlite)');
    expect(bannerValue(first, 'admin user')).toBe('admin');
    const password = bannerValue(first, 'admin password') as string;
    const key = bannerValue(first, 'API key') as string;
    expect(password.length).toBeGreaterThanOrEqual(16);
    expect(key).toMatch(/^svc_/);

    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const login = await fetch(`${base}/admin/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    expect(login.status).toBe(200);
    expect((await fetch(`${base}/api/nothing`, { headers: { 'x-api-key': key } })).status).toBe(404);
    expect((await fetch(`${base}/api/nothing`, { headers: { 'x-api-key': 'nope' } })).status).toBe(401);

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = run(env);
    const base2 = await started(second);
    expect(second.stdout()).not.toContain(password);
    expect(second.stdout()).not.toContain(key);
    expect((await fetch(`${base2}/api/nothing`, { headers: { 'x-api-key': key } })).status).toBe(404);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  });

  it('takes SVC_API_KEY and SVC_ADMIN_PASSWORD on first start and does not print them', async () => {
    const r = run({
      DATABASE_URL: `sqlite:${join(dir, 'given.db')}`,
      PORT: '0',
      SVC_API_KEY: 'given_key_0123456789abcdef',
      SVC_ADMIN_PASSWORD: 'given-password',
    });
    // main prints its whole start-up message in one write, so it is complete once the address is in it
    const base = await started(r);
    expect(r.stdout()).not.toContain('given_key_0123456789abcdef');
    expect(r.stdout()).not.toContain('given-password');
    const res = await fetch(`${base}/api/x`, { headers: { 'x-api-key': 'given_key_0123456789abcdef' } });
    expect(res.status).toBe(404);
    r.child.kill('SIGTERM');
    expect(await r.exited).toBe(0);
  });

  it('built (dist): sanitises mail HTML at intake in its worker threads (SMTP on too)', async () => {
    const key = 'given_key_0123456789abcdef';
    const r = run({ DATABASE_URL: `sqlite:${join(dir, 'mail.db')}`, PORT: '0', SMTP_PORT: '0', SVC_API_KEY: key, SVC_ADMIN_PASSWORD: 'given-password' });
    try {
      const base = await started(r);
      const created = await fetch(`${base}/mailboxes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(created.status).toBe(201);
      const { address } = ((await created.json()) as { mailbox: { address: string } }).mailbox;
      const api = (path: string, init: RequestInit = {}) => fetch(`${base}/api${path}`, { ...init, headers: { 'content-type': 'application/json', 'x-api-key': key } });
      const res = await api('/inbound', { method: 'POST', body: JSON.stringify({ to: address, html: '<p>hello<script>alert(1)</script></p>' }) });
      expect(res.status).toBe(201);
      const { id } = ((await res.json()) as { message: { id: string } }).message;
      const msg = ((await (await api(`/mailboxes/${address}/messages/${id}`)).json()) as { message: { html: string; html_dropped: boolean } }).message;
      expect(msg).toMatchObject({ html: '<p>hello</p>', html_dropped: false });
    } finally {
      await r.stop();
    }
  });
});
