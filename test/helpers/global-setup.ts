import '../../src/platform/supported-node.js';
import { execFileSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { CHROMIUM } from './chromium.js';

/**
 * Says loudly which databases and browsers the run covers. With SVC_TEST_POSTGRES_URL set, PostgreSQL
 * must answer (a dead URL fails the run). SVC_REQUIRE_POSTGRES / SVC_REQUIRE_BROWSER (set by .ci/run)
 * turn a missing one into a failure instead of a skip.
 */
export default async function setup(): Promise<void> {
  // The content pool's workers run the build's dist/mail/messages/content-worker.js (src/mail/messages/content-pool.ts):
  // a run of vitest alone never tests a stale worker, so dist is built here when any source is newer than it.
  // `npm test` has just built it, so there this only checks.
  const root = fileURLToPath(new URL('../../', import.meta.url));
  if (!distIsFresh(root)) {
    process.stderr.write('global setup: dist/ is older than src/: building it (tsc -p tsconfig.build.json)\n');
    execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  }
  const url = process.env.SVC_TEST_POSTGRES_URL;
  if (url) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
      await client.query('select 1');
    } catch (err) {
      throw new Error(`SVC_TEST_POSTGRES_URL is set but PostgreSQL does not answer: ${(err as Error).message}`);
    } finally {
      await client.end().catch(() => {});
    }
  } else {
    const banner = '!'.repeat(78);
    process.stderr.write(
      `\n${banner}\n!!! SKIPPING every PostgreSQL suite: SVC_TEST_POSTGRES_URL is not set.\n!!! Only SQLite is tested in this run.\n${banner}\n\n`,
    );
    if (process.env.SVC_REQUIRE_POSTGRES === '1') {
      throw new Error('SVC_REQUIRE_POSTGRES=1 but SVC_TEST_POSTGRES_URL is not set');
    }
  }
  if (!CHROMIUM) {
    const banner = '!'.repeat(78);
    process.stderr.write(
      `\n${banner}\n!!! SKIPPING every browser suite: no Chromium (/usr/bin/chromium or chromium on PATH).\n!!! Install Debian's chromium package to run them.\n${banner}\n\n`,
    );
    if (process.env.SVC_REQUIRE_BROWSER === '1') {
      throw new Error('SVC_REQUIRE_BROWSER=1 but Chromium is not installed (/usr/bin/chromium or chromium on PATH)');
    }
  }
}

/** Newest modification time (ms) of a file under dir (0 when there is none). */
function newestUnder(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

/**
 * Was dist/ built after the last change to src/ and the build's settings? tsc writes every output on each
 * build, so the build's entry point and the content worker are as new as the build.
 */
function distIsFresh(root: string): boolean {
  const outputs = ['dist/main.js', 'dist/mail/messages/content-worker.js'];
  let built: number;
  try {
    built = Math.min(...outputs.map((f) => statSync(join(root, f)).mtimeMs));
  } catch {
    return false;
  }
  const inputs = Math.max(newestUnder(join(root, 'src')), ...['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'].map((f) => statSync(join(root, f)).mtimeMs));
  return inputs <= built;
}
