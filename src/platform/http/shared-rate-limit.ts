import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor, RateLimitPluginOptions } from '@fastify/rate-limit';
import type { Clock } from '../clock.js';
import { RateLimitedError } from '../errors.js';
import type { RateWindows } from '../limits/rate-windows.js';
import { clientKey } from './client-address.js';

type Callback = Parameters<FastifyRateLimitStore['incr']>[1];

/**
 * A store for @fastify/rate-limit (its documented `store` option: a constructor, `incr(key, callback,
 * timeWindow, max)` answering `{current, ttl}`, and `child(routeOptions)` for each route with its own
 * limit) that counts in the database's windows (src/platform/limits/rate-windows.ts) instead of this process's
 * memory, so a route's limit holds for the sum over every instance (CONTRACT §16). Each route counts
 * on its own, under its method and URL, as the plugin's own store does.
 */
function windowStore(windows: RateWindows, clock: Clock): FastifyRateLimitStoreCtor {
  class WindowStore implements FastifyRateLimitStore {
    constructor(
      _options: unknown,
      private readonly scope = 'all',
    ) {}

    incr(key: string, callback: Callback, timeWindow: number, max: number): void {
      windows.hit(this.scope, key, { max, windowMs: timeWindow }).then(
        (w) => callback(null, { current: w.count, ttl: Math.max(0, w.resetsAt - clock.now()) }),
        (err: Error) => callback(err),
      );
    }

    child(routeOptions: unknown): FastifyRateLimitStore {
      // The plugin hands each route's merged options with the route under `routeInfo` (its README).
      const route = (routeOptions as { routeInfo?: { method?: string | string[]; url?: string } }).routeInfo;
      return new WindowStore(routeOptions, `${[route?.method ?? ''].flat().join(',')} ${route?.url ?? ''}`);
    }
  }
  return WindowStore;
}

/**
 * The options every per-client limited route plugin registers @fastify/rate-limit with: counted per
 * client (an IPv6 /64 is one), in the shared windows, refused with the contract's 429 body and
 * Retry-After. A route then names its limit: `config: { rateLimit: { max, timeWindow } }`.
 */
export function perClientRateLimit(windows: RateWindows, clock: Clock): RateLimitPluginOptions {
  return {
    global: false,
    store: windowStore(windows, clock),
    keyGenerator: (request) => clientKey(request.ip),
    errorResponseBuilder: (_request, context) => new RateLimitedError(Math.max(1, Math.ceil(context.ttl / 1000))),
  };
}
