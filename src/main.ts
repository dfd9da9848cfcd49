import './supported-node.js';
import { ConfigError, loadConfig } from './config.js';
import { ListenError } from './listen-error.js';
import { createService } from './server.js';

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
  let address: string;
  try {
    address = await service.start();
  } catch (err) {
    // a ListenError names what failed (HTTP or SMTP), the address and the port; anything else says what it is
    const e = err as { message?: string; code?: string };
    const message = err instanceof ListenError ? err.message : `cannot start: ${e.code ? `${e.code} ` : ''}${e.message ?? String(err)}`;
    process.stderr.write(`svc: ${message.replace(/\s*\n\s*/g, ' ')}\n`);
    await service.destroy().catch(() => {});
    process.exit(1);
  }

  const { firstStart } = service;
  const lines = [
    `svc is running at ${config.baseUrl}/  (admin area: ${config.baseUrl}/admin, database: ${config.database.kind})`,
    `  listening on ${address}`,
  ];
  if (firstStart.adminCreated) {
    lines.push(`  admin user:     admin`);
    if (firstStart.generatedAdminPassword) lines.push(`  admin password: ${firstStart.generatedAdminPassword}`);
  }
  if (firstStart.generatedApiKey) lines.push(`  API key:        ${firstStart.generatedApiKey}`);
  if (firstStart.generatedAdminPassword || firstStart.generatedApiKey) {
    lines.push('  These secrets are shown once. The API key can be viewed and rotated in the admin settings.');
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  if (config.adminPassword !== undefined && !firstStart.adminCreated) {
    process.stderr.write(
      'svc: SVC_ADMIN_PASSWORD is ignored: the database already has an admin user (it only sets the first password); to set a new one run: npm run admin -- reset-password\n',
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

void main();
