import { defineConfig } from 'vitest/config';

// The hostile-content suite measures the service's event-loop delay against CONTRACT §16's 100 ms "on an
// otherwise idle machine": it runs alone, after every other file, so no other suite shares the cores.
const HOSTILE = 'test/integration/hostile-content.test.ts';
const BROWSER = 'test/browser/**/*.test.ts';

export default defineConfig({
  test: {
    globalSetup: ['test/helpers/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'svc', include: ['test/**/*.test.ts'], exclude: [HOSTILE, BROWSER] } },
      // One retry, as Playwright's generated config has on CI: a real Chromium on a shared 2-core machine can miss a
      // 10 s wait once; a broken page fails both tries. The default reporter marks a retried test "(retry x1)".
      { extends: true, test: { name: 'browser', include: [BROWSER], retry: 1 } },
      // One retry: a real stall (seconds) fails both tries; a one-off scheduling hiccup of the machine does not.
      { extends: true, test: { name: 'hostile', include: [HOSTILE], sequence: { groupOrder: 1 }, retry: 1 } },
    ],
  },
});
