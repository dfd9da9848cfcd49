import { defineConfig } from 'vitest/config';

// The suites that measure the service's own event-loop delay against the 100 ms bound (CONTRACT §16, §22:
// hostile mail, every route, stored data) or hold connections open against short server timeouts each run
// alone, after every other file, so no other suite shares the 2 cores with them; the benches' tiny runs come
// last, since each loads the machine while it runs. Each is its own project, in its own group.
const HOSTILE = 'test/integration/hostile-content.test.ts';
const ALONE = ['data-size', 'route-sweep', 'long-requests', 'benches'] as const;
const BROWSER = 'test/browser/**/*.test.ts';

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'svc', include: ['test/**/*.test.ts'], exclude: [HOSTILE, BROWSER, ...ALONE.map((n) => `test/integration/${n}.test.ts`)] } },
      // One retry, as Playwright's generated config has on CI: a real Chromium on a shared 2-core machine can miss a
      // 10 s wait once; a broken page fails both tries. The default reporter marks a retried test "(retry x1)".
      { extends: true, test: { name: 'browser', include: [BROWSER], retry: 1 } },
      // One retry: a real stall (seconds) fails both tries; a one-off scheduling hiccup of the machine does not.
      { extends: true, test: { name: 'hostile', include: [HOSTILE], sequence: { groupOrder: 1 }, retry: 1 } },
      ...ALONE.map((name, i) => ({ extends: true as const, test: { name, include: [`test/integration/${name}.test.ts`], sequence: { groupOrder: 2 + i } } })),
    ],
  },
});
