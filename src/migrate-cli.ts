import './platform/supported-node.js';
import { ConfigError, loadConfig } from './config.js';
import { openDatabase } from './platform/db/database.js';
import { migrateToLatest } from './platform/db/migrate.js';

/** `npm run migrate`: applies pending migrations to DATABASE_URL and exits. */
try {
  const config = loadConfig(process.env);
  const handle = openDatabase(config.database);
  try {
    const applied = await migrateToLatest(handle);
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'schema is up to date\n');
  } finally {
    await handle.destroy();
  }
} catch (err) {
  process.stderr.write(`svc migrate: ${err instanceof ConfigError ? 'configuration error: ' : ''}${(err as Error).message}\n`);
  process.exit(1);
}
