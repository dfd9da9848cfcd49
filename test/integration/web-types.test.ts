import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';
import { webTypesFrom } from '../../src/platform/http/web-types.js';
import { startTestService } from '../helpers/service.js';

/** web/src/api-types.ts is generated from /openapi.json; a route change without `npm run gen:web-types` fails here. */
it('web/src/api-types.ts is what the running app generates (run `npm run gen:web-types` after changing a route)', async () => {
  const t = await startTestService('sqlite');
  try {
    const doc = (await t.request('GET', '/openapi.json')).json();
    const committed = readFileSync(resolve(import.meta.dirname, '../../web/src/api-types.ts'), 'utf8');
    expect(committed === webTypesFrom(doc), 'web/src/api-types.ts is stale: run `npm run gen:web-types`').toBe(true);
  } finally {
    await t.close();
  }
});
