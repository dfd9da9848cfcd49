import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifySchemaCompiler,
  FastifyTypeProvider,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { z } from 'zod';
import { parseBody } from '../validation.js';
import type { ApiResponse, Auth } from './openapi.js';

/**
 * Routes declare their schemas once, on the route (STYLE.md, "Declare once"): `params`, `querystring` and
 * `body` are zod schemas that validate the request before the handler runs and type what it receives;
 * `summary`, `description`, `tags`, `auth` and `responses` describe it. /openapi.json is built from the
 * registered routes (openapi.ts), so the document and the validation cannot drift apart.
 *
 * In-house rather than fastify-type-provider-zod: that library needs @fastify/swagger (and openapi-types)
 * as peers and reports failures in its own format, while ours must keep the contract's `details`
 * ({field, message}, parseBody's wording) exactly, and the document has parts swagger does not make
 * (webhooks from the events catalogue, the Idempotency-Key header, one entry for /api and /admin/api).
 */
declare module 'fastify' {
  interface FastifySchema {
    /** The tag of the operation in /openapi.json (routes under /admin/api are tagged `admin`). */
    readonly tags?: readonly string[];
    /** A route with a summary is an operation of /openapi.json; one without is not described. */
    readonly summary?: string;
    readonly description?: string;
    /** Only where the mount does not say it: /api is apiKey, /admin/api adminSession, the rest none. */
    readonly auth?: Auth;
    /** Answers by status. Not used to serialise (bodies go out as the handler built them); tests parse real answers with them. */
    readonly responses?: Readonly<Record<number, ApiResponse>>;
  }
}

/** Handlers see `request.body`, `request.query` and `request.params` as the output of the route's zod schemas. */
export interface ZodTypeProvider extends FastifyTypeProvider {
  readonly validator: this['schema'] extends z.ZodType ? z.output<this['schema']> : unknown;
  readonly serializer: this['schema'] extends z.ZodType ? z.input<this['schema']> : unknown;
}

/** What every feature's route functions are given: the app (or a plugin scope) with zod-typed routes. */
export type RouteApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, ZodTypeProvider>;

export function routesOf(app: FastifyInstance): RouteApp {
  return app.withTypeProvider<ZodTypeProvider>();
}

/**
 * Validation failures become the same 400 invalid_request the handlers used to throw with parseBody:
 * the error handler sends any AppError as the contract's body, `details` naming each field.
 */
export const zodValidatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema }) => {
  return (data: unknown) => {
    try {
      return { value: parseBody(schema, data) };
    } catch (err) {
      return { error: err as Error };
    }
  };
};
