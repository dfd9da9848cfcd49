import './platform/supported-node.js';
import { ConfigError, loadConfig } from './config.js';
import { ListenError } from './platform/listen-error.js';
import { bannerLogger } from './platform/logger.js';
import { createService, type Listening } from './server.js';
import type { BootstrapResult } from './platform/auth/bootstrap.js';
import type { Config } from './config.js';

/** The only process entry: config -> context -> start; signals; ordered shutdown. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`svc: configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }

  let service: Awaited<ReturnType<typeof createService>>;
  try {
    service = await createService(config);
  } catch (err) {
    const e = err as { message?: string; code?: string };
    process.stderr.write(`svc: cannot open the database (${config.database.kind}): ${e.code ? `${e.code} ` : ''}${e.message ?? String(err)}\n`);
    process.exit(1);
  }
  try {
    await service.start();
  } catch (err) {
    // a ListenError names what failed (HTTP or SMTP), the address and the port, and how to choose another; anything else says what it is
    const e = err as { message?: string; code?: string };
    const message = err instanceof ListenError ? err.message : `cannot start: ${e.code ? `${e.code} ` : ''}${e.message ?? String(err)}`;
    process.stderr.write(`svc: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
    await service.destroy().catch(() => {});
    process.exit(1);
  }
  // start() has listened, then bootstrapped: this is the start that serves, and the one that shows the secrets it created
  const firstStart = await service.bootstrap();
  const banner = bannerLogger(service.ctx.logger);
  for (const line of bannerLines(config, service.listening(), firstStart)) banner.info(line);
  if (config.adminPassword !== undefined && !firstStart.adminCreated) {
    service.ctx.logger.warn(
      'SVC_ADMIN_PASSWORD is ignored: the database already has an admin user (it only sets the first password); to set a new one run: npm run admin -- reset-password',
    );
  }

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.ctx.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      service.ctx.logger.error('shutdown took longer than 15 s; exiting');
      process.exit(1);
    }, 15_000);
    force.unref();
    service
      .destroy()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        service.ctx.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/**
 * The start banner, one log line each: every address svc listens on, the secrets this start created,
 * and last where svc is, so that a reader (or a test) that sees that line has the whole banner
 * (CONTRACT §21). In the log, so JSON lines like the rest when the output is not a terminal.
 */
function bannerLines(config: Config, listening: readonly Listening[], firstStart: BootstrapResult): string[] {
  const lines = listening.map(({ what, url }) => `listening on ${url} (${what})`);
  if (firstStart.adminCreated) lines.push('admin user:     admin');
  if (firstStart.generatedAdminPassword) lines.push(`admin password: ${firstStart.generatedAdminPassword}`);
  if (firstStart.generatedApiKey) lines.push(`API key:        ${firstStart.generatedApiKey}`);
  if (firstStart.generatedAdminPassword || firstStart.generatedApiKey) {
    lines.push('These secrets are shown once. The API key can be viewed and rotated in the admin settings; a lost password is reset with: npm run admin -- reset-password');
  } else if (!firstStart.adminCreated) {
    // a later start: whoever lost the first start's output learns where the secrets are
    lines.push('The admin password and API key were printed by the first start. The API key is under Settings in the admin area; a lost password is reset with: npm run admin -- reset-password');
  }
  lines.push(`svc is running at ${config.baseUrl}/ (admin area: ${config.baseUrl}/admin, database: ${config.database.kind})`);
  return lines;
}

void main();
