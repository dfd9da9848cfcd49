import './platform/supported-node.js';
import { writeFileSync } from 'node:fs';
import { loadConfig } from './config.js';
import { webTypesFrom } from './platform/http/web-types.js';
import { createService } from './server.js';

/**
 * `npm run gen:web-types`: builds the app on an in-memory database, reads its /openapi.json and writes
 * the web app's types (web/src/api-types.ts, or the path given).
 */
const target = process.argv[2] ?? 'web/src/api-types.ts';
const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', SVC_API_KEY: 'gen-web-types-0123456789abcdef', SVC_ADMIN_PASSWORD: 'gen-web-types-password' });
const service = await createService(config);
try {
  const res = await service.app.inject({ method: 'GET', url: '/openapi.json' });
  writeFileSync(target, webTypesFrom(res.json()));
  process.stdout.write(`wrote ${target}\n`);
} finally {
  await service.destroy();
}
