import '../../src/platform/supported-node.js';
import { execFileSync } from 'node:child_process';
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
  // build it from the current source, so a run of vitest alone never tests a stale worker.
  const root = fileURLToPath(new URL('../../', import.meta.url));
  execFileSync(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
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
