import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { bootstrap, type BootstrapResult } from './platform/auth/bootstrap.js';
import type { Config } from './config.js';
import type { BackgroundTask } from './platform/background-task.js';
import { type AppContext, type ContextOverrides, createContext } from './context.js';
import { migrateToLatest } from './platform/db/migrate.js';
import { buildApp } from './platform/http/app.js';
import { FEATURES } from './composition.js';
import { ListenError } from './platform/listen-error.js';

/** One address the service listens on, for the banner: `{what: 'HTTP', url: 'http://127.0.0.1:8080'}`. */
export interface Listening {
  readonly what: string;
  readonly url: string;
}

export interface Service {
  readonly ctx: AppContext;
  readonly app: FastifyInstance;
  /**
   * What a first start creates, unless the database has it: the admin user, the API key, the webhook
   * secret. It runs once per service (later calls answer the same result). start() runs it once it
   * listens; callers that never listen (tests calling app.inject, benchmarks) call it themselves.
   */
  bootstrap(): Promise<BootstrapResult>;
  /**
   * Listen on the configured host/port, start the background tasks (SMTP among them), then bootstrap;
   * answers the HTTP address. Requests that arrive before the bootstrap is done wait for it.
   */
  start(): Promise<string>;
  /** After start(): every address the service listens on, HTTP first. */
  listening(): readonly Listening[];
  /** Ordered shutdown: stop accepting and finish in-flight requests, stop background tasks, close the database. */
  destroy(): Promise<void>;
}

function url(scheme: string, { address, port }: { address: string; port: number }): string {
  return `${scheme}://${address.includes(':') ? `[${address}]` : address}:${port}`;
}

/**
 * create -> start -> destroy; tests use create(), bootstrap() and app.inject without start().
 *
 * The first start creates the secrets only after everything listens (README.md#configuration): a start that
 * cannot listen (a busy port) has created nothing, so the next start creates them and prints them.
 * Nothing generated is ever stored in plain text waiting to be shown. Test: test/integration/first-start.test.ts.
 */
export async function createService(config: Config, overrides: ContextOverrides = {}): Promise<Service> {
  const ctx = createContext(config, overrides);
  try {
    await migrateToLatest(ctx.handle);
    // SVC_MAIL_DOMAINS seeds the mail domains of a database that has none (docs/api.md, "Domains").
    await ctx.services.domains.seed(config.mailDomains);
    let starting: Promise<void> | undefined;
    const app = await buildApp(ctx, FEATURES, { holdRequests: () => starting });
    await app.ready();
    const running: BackgroundTask[] = [];
    let created: Promise<BootstrapResult> | undefined;
    let destroyed = false;
    const service: Service = {
      ctx,
      app,
      bootstrap() {
        created ??= bootstrap(ctx.db, config, ctx.clock);
        return created;
      },
      /** A failure to listen (HTTP here, SMTP in its task) is a ListenError naming what, host and port, and how to choose another port. */
      async start() {
        let open!: () => void;
        starting = new Promise<void>((resolve) => {
          open = resolve;
        });
        try {
          let address: string;
          // Fastify logs "Server listening at …" at info by itself: the banner (main.ts) names every address instead
          const level = app.log.level;
          app.log.level = 'warn';
          try {
            address = await app.listen({ host: config.host, port: config.port });
          } catch (err) {
            throw new ListenError('HTTP', config.host, config.port, err, { variable: 'PORT' });
          } finally {
            app.log.level = level;
          }
          for (const task of ctx.background) {
            try {
              await task.start();
            } catch (err) {
              const on = task.listensOn;
              throw on ? new ListenError(on.what, on.host, on.port, err, on.setting) : err;
            }
            running.push(task);
          }
          await service.bootstrap();
          return address;
        } finally {
          starting = undefined;
          open();
        }
      },
      listening() {
        const http = app.addresses().map((a) => ({ what: 'HTTP', url: url('http', a as AddressInfo) }));
        const tasks = running.flatMap((t) => (t.listensOn ? [{ what: t.listensOn.what, url: url(t.listensOn.scheme, t.listensOn.bound()) }] : []));
        return [...http, ...tasks];
      },
      async destroy() {
        if (destroyed) return;
        destroyed = true;
        await app.close();
        // the streams are closed: what is left of this instance's leases goes before the database does
        await ctx.liveStreams.close();
        await ctx.mcpRequests.close();
        await ctx.services.messageWaits.close();
        if (running.length > 0) {
          for (const task of running.reverse()) {
            await task.stop().catch((err: unknown) => ctx.logger.error({ err, task: task.name }, 'background task failed to stop'));
          }
        }
        await ctx.contentPool.close();
        await ctx.handle.destroy();
      },
    };
    return service;
  } catch (err) {
    await ctx.contentPool.close().catch(() => {});
    await ctx.handle.destroy().catch(() => {});
    throw err;
  }
}
