import './platform/supported-node.js';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { AdminUserService, adminUsernameSchema, FIRST_ADMIN } from './platform/auth/admin-users.service.js';
import { systemClock } from './platform/clock.js';
import { ConfigError, loadConfig } from './config.js';
import { type DatabaseConfig, openDatabase } from './platform/db/database.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { AppError } from './platform/errors.js';

const USAGE = `usage: npm run admin -- reset-password [--username NAME]
       node dist/admin-cli.js reset-password [--username NAME]

  reset-password   sets a new random password for an admin user (default "${FIRST_ADMIN}") on the
                   database of DATABASE_URL, prints it, and ends that user's sessions`;

/** One readable line on stderr and a non-zero exit. */
function fail(message: string, code = 1): never {
  process.stderr.write(`svc admin: ${message}\n`);
  process.exit(code);
}

/**
 * `npm run admin -- reset-password`: the way back in when the admin password is lost. Works on the
 * database the server uses (DATABASE_URL), applying pending migrations first like `npm run migrate`.
 */
async function main(argv: string[]): Promise<void> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(argv);
  } catch (err) {
    fail(`${(err as Error).message}\n${USAGE}`, 2);
  }
  if (args.values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const [command, ...rest] = args.positionals;
  if (command !== 'reset-password' || rest.length > 0) fail(`${command ? `unknown command "${[command, ...rest].join(' ')}"` : 'no command'}\n${USAGE}`, 2);
  const username = args.values.username;
  const checked = username === undefined ? undefined : adminUsernameSchema.safeParse(username);
  if (checked && !checked.success) fail(`--username ${checked.error.issues[0]?.message ?? 'is not valid'}`, 2);

  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    fail(`${err instanceof ConfigError ? 'configuration error: ' : ''}${(err as Error).message}`);
  }
  let handle: ReturnType<typeof openDatabase>;
  try {
    handle = openDatabase(config.database);
    await migrateToLatest(handle);
  } catch (err) {
    const e = err as { message?: string; code?: string };
    fail(`cannot open the database (${config.database.kind}): ${oneLine(`${e.code ? `${e.code} ` : ''}${e.message ?? String(err)}`)}`);
  }
  try {
    const result = await new AdminUserService(handle.db, systemClock).resetPassword(username);
    const lines = [
      result.created ? `Created admin user ${result.username} (the database had none).` : `New password set for admin user ${result.username}.`,
      // which database: a relative sqlite path from another directory is a different (new) database
      `  database:  ${databaseName(config.database)}`,
      `  user name: ${result.username}`,
      `  password:  ${result.password}`,
      result.sessionsEnded > 0 ? `  ${result.sessionsEnded} session(s) of ${result.username} ended; log in again at ${config.baseUrl}/admin` : `  Log in at ${config.baseUrl}/admin`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } catch (err) {
    if (err instanceof AppError) fail(err.message);
    const e = err as { message?: string; code?: string };
    fail(`cannot reset the password: ${oneLine(`${e.code ? `${e.code} ` : ''}${e.message ?? String(err)}`)}`);
  } finally {
    await handle.destroy().catch(() => {});
  }
}

function parse(argv: string[]) {
  return parseArgs({ args: argv, allowPositionals: true, options: { username: { type: 'string', short: 'u' }, help: { type: 'boolean', short: 'h' } } });
}

/** The database for a person: the SQLite file's full path, or the PostgreSQL URL without its password. */
function databaseName(db: DatabaseConfig): string {
  if (db.kind === 'sqlite') return `SQLite ${resolve(db.path)}`;
  try {
    const url = new URL(db.url);
    url.password = '';
    return `PostgreSQL ${url.toString()}`;
  } catch {
    return 'PostgreSQL';
  }
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

await main(process.argv.slice(2));
