import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../context.js';
import type { RouteApp } from './route-schema.js';

/**
 * Every feature's routes, by where they are mounted. The features are listed at composition time
 * (src/composition.ts) and handed to buildApp; the platform never names one. Mounts:
 * `public` at the root (no auth); `api` under /api (X-API-Key, Idempotency-Key) and also under
 * /admin/api (session + CSRF); `admin` only under /admin/api. Each route declares its schemas
 * (route-schema.ts); /openapi.json is read off the registered routes.
 */
export interface Feature {
  readonly name: string;
  readonly public?: (app: RouteApp, ctx: AppContext) => void | Promise<void>;
  readonly api?: (app: RouteApp, ctx: AppContext) => void | Promise<void>;
  readonly admin?: (app: RouteApp, ctx: AppContext) => void | Promise<void>;
  /** Under /portal/api: an affiliate's session + CSRF (docs/api.md#affiliate-portal); never served under /api or /admin/api. */
  readonly portal?: (app: RouteApp, ctx: AppContext) => void | Promise<void>;
  /**
   * URLs this feature answers even when they cannot be routed (bad percent-encoding, a NUL): `matches`
   * says whose they are, `answer` replies (the promotion link always lands somewhere).
   */
  readonly unroutable?: {
    readonly matches: (url: string) => boolean;
    readonly answer: (ctx: AppContext, reply: FastifyReply) => Promise<void>;
  };
}

