import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import { ConflictError, ValidationError } from '../errors.js';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  deleteStaleIdempotencyKey,
  findIdempotencyKey,
  purgeIdempotencyKeys,
  releaseIdempotencyKey,
} from './idempotency.repository.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set while this request holds an Idempotency-Key claim that onSend must settle. */
    idempotencyKey?: string;
  }
}

/** CONTRACT §6 asks for at least 24 hours; an hour of margin keeps clock skew between instances harmless. */
export const IDEMPOTENCY_TTL_MS = 25 * 60 * 60 * 1000;
/** A claim still "processing" after this long belongs to a request that died (crash); it may be taken over. */
const ABANDONED_AFTER_MS = 5 * 60 * 1000;
const PURGE_EVERY_MS = 60 * 1000;
/** How long a repeat of a request that is still running waits for its answer before 409. */
const IN_PROGRESS_WAIT_MS = 10_000;
const KEY_RE = /^[\x21-\x7e]{1,255}$/;

/** Key order must not make two equal bodies differ. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * `Idempotency-Key` on every POST under /api (CONTRACT §6). The key is claimed (a row in state
 * processing) before the request is validated and settled in onSend: the response is stored and replayed for the
 * same key, method, path and body; a different request under the key, or a duplicate while the first is
 * still running, is 409 idempotency_conflict; a 5xx releases the key so the client may retry.
 */
export function registerIdempotency(api: FastifyInstance, ctx: AppContext, keyScope?: (request: FastifyRequest) => string): void {
  let lastPurge = Number.NEGATIVE_INFINITY;

  // preValidation, not preHandler: the key is claimed before the route's schemas validate the body, so
  // an invalid body is answered (400) and replayed under its key like any other answer.
  api.addHook('preValidation', async (request: FastifyRequest, reply: FastifyReply) => {
    if (request.method !== 'POST') return;
    const header = request.headers['idempotency-key'];
    if (header === undefined) return;
    const given = Array.isArray(header) ? header[0] : header;
    if (given === undefined || !KEY_RE.test(given)) {
      throw new ValidationError([{ field: 'Idempotency-Key', message: 'must be 1-255 visible ASCII characters' }]);
    }
    // A mount whose callers must not share keys (the portal's affiliates) stores them under its scope.
    const key = keyScope ? `${keyScope(request)}${given}` : given;
    const now = ctx.clock.now();
    if (now - lastPurge >= PURGE_EVERY_MS || now < lastPurge) {
      lastPurge = now;
      await purgeIdempotencyKeys(ctx.db, now - IDEMPOTENCY_TTL_MS);
    }
    const path = request.url.split('?')[0] ?? request.url;
    const requestHash = createHash('sha256').update(`${request.method} ${path}\n${canonicalJson(request.body)}`).digest('hex');
    const row = { key, method: request.method, path, request_hash: requestHash, state: 'processing' as const, response_status: null, response_body: null, created_at: now };

    // The same request while the first is still running waits for its answer (up to IN_PROGRESS_WAIT_MS)
    // and gets it replayed, as CONTRACT §6 says, on both databases alike.
    const waitUntil = performance.now() + IN_PROGRESS_WAIT_MS;
    let pause = 10;
    for (let races = 0; races < 3; ) {
      if (await claimIdempotencyKey(ctx.db, row)) {
        request.idempotencyKey = key;
        return;
      }
      const existing = await findIdempotencyKey(ctx.db, key);
      if (!existing) {
        races++; // released or purged in between: claim again
        continue;
      }
      const expired = existing.created_at < now - IDEMPOTENCY_TTL_MS;
      const abandoned = existing.state === 'processing' && existing.created_at < now - ABANDONED_AFTER_MS;
      if (expired || abandoned) {
        await deleteStaleIdempotencyKey(ctx.db, key, existing.created_at);
        races++;
        continue;
      }
      if (existing.request_hash !== requestHash) {
        throw new ConflictError('idempotency_conflict', 'This Idempotency-Key was used for a different request');
      }
      if (existing.state !== 'done' || existing.response_status === null || existing.response_body === null) {
        if (performance.now() >= waitUntil) {
          throw new ConflictError('idempotency_conflict', 'A request with this Idempotency-Key is still in progress');
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
        pause = Math.min(pause * 2, 200);
        continue;
      }
      return reply
        .code(existing.response_status)
        .header('content-type', 'application/json; charset=utf-8')
        .header('idempotent-replayed', 'true')
        .send(existing.response_body);
    }
    throw new ConflictError('idempotency_conflict', 'This Idempotency-Key is contended; retry');
  });

  api.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const key = request.idempotencyKey;
    if (key === undefined) return payload;
    request.idempotencyKey = undefined;
    if (reply.statusCode >= 500 || typeof payload !== 'string') {
      await releaseIdempotencyKey(ctx.db, key);
    } else {
      await completeIdempotencyKey(ctx.db, key, reply.statusCode, payload);
    }
    return payload;
  });
}
