import type { FastifyInstance } from 'fastify';
import { bootstrap, type BootstrapResult } from './auth/bootstrap.js';
import type { Config } from './config.js';
import type { BackgroundTask } from './background-task.js';
import { type AppContext, type ContextOverrides, createContext } from './context.js';
import { migrateToLatest } from './db/migrate.js';
import { buildApp } from './http/app.js';
import { ListenError } from './listen-error.js';

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
    const running: BackgroundTask[] = [];
    let destroyed = false;
    return {
      ctx,
      app,
      firstStart,
      /** A failure to listen (HTTP here, SMTP in its task) is a ListenError naming what, host and port. */
      async start() {
        let address: string;
        try {
          address = await app.listen({ host: config.host, port: config.port });
        } catch (err) {
          throw new ListenError('HTTP', config.host, config.port, err);
        }
        for (const task of ctx.background) {
          try {
            await task.start();
          } catch (err) {
            throw task.listensOn ? new ListenError(task.listensOn.what, task.listensOn.host, task.listensOn.port, err) : err;
          }
          running.push(task);
        }
        return address;
      },
      async destroy() {
        if (destroyed) return;
        destroyed = true;
        await app.close();
        // the streams are closed: what is left of this instance's leases goes before the database does
        await ctx.liveStreams.close();
        if (running.length > 0) {
          for (const task of running.reverse()) {
            await task.stop().catch((err: unknown) => ctx.logger.error({ err, task: task.name }, 'background task failed to stop'));
          }
        }
        await ctx.contentPool.close();
        await ctx.handle.destroy();
      },
    };
  } catch (err) {
    await ctx.contentPool.close().catch(() => {});
    await ctx.handle.destroy().catch(() => {});
    throw err;
  }
}
