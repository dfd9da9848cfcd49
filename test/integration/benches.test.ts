import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every script in bench/ starts here with a tiny count, a few seconds each, so none rots when the code it
 * measures moves (bench/smtp-intake.mjs stopped starting once without anyone noticing). The list is read
 * from the folder: a new bench fails this file until it says below how to run it small. Each run must exit 0
 * and print at least one figure; the figures themselves mean nothing at this size.
 */
const BENCH = join(import.meta.dirname, '../../bench');

/** Modules the benches import, not benches themselves. */
const HELPERS = new Set(['cpu.mjs']);

/** Benches that measure PostgreSQL alone: run where the tests have one (skipped, and said so, without). */
const NEEDS_POSTGRES = new Set(['click-log.mjs']);

/** The PostgreSQL of the tests, for the benches that measure it too. */
function pgUrl(): Record<string, string> {
  return process.env.SVC_TEST_POSTGRES_URL ? { SVC_BENCH_POSTGRES_URL: process.env.SVC_TEST_POSTGRES_URL } : {};
}

/** The environment (and arguments) that make each bench small; BENCH_SMOKE=1 is set for all of them. */
const SMALL: Record<string, { env: Record<string, string>; args?: string[] }> = {
  'click-log.mjs': { env: { BENCH_SECONDS: '1', BENCH_ROUNDS: '1', BENCH_CONCURRENCY: '4', BENCH_CLICKS: '20000', ...pgUrl() } },
  'csv.mjs': { env: { BENCH_ROWS: '200' } },
  'data-size.mjs': { env: { BENCH_MESSAGES: '2000', BENCH_MAILBOXES: '200', BENCH_SEARCHES: '3', BENCH_SMTP_ROUNDS: '1' } },
  'fraud-rules.mjs': { env: { BENCH_SECONDS: '1', BENCH_ROUNDS: '1', BENCH_PAY_CONCURRENCY: '2', BENCH_GO_CONCURRENCY: '4' } },
  'go-and-summary.mjs': { env: { BENCH_SECONDS: '1', BENCH_ROUNDS: '1', BENCH_CONCURRENCY: '4' } },
  'inbound-compare.mjs': { env: { BENCH_RUNS: '1', BENCH_COUNT: '20', BENCH_CONCURRENCY: '2' }, args: ['dist', 'dist'] },
  'inbound.mjs': { env: { BENCH_QUICK: '1', BENCH_CONCURRENCY: '2' } },
  'integrations.mjs': { env: { BENCH_SECONDS: '1', BENCH_ROUNDS: '1' } },
  'ledger.mjs': { env: { BENCH_SECONDS: '1', BENCH_PAY_ROUNDS: '1', BENCH_CONCURRENCY: '4' } },
  'mail-volume.mjs': { env: { BENCH_MAILS: '30', BENCH_CONNECTIONS: '2', ...pgUrl() } },
  'mail-wait-search.mjs': { env: { BENCH_WAITS: '3', BENCH_SEARCH_MESSAGES: '50', BENCH_QUERIES: '3' } },
  'mailbox-create.mjs': { env: { BENCH_SECONDS: '1', BENCH_ROUNDS: '1', BENCH_CONCURRENCY: '4' } },
  'payouts.mjs': { env: { BENCH_ROWS: '50' } },
  // svc against its own build: maildev is not a dependency, so CI does not have it
  'smtp-intake.mjs': { env: { BENCH_RUNS: '1', BENCH_COUNT: '20', BENCH_WARMUP: '2', BENCH_AGAINST: 'dist' } },
  'webhooks.mjs': { env: { BENCH_EVENTS: '20', BENCH_SAMPLES: '3' } },
  'write-compile.mjs': { env: { BENCH_WRITES: '100' } },
};

const SCRIPTS = readdirSync(BENCH)
  .filter((f) => f.endsWith('.mjs') && !HELPERS.has(f))
  .sort();

function runBench(script: string, small: { env: Record<string, string>; args?: string[] }): Promise<{ code: number | null; out: string }> {
  const tmp = mkdtempSync(join(tmpdir(), 'svc-bench-smoke-'));
  return new Promise((resolve, reject) => {
    // Only PATH and the small settings: no PostgreSQL URL or other knob of the developer's shell leaks in.
    const child = spawn(process.execPath, [join(BENCH, script), ...(small.args ?? [])], {
      cwd: join(BENCH, '..'),
      env: { PATH: process.env.PATH ?? '', TMPDIR: tmp, BENCH_SMOKE: '1', BENCH_MAX_SECONDS: '90', ...small.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      out += d;
    });
    const kill = setTimeout(() => child.kill('SIGKILL'), 110_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(kill);
      rmSync(tmp, { recursive: true, force: true });
      resolve({ code, out });
    });
  });
}

describe('bench/: every script starts with a tiny count and prints figures', () => {
  it('names how to run each script in bench/ small', () => {
    expect(SCRIPTS.filter((s) => !(s in SMALL))).toEqual([]);
    expect(Object.keys(SMALL).filter((s) => !SCRIPTS.includes(s))).toEqual([]);
  });

  for (const script of SCRIPTS) {
    const skip = NEEDS_POSTGRES.has(script) && !process.env.SVC_TEST_POSTGRES_URL;
    if (skip) console.warn(`bench/${script}: SKIPPED, it measures PostgreSQL (set SVC_TEST_POSTGRES_URL)`);
    it.skipIf(skip)(`${script} runs small and exits 0 with figures`, { timeout: 120_000 }, async () => {
      const { code, out } = await runBench(script, SMALL[script] ?? { env: {} });
      expect({ code, tail: out.slice(-2000) }).toMatchObject({ code: 0 });
      // a figure: a number with a unit of time, size or share, or a rate ("97 creations/s")
      expect(out).toMatch(/\d+(\.\d+)?\s*(µs|ms|s|MB|kB|%)\b|\d+(\.\d+)?\s+[a-z ]+\/s\b/);
    });
  }
});
