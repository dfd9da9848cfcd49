import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, takePort } from '../helpers/process.js';

describe('a start that cannot listen (dist/main.js)', () => {
  let dir: string;
  let taken: { server: Server; port: number };
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-listen-'));
    taken = await takePort();
  });
  afterAll(async () => {
    await new Promise((resolve) => taken.server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  // {port} in a line stands for the taken port, {next} for the one after it. 192.0.2.1 is TEST-NET-1: never an address of this machine, so binding it fails with EADDRNOTAVAIL
  const cases: [string, () => Record<string, string>, string][] = [
    [
      'the HTTP port is taken',
      () => ({ PORT: String(taken.port) }),
      'svc: cannot listen for HTTP on 127.0.0.1:{port}: the address is already in use (EADDRINUSE): another process listens on that port; to use another port: PORT={next} npm start',
    ],
    [
      'the SMTP port is taken',
      () => ({ PORT: '0', SMTP_PORT: String(taken.port) }),
      'svc: cannot listen for SMTP on 127.0.0.1:{port}: the address is already in use (EADDRINUSE): another process listens on that port; to use another port: SMTP_PORT={next} npm start (or SMTP_PORT=off npm start for none)',
    ],
    ['HOST is not an address of this machine', () => ({ HOST: '192.0.2.1', PORT: '0' }), 'svc: cannot listen for HTTP on 192.0.2.1:0: the address is not available on this machine (EADDRNOTAVAIL)'],
    ['SMTP_HOST is not an address of this machine', () => ({ PORT: '0', SMTP_PORT: '0', SMTP_HOST: '192.0.2.1' }), 'svc: cannot listen for SMTP on 192.0.2.1:0: the address is not available on this machine (EADDRNOTAVAIL)'],
    ['HOST does not resolve', () => ({ HOST: 'no-such-host.invalid', PORT: '0' }), 'svc: cannot listen for HTTP on no-such-host.invalid:0: the host name does not resolve (ENOTFOUND)'],
  ];

  it.each(cases)('names what failed, the address and the port in one line and exits non-zero when %s', async (_name, env, line) => {
    const r = runSvc({ DATABASE_URL: `sqlite:${join(dir, 'svc.db')}`, ...env() });
    const code = await r.exited;
    expect(code).toBe(1);
    expect(r.stderr()).toBe(`${line.replace('{port}', String(taken.port)).replace('{next}', String(taken.port + 1))}\n`);
    // it never said it was running, and the one line is the only report (no second log entry with a stack)
    expect(r.stdout()).not.toContain('svc is running');
    expect(r.stdout()).not.toMatch(/admin password|API key/);
    expect(r.stdout()).not.toMatch(/EADDRINUSE|EADDRNOTAVAIL|ENOTFOUND|"stack"/);
  });
});

describe('a malformed outbound mail setting (dist/main.js)', () => {
  it.each([
    [{ SVC_SMTP_URL: 'smtp//mail.example.com', SVC_MAIL_FROM: 'noreply@example.com' }, 'svc: configuration error: SVC_SMTP_URL: "smtp//mail.example.com" is not a URL (write smtp://user:pass@host:587 or smtps://host:465)'],
    [{ SVC_SMTP_URL: 'smtp://mail.example.com' }, 'svc: configuration error: SVC_MAIL_FROM: must be set when SVC_SMTP_URL is (the sender address, e.g. "Affiliates <noreply@example.com>")'],
  ])('stops the start with one line naming the variable (%o)', async (env, line) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-outmail-'));
    try {
      const r = runSvc({ DATABASE_URL: `sqlite:${join(dir, 'svc.db')}`, PORT: '0', SMTP_PORT: 'off', ...env });
      expect(await r.exited).toBe(2);
      expect(r.stderr()).toBe(`${line}\n`);
      expect(r.stdout()).not.toContain('svc is running');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
