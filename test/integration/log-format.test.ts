import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, started } from '../helpers/process.js';

/** The first line an SMTP server sends to a client that connects to `address` (smtp://host:port). */
function smtpGreeting(address: string): Promise<string> {
  const { hostname, port } = new URL(address);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    socket.once('error', reject);
    socket.once('data', (d) => {
      socket.end('QUIT\r\n');
      resolve(d.toString().split('\r\n')[0] as string);
    });
  });
}

describe('the log and the start banner (README.md#configuration, dist/main.js)', () => {
  let dir: string;
  let n = 0;
  const database = () => `sqlite:${join(dir, `svc-${n++}.db`)}`;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-log-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each([
    ['LOG_FORMAT=json', { LOG_FORMAT: 'json' }],
    ['no LOG_FORMAT and no terminal', {}],
  ])('%s: every line is a JSON object, the banner with both addresses and the secrets included, and the shutdown after it', async (_name, format) => {
    const p = runSvc({ DATABASE_URL: database(), PORT: '0', SMTP_PORT: '0', LOG_LEVEL: 'info', ...format });
    const base = await started(p);
    await p.stop();
    const lines = p
      .stdout()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; time: number; msg: string });
    for (const line of lines) expect(line).toEqual(expect.objectContaining({ level: expect.any(Number), time: expect.any(Number), msg: expect.any(String) }));
    const messages = lines.map((l) => l.msg);
    expect(messages).toEqual([
      // outbound mail is not configured here, and the log says so first (docs/api.md, "Outbound mail")
      'SVC_SMTP_URL is not set: svc sends no mail (invitations, password resets, notifications)',
      `listening on ${base} (HTTP)`,
      expect.stringMatching(/^listening on smtp:\/\/127\.0\.0\.1:\d+ \(SMTP\)$/),
      'admin user:     admin',
      expect.stringMatching(/^admin password: \S{16,}$/),
      expect.stringMatching(/^API key: +svc_\S+$/),
      expect.stringMatching(/^These secrets are shown once\./),
      expect.stringMatching(/^svc is running at http:\/\/127\.0\.0\.1:0\/ \(admin area: .*, database: sqlite\)$/),
      // written before the process exits, though it exits at once after
      'shutting down',
    ]);
    expect(p.stderr()).toBe('');
  });

  it('an SMTP address in the banner is where the SMTP server answers', async () => {
    const p = runSvc({ DATABASE_URL: database(), PORT: '0', SMTP_PORT: '0' });
    try {
      await started(p);
      const smtp = p.messages().find((m) => m.startsWith('listening on smtp://'));
      const address = /^listening on (smtp:\/\/\S+) \(SMTP\)$/.exec(smtp ?? '')?.[1] as string;
      expect(await smtpGreeting(address)).toMatch(/^220 /);
    } finally {
      await p.stop();
    }
  });

  it('SMTP_PORT=off: the banner names HTTP only', async () => {
    const p = runSvc({ DATABASE_URL: database(), PORT: '0', SMTP_PORT: 'off' });
    const base = await started(p);
    await p.stop();
    expect(p.messages().filter((m) => m.startsWith('listening on'))).toEqual([`listening on ${base} (HTTP)`]);
  });

  it('LOG_FORMAT=pretty: one readable line per event (time, level, message), no JSON, even into a pipe; LOG_LEVEL does not hide the banner', async () => {
    const p = runSvc({ DATABASE_URL: database(), PORT: '0', SMTP_PORT: '0', LOG_FORMAT: 'pretty', LOG_LEVEL: 'warn' });
    const base = await started(p);
    await p.stop();
    const lines = p.stdout().trimEnd().split('\n');
    for (const line of lines) {
      expect(line).toMatch(/^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] (INFO|WARN|ERROR): \S/);
      expect(() => JSON.parse(line)).toThrow();
    }
    // no colours into a pipe
    expect(p.stdout()).not.toContain('\u001b[');
    expect(lines[0]).toMatch(/\] WARN: SVC_SMTP_URL is not set: svc sends no mail/);
    expect(lines[1]).toMatch(new RegExp(`\\] INFO: listening on ${base.replaceAll('.', '\\.')} \\(HTTP\\)$`));
    expect(lines.some((l) => /\] INFO: admin password: \S{16,}$/.test(l))).toBe(true);
    expect(lines.at(-1)).toMatch(/\] INFO: svc is running at /);
    // LOG_LEVEL=warn: the banner shows, the info line of the shutdown does not
    expect(p.stdout()).not.toContain('shutting down');
  });
});
