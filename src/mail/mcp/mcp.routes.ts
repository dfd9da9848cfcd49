import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { AppError, UnauthorizedError } from '../../platform/errors.js';
import { clientKey } from '../../platform/http/client-address.js';
import { holdOpenFor } from '../../platform/http/idle-timeout.js';
import { errors } from '../../platform/http/openapi.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { createMcpServer } from './mcp.server.js';

/** The API key as `Authorization: Bearer <key>` (what MCP clients send), or as X-API-Key. */
async function authorize(ctx: AppContext, request: FastifyRequest): Promise<void> {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  const presented = match?.[1] ?? (typeof request.headers['x-api-key'] === 'string' ? request.headers['x-api-key'] : undefined);
  if (!(await ctx.services.apiKeys.verify(presented))) throw new UnauthorizedError('Missing or wrong API key (Authorization: Bearer <API key>)');
}

/**
 * `POST /mcp`: the Model Context Protocol over the Streamable HTTP transport, stateless (docs/mcp.md): each
 * request gets its own server and transport, answered as JSON; nothing is kept between requests, so any
 * instance answers any request.
 */
export function mcpRoutes(app: RouteApp, ctx: AppContext): void {
  const schema = {
    tags: ['mcp'],
    summary: 'Model Context Protocol (Streamable HTTP, stateless)',
    description:
      'JSON-RPC messages of the Model Context Protocol with `Authorization: Bearer <API key>`. Tools: create_mailbox, wait_for_message, list_messages, read_message, affiliate_summary (docs/mcp.md).',
    auth: 'apiKey' as const,
    body: z.unknown(),
    responses: { 200: { description: 'A JSON-RPC answer', mediaType: 'application/json' }, ...errors(400, 401, 429) },
  };
  // the key is checked in onRequest, before the body is read or parsed (docs/architecture.md#every-route)
  app.post('/mcp', { schema, onRequest: (request) => authorize(ctx, request) }, async (request, reply) => {
    // Each request holds a slot of its client's long-request budget until its connection's answer is done
    // or the client has gone (README.md#limits); a refusal is a 429 before anything is written.
    const release = await ctx.mcpRequests.acquire(clientKey(request.ip));
    // A client that goes away ends a wait_for_message at once.
    const gone = new AbortController();
    const server = createMcpServer(ctx.services, {
      signal: gone.signal,
      // not put back: Node sets the kept-alive timeout itself once the answer is sent
      holdOpen: (ms) => void holdOpenFor(reply.raw, ms),
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    let closed = false;
    const close = () => {
      if (closed) return;
      closed = true;
      release();
      gone.abort();
      void transport.close();
      void server.close();
    };
    reply.raw.once('close', close);
    // A client that hung up while the key was checked has no 'close' left to come: its slot would leak.
    if (request.raw.socket?.destroyed) return close();
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (err) {
      close();
      throw err;
    }
  });

  const notHere = {
    tags: ['mcp'],
    summary: 'Not served: the MCP endpoint is stateless (no stream to open, no session to end)',
    responses: errors(405),
  };
  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      schema: notHere,
      handler: async () => {
        throw new AppError(405, 'method_not_allowed', 'POST JSON-RPC messages to /mcp: this server is stateless (no stream to open, no session to end)', undefined, { allow: 'POST' });
      },
    });
  }
}
