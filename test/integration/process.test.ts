import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const MAIN = join(import.meta.dirname, '../../dist/main.js');

interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

function run(env: Record<string, string>): Run {
  const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  child.stderr?.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function waitFor(predicate: () => boolean, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The address the process printed (it listens on PORT=0, so the OS picks a free port). */
function listeningOn(out: string): string {
  const m = /listening on (http:\/\/\S+)/.exec(out);
  if (!m?.[1]) throw new Error(`no listening line in: ${out}`);
  return m[1];
}

describe('the svc process (dist/main.js)', () => {
  let dir: string;
  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error('dist/main.js is missing: npm test builds it first (npm run build)');
    dir = mkdtempSync(join(tmpdir(), 'svc-proc-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    [{ PORT: 'eighty' }, /^svc: configuration error: PORT: /],
    [{ DATABASE_URL: 'mongodb://x' }, /^svc: configuration error: DATABASE_URL: /],
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
    await waitFor(() => first.stdout().includes('API key:'));
    const out = first.stdout();
    expect(out).toContain('svc is running at https://svc.example/');
    expect(out).toMatch(/admin user: +admin/);
    const password = /admin password: +(\S+)/.exec(out)?.[1] as string;
    const key = /API key: +(\S+)/.exec(out)?.[1] as string;
    expect(password.length).toBeGreaterThanOrEqual(16);
    expect(key).toMatch(/^svc_/);

    const base = listeningOn(out);
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
    await waitFor(() => second.stdout().includes('listening on'));
    expect(second.stdout()).not.toContain(password);
    expect(second.stdout()).not.toContain(key);
    const base2 = listeningOn(second.stdout());
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
    await waitFor(() => r.stdout().includes('listening on'));
    await new Promise((res) => setTimeout(res, 100));
    expect(r.stdout()).not.toContain('given_key_0123456789abcdef');
    expect(r.stdout()).not.toContain('given-password');
    const res = await fetch(`${listeningOn(r.stdout())}/api/x`, { headers: { 'x-api-key': 'given_key_0123456789abcdef' } });
    expect(res.status).toBe(404);
    r.child.kill('SIGTERM');
    expect(await r.exited).toBe(0);
  });
});
