import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, POSTGRES_URL, type TestDatabase } from '../helpers/databases.js';
import { bannerValue, runAdminCli, runSvc, started, waitFor } from '../helpers/process.js';

async function login(base: string, username: string, password: string): Promise<{ status: number; cookie: string }> {
  const res = await fetch(`${base}/admin/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  return { status: res.status, cookie: (res.headers.get('set-cookie') ?? '').split(';')[0] ?? '' };
}

async function sessionStatus(base: string, cookie: string): Promise<number> {
  return (await fetch(`${base}/admin/api/session`, { headers: { cookie } })).status;
}

describe('npm run admin -- reset-password (node dist/admin-cli.js), and the SVC_ADMIN_PASSWORD notice', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('resets a lost password on the configured database, ends the sessions, and says when SVC_ADMIN_PASSWORD is ignored', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'svc.db')}`, PORT: '0' };
    const first = runSvc(env);
    const base = await started(first);
    const printed = bannerValue(first, 'admin password') as string;
    const before = await login(base, 'admin', printed);
    expect(before.status).toBe(200);
    expect(await sessionStatus(base, before.cookie)).toBe(200);

    // the password is lost: reset it while the service runs (it reads the same database)
    const reset = await runAdminCli(['reset-password'], env);
    expect(reset.stderr).toBe('');
    expect(reset.code).toBe(0);
    expect(reset.stdout).toMatch(/^New password set for admin user admin\.\n/);
    const password = /password: +(\S+)/.exec(reset.stdout)?.[1] as string;
    expect(password.length).toBeGreaterThanOrEqual(16);
    expect(password).not.toBe(printed);
    expect(reset.stdout).toContain('1 session(s) of admin ended');
    expect(await sessionStatus(base, before.cookie)).toBe(401);
    expect((await login(base, 'admin', printed)).status).toBe(401);
    expect((await login(base, 'admin', password)).status).toBe(200);
    await first.stop();

    // a start with SVC_ADMIN_PASSWORD on this database: one warning in the log says it was ignored and what to do
    const second = runSvc({ ...env, SVC_ADMIN_PASSWORD: 'an-ignored-password' });
    const base2 = await started(second);
    const notice = 'SVC_ADMIN_PASSWORD is ignored: the database already has an admin user (it only sets the first password); to set a new one run: npm run admin -- reset-password';
    await waitFor(() => second.messages().includes(notice));
    const warning = second.stdout().split('\n').find((line) => line.includes('SVC_ADMIN_PASSWORD'));
    expect(JSON.parse(warning as string)).toMatchObject({ level: 40, msg: notice });
    expect(second.stderr()).toBe('');
    expect(second.stdout()).not.toContain('an-ignored-password');
    expect((await login(base2, 'admin', 'an-ignored-password')).status).toBe(401);
    expect((await login(base2, 'admin', password)).status).toBe(200);
    await second.stop();

    // on a fresh database the variable is used, and nothing is said about it
    const fresh = runSvc({ DATABASE_URL: `sqlite:${join(dir, 'fresh.db')}`, PORT: '0', SVC_ADMIN_PASSWORD: 'a-first-password' });
    const base3 = await started(fresh);
    expect(fresh.stderr()).toBe('');
    expect(fresh.stdout()).not.toContain('SVC_ADMIN_PASSWORD');
    expect((await login(base3, 'admin', 'a-first-password')).status).toBe(200);
    await fresh.stop();
  });

  it('takes --username, and refuses an unknown user, a bad command and a bad database in one line with a non-zero exit', async () => {
    const env = { DATABASE_URL: `sqlite:${join(dir, 'users.db')}` };
    // a database without any admin user (never started): the reset creates "admin"
    const created = await runAdminCli(['reset-password'], env);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^Created admin user admin \(the database had none\)\.\n {2}database: {2}SQLite \/\S+\/users\.db\n {2}user name: admin\n {2}password: {2}\S{16,}\n/);

    const unknown = await runAdminCli(['reset-password', '--username', 'zoe'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toBe('svc admin: No admin user "zoe" (admin users: admin)\n');

    const named = await runAdminCli(['reset-password', '--username=admin'], env);
    expect(named.code).toBe(0);
    expect(named.stdout).toMatch(/^New password set for admin user admin\./);

    const bad = await runAdminCli(['reset-passwd'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe('svc admin: unknown command "reset-passwd"');
    expect(bad.stderr).toContain('usage: npm run admin -- reset-password [--username NAME]');

    const help = await runAdminCli(['--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('reset-password');

    const config = await runAdminCli(['reset-password'], { DATABASE_URL: 'mongodb://x' });
    expect(config.code).toBe(1);
    expect(config.stderr).toMatch(/^svc admin: configuration error: DATABASE_URL: [^\n]+\n$/);

    // nothing listens on port 1: the database cannot be reached
    const down = await runAdminCli(['reset-password'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^svc admin: cannot open the database \(postgres\): [^\n]*ECONNREFUSED[^\n]*\n$/);
  });

  it.skipIf(!POSTGRES_URL)(`resets on PostgreSQL too${POSTGRES_URL ? '' : ' [SKIPPED: no SVC_TEST_POSTGRES_URL]'}`, async () => {
    const db: TestDatabase = await freshDatabase('postgres');
    try {
      const url = new URL(db.url);
      url.searchParams.set('options', `-c search_path=${db.pgSchema}`);
      const env = { DATABASE_URL: url.toString() };
      const created = await runAdminCli(['reset-password'], env);
      expect(created.stderr).toBe('');
      expect(created.stdout).toMatch(/^Created admin user admin/);
      // the URL is shown without a password
      expect(created.stdout).toContain('  database:  PostgreSQL postgres://postgres@127.0.0.1:5432/');
      const again = await runAdminCli(['reset-password', '--username', 'admin'], env);
      expect(again.code).toBe(0);
      expect(again.stdout).toMatch(/^New password set for admin user admin\.\n/);
    } finally {
      await db.drop();
    }
  });
});
