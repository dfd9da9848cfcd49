import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// The suites that measure the service's own event-loop delay against the 100 ms bound (CONTRACT §16, §22:
// hostile mail, every route, stored data) or hold connections open against short server timeouts each run
// alone, after every other file, so no other suite shares the 2 cores with them. Each is its own project, in
// its own group. The benches' tiny runs are a project of the first group (the first group's files mostly
// wait, so they fill an idle core; their figures mean nothing at that size), apart from the integration
// project, which .ci/run runs on the other Node.js line too.
const HOSTILE = 'test/integration/hostile-content.test.ts';
const ALONE = ['data-size', 'route-sweep', 'long-requests'] as const;
const BENCHES = 'test/integration/benches.test.ts';
const BROWSER = 'test/browser/**/*.test.ts';

// What every project shares. The projects do not `extends: true` the root: that would run the root's
// globalSetup (the dist check, the database and browser banners) once more for every project in the run.
const shared = { testTimeout: 30_000, hookTimeout: 60_000, pool: 'forks' } as const;

// The first group (unit, integration, browser files) runs at least two files at a time: its files mostly wait
// on their service, PostgreSQL, child processes and Chromium, so on a 2-core machine vitest's default (one
// worker fewer than the cores: one) leaves a core idle. SVC_TEST_WORKERS overrides it.
const WORKERS = Number(process.env.SVC_TEST_WORKERS) || Math.max(2, availableParallelism() - 1);

export default defineConfig({
  test: {
    ...shared,
    globalSetup: ['test/helpers/global-setup.ts'],
    reporters: ['default'],
    projects: [
      { test: { ...shared, name: 'unit', include: ['test/unit/**/*.test.ts'], maxWorkers: WORKERS } },
      {
        test: {
          ...shared,
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: [HOSTILE, BENCHES, ...ALONE.map((n) => `test/integration/${n}.test.ts`)],
          maxWorkers: WORKERS,
        },
      },
      { test: { ...shared, name: 'benches', include: [BENCHES], maxWorkers: 1 } },
      // One retry, as Playwright's generated config has on CI: a real Chromium on a shared 2-core machine can miss a
      // 10 s wait once; a broken page fails both tries. The default reporter marks a retried test "(retry x1)".
      // One Chromium for all its files (helpers/browser-server.ts); each file opens its own contexts in it.
      { test: { ...shared, name: 'browser', include: [BROWSER], retry: 1, maxWorkers: WORKERS, globalSetup: ['test/helpers/browser-server.ts'] } },
      // One retry: a real stall (seconds) fails both tries; a one-off scheduling hiccup of the machine does not.
      { test: { ...shared, name: 'hostile', include: [HOSTILE], sequence: { groupOrder: 1 }, retry: 1 } },
      ...ALONE.map((name, i) => ({ test: { ...shared, name, include: [`test/integration/${name}.test.ts`], sequence: { groupOrder: 2 + i } } })),
    ],
  },
});
