import type { FastifyInstance } from 'fastify';
import { bootstrap, type BootstrapResult } from './auth/bootstrap.js';
import type { Config } from './config.js';
import { type AppContext, type ContextOverrides, createContext } from './context.js';
import { migrateToLatest } from './db/migrate.js';
import { buildApp } from './http/app.js';

export interface Service {
  readonly ctx: AppContext;
  readonly app: FastifyInstance;
  readonly firstStart: BootstrapResult;
  /** Listen on the configured host/port and start the background tasks. */
  start(): Promise<string>;
  /** Ordered shutdown: stop accepting and finish in-flight requests, stop background tasks, close the database. */
  destroy(): Promise<void>;
}

/** create -> start -> destroy; tests use create() and app.inject without start(). */
export async function createService(config: Config, overrides: ContextOverrides = {}): Promise<Service> {
  const ctx = createContext(config, overrides);
  try {
    await migrateToLatest(ctx.handle);
    const firstStart = await bootstrap(ctx.db, config, ctx.clock);
    const app = await buildApp(ctx);
    await app.ready();
    let started = false;
    let destroyed = false;
    return {
      ctx,
      app,
      firstStart,
      async start() {
        const address = await app.listen({ host: config.host, port: config.port });
        started = true;
        for (const task of ctx.background) await task.start();
        return address;
      },
      async destroy() {
        if (destroyed) return;
        destroyed = true;
        await app.close();
        if (started) {
          for (const task of [...ctx.background].reverse()) {
            await task.stop().catch((err: unknown) => ctx.logger.error({ err, task: task.name }, 'background task failed to stop'));
          }
        }
        await ctx.handle.destroy();
      },
    };
  } catch (err) {
    await ctx.handle.destroy().catch(() => {});
    throw err;
  }
}
