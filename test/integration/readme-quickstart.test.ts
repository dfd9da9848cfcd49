import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSvc, started, type SvcProcess } from '../helpers/process.js';

const ROOT = join(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const KEY = 'svc_quickstart_key_0123456789';
const PUBLIC_URL = 'http://svc.example';

/** The fenced `sh` blocks of the README's "Quick start" section, in order. */
function quickStartBlocks(): string[] {
  const start = README.indexOf('\n## Quick start\n');
  if (start < 0) throw new Error('README.md has no "## Quick start" section');
  const end = README.indexOf('\n## ', start + 1);
  const section = README.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/\n```sh\n([\s\S]*?)\n```/g)].map((m) => m[1] as string);
}

/** Runs a bash script in `cwd`; resolves with its output (stderr included) and exit code. */
function bash(script: string, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn('bash', ['-c', script], { cwd, env: { PATH: process.env.PATH ?? '', HOME: cwd }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.on('close', (code) => done({ code, output }));
  });
}

describe('README quick start, run as written against a started service', () => {
  let dir: string;
  let svc: SvcProcess;
  let base: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-readme-'));
    // what `npm start` does on a first start, with the key given so the test knows it (and a base URL,
    // since the port is the one the OS picks)
    svc = runSvc({ DATABASE_URL: `sqlite:${join(dir, 'data', 'svc.db')}`, PORT: '0', SVC_API_KEY: KEY, SVC_BASE_URL: PUBLIC_URL });
    base = await started(svc);
  });
  afterAll(async () => {
    await svc?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('walks the loop: affiliate, /go, mailbox, order, pay, approve, mark paid, withdraw, summary, inbound mail, read', async () => {
    const blocks = quickStartBlocks();
    // the first block starts the service (done above); the second sets BASE and KEY, which must be
    // the only assignments the test replaces (with where this service listens and its key)
    expect(blocks[0]).toBe('npm install && npm start');
    const settings = blocks[1] as string;
    expect(settings).toMatch(/^BASE=http:\/\/127\.0\.0\.1:8080$/m);
    expect(settings).toMatch(/^KEY=\S+$/m);
    const given = settings.replace(/^BASE=.*$/m, `BASE=${base}`).replace(/^KEY=.*$/m, `KEY=${KEY}`);
    const steps = blocks.slice(2);
    expect(steps.length).toBeGreaterThanOrEqual(8);
    for (const step of steps) expect(step).not.toContain('jq');

    const MARK = '@@@ step';
    const script = [
      'set -e',
      given,
      ...steps.flatMap((step, i) => [`echo '${MARK} ${i}'`, step]),
      `echo '${MARK} end'`,
    ].join('\n');
    const { code, output } = await bash(script, dir);
    expect(output).toContain(`${MARK} end`);
    expect(code).toBe(0);
    const outputs = output.split(new RegExp(`^${MARK} `, 'm')).slice(1).map((part) => part.slice(part.indexOf('\n') + 1));
    /** The output of the step whose commands contain `fragment`. */
    const of = (fragment: string): string => {
      const i = steps.findIndex((s) => s.includes(fragment));
      if (i < 0) throw new Error(`no quick-start step contains ${fragment}`);
      return outputs[i] as string;
    };
    const json = (text: string) => text.trim().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));

    expect(json(of('/api/affiliates'))).toEqual([{ success: true, affiliate: expect.objectContaining({ ref_code: 'alice', name: 'Alice Blog', status: 'active' }) }]);

    const go = of('/go/alice');
    expect(go).toMatch(/^HTTP\/1\.1 302 Found\r?$/m);
    expect(go).toMatch(/^location: http:\/\/svc\.example\/\?ref=alice\r?$/m);
    expect(go).toMatch(/^set-cookie: svc_ref=alice; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax\r?$/m);

    const [mailbox] = json(of('/mailboxes"'));
    expect(mailbox).toMatchObject({ success: true, mailbox: { address: 'reader@svc.test', ref_code: 'alice', token: expect.any(String) } });

    const [order, paid] = json(of('/api/orders/pay'));
    expect(order).toMatchObject({ success: true, order: { order_id: 'order-1001', email: 'reader@svc.test', amount: 49.9, status: 'created' } });
    expect(paid).toMatchObject({ success: true, order: { status: 'paid' }, commission: { ref_code: 'alice', amount: 49.9, commission: 4.99, status: 'pending' } });

    const [approved, markedPaid] = json(of('/approve'));
    expect(approved).toMatchObject({ success: true, commission: { id: paid.commission.id, status: 'approved' } });
    expect(markedPaid).toMatchObject({ success: true, commission: { id: paid.commission.id, status: 'paid' } });

    const [requested, paidOut] = json(of('/api/withdrawals'));
    expect(requested).toMatchObject({ success: true, withdrawal: { ref_code: 'alice', amount: 4.99, status: 'requested' } });
    expect(paidOut).toMatchObject({ success: true, withdrawal: { id: requested.withdrawal.id, status: 'paid' } });

    const [summary] = json(of('/api/affiliate/summary'));
    expect(summary.summary).toEqual([
      expect.objectContaining({
        ref_code: 'alice',
        clicks: 1,
        mailboxes: 1,
        conversion_rate: 1,
        orders: 1,
        commission: { pending: 0, approved: 0, paid: 4.99, void: 0, total: 4.99 },
        withdrawals: { requested: 0, paid: 4.99 },
        balance: 0,
      }),
    ]);

    const [inbound, read] = json(of('/api/inbound'));
    expect(inbound).toMatchObject({ success: true, message: { id: expect.any(String), mailboxes: ['reader@svc.test'] } });
    expect(read).toMatchObject({
      success: true,
      message: { id: inbound.message.id, from: 'shop@example.com', from_name: 'Shop', subject: 'Your order 1001', text: 'Thanks for your order!' },
    });
  });
});

describe('README links', () => {
  it('never point outside the repository, and every relative one exists', () => {
    const docs = existsSync(join(ROOT, 'docs')) ? readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`) : [];
    const files = ['README.md', ...docs];
    for (const file of files) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = target as string;
        if (/^[a-z][a-z0-9+.-]*:/i.test(link) || link.startsWith('#')) continue;
        const path = resolve(dirname(join(ROOT, file)), link.split('#')[0] as string);
        const inside = relative(ROOT, path);
        expect(inside.startsWith('..'), `${file} links to ${link}, outside the repository`).toBe(false);
        expect(existsSync(path), `${file} links to ${link}, which does not exist`).toBe(true);
      }
    }
  });
});
