import Fastify from 'fastify';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { installErrorHandling, installJsonParser } from '../../src/platform/http/error-handler.js';
import { routesOf, zodValidatorCompiler } from '../../src/platform/http/route-schema.js';

/** Routes declare zod schemas; a failure is the contract's 400 with the same details parseBody gave. */
describe('route schemas (zod validator compiler)', () => {
  async function app() {
    const fastify = Fastify();
    installJsonParser(fastify);
    installErrorHandling(fastify, { bodyLimitBytes: 1024 });
    fastify.setValidatorCompiler(zodValidatorCompiler);
    const schema = {
      params: z.object({ id: z.string().max(5) }),
      querystring: z.object({ limit: z.coerce.number().int().min(1).default(50) }),
      body: z.strictObject({ name: z.string().max(3), amount: z.number() }),
    };
    routesOf(fastify).post('/things/:id', { schema }, async (request) => ({ id: request.params.id, limit: request.query.limit, body: request.body }));
    return fastify;
  }
  const invalid = (details: unknown) => ({ success: false, error: { code: 'invalid_request', message: 'Request validation failed', details } });

  it('hands the handler parsed, typed input (defaults and coercion applied)', async () => {
    const res = await (await app()).inject({ method: 'POST', url: '/things/ab', payload: { name: 'x', amount: 1 } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ id: 'ab', limit: 50, body: { name: 'x', amount: 1 } });
  });

  it('answers 400 invalid_request naming each field, as parseBody words it', async () => {
    const a = await app();
    const body = await a.inject({ method: 'POST', url: '/things/ab', payload: { name: 'long', extra: 1 } });
    expect(body.statusCode).toBe(400);
    expect(body.json()).toEqual(
      invalid([
        { field: 'name', message: 'Too big: expected string to have <=3 characters' },
        { field: 'amount', message: 'is required' },
        { field: 'extra', message: 'unknown field' },
      ]),
    );
    const wrongType = await a.inject({ method: 'POST', url: '/things/ab', payload: { name: 'x', amount: 'one' } });
    expect(wrongType.json()).toEqual(invalid([{ field: 'amount', message: 'must be a number, not a string' }]));
    const missing = await a.inject({ method: 'POST', url: '/things/ab' });
    expect(missing.json()).toEqual(invalid([{ field: 'name', message: 'is required' }, { field: 'amount', message: 'is required' }]));
    const query = await a.inject({ method: 'POST', url: '/things/ab?limit=0', payload: { name: 'x', amount: 1 } });
    expect(query.json()).toEqual(invalid([{ field: 'limit', message: 'Too small: expected number to be >=1' }]));
    const fraction = await a.inject({ method: 'POST', url: '/things/ab?limit=1.5', payload: { name: 'x', amount: 1 } });
    expect(fraction.json()).toEqual(invalid([{ field: 'limit', message: 'must be an integer' }]));
    const huge = await a.inject({ method: 'POST', url: '/things/ab', headers: { 'content-type': 'application/json' }, payload: '{"name":"x","amount":1e400}' });
    expect(huge.json()).toEqual(invalid([{ field: 'amount', message: 'must be a finite number' }]));
    const params = await a.inject({ method: 'POST', url: '/things/abcdef', payload: { name: 'x', amount: 1 } });
    expect(params.json()).toEqual(invalid([{ field: 'id', message: 'Too big: expected string to have <=5 characters' }]));
  });
});
