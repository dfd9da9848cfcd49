import { Readable } from 'node:stream';
import type { z } from 'zod';
import { utcDay } from '../clock.js';
import type { AppContext } from '../../context.js';
import { errors } from '../http/openapi.js';
import type { RouteApp } from '../http/route-schema.js';
import { csvChunks, csvColumns } from './csv.js';

/**
 * CSV exports (docs/api.md#csv-exports): each list's export, with the same filters as its JSON list (the list's query
 * schema without limit and cursor, so a bad filter is the same 400) and its items as rows. Rows are
 * read through the same service call as the JSON list, a keyset page of `exportPageSize` rows (config) at a time, and written
 * as the client reads: the HTTP stream pulls the next page only when the socket has taken the last one
 * (backpressure), so memory stays flat at any size; a client that goes away destroys the stream, which
 * ends the loop before the next page is read. Rows added during an export are newer than its first
 * page, so they are not in it (lists are newest first).
 */

/** Bytes the response stream buffers before it stops pulling pages. */
const STREAM_BUFFER_BYTES = 64 * 1024;

interface Page<T> {
  readonly items: readonly T[];
  readonly next_cursor: string | null;
}

/** Every page of a keyset list, one after the other, until it has no next cursor. */
export async function* allPages<T>(page: (cursor: string | undefined) => Promise<Page<T>>): AsyncGenerator<readonly T[]> {
  let cursor: string | undefined;
  do {
    const p = await page(cursor);
    if (p.items.length > 0) yield p.items;
    cursor = p.next_cursor ?? undefined;
  } while (cursor !== undefined);
}

/**
 * Compile-time guard: a filter added to a JSON list's query schema must also be passed on here, or the
 * export would silently ignore it. `rest` is what the destructuring did not name.
 */
export function noOtherFilters(_rest: Record<string, never>): void {}

/** What a JSON list's query has that its export does not: `listSchema.omit(PAGING)`. */
export const PAGING = { limit: true, cursor: true } as const;

/** One list's export, as its feature declares it (src/composition.ts hands them to csvExportRoutes). */
export interface CsvExport<Q extends z.ZodObject> {
  readonly url: string;
  readonly file: string;
  readonly tag: string;
  readonly summary: string;
  readonly querystring: Q;
  /** The JSON list's item schema: the columns. */
  readonly item: z.ZodType;
  readonly rows: (query: z.output<Q>) => AsyncIterable<readonly unknown[]>;
}

function csvExport<Q extends z.ZodObject>(app: RouteApp, ctx: AppContext, spec: CsvExport<Q>): void {
  const columns = csvColumns(spec.item);
  const schema = {
    tags: [spec.tag],
    summary: spec.summary,
    description: `Every row that the JSON list answers for the same filters, without paging, as RFC 4180 CSV (UTF-8, CRLF). Header: ${columns.map((c) => c.name).join(', ')}. Money with the currency's decimals (USD 2, JPY 0, KWD 3); null is an empty cell; a text cell starting with =, +, -, @, tab or CR is prefixed with '. Streamed.`,
    querystring: spec.querystring,
    responses: {
      200: {
        description: 'text/csv; charset=utf-8, as a download',
        mediaType: 'text/csv',
        headers: { 'Content-Disposition': `attachment; filename="${spec.file}-YYYY-MM-DD.csv" (today, UTC)` },
      },
      ...errors(400),
    },
  };
  app.get(spec.url, { schema }, async (request, reply) => {
    reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="${spec.file}-${utcDay(ctx.clock.now())}.csv"`)
      .header('cache-control', 'no-store');
    // HEAD (served by this handler too): the headers only. A stream handed to Fastify's HEAD route would
    // be drained to the end, reading every row for nothing.
    if (request.method === 'HEAD') return reply.send();
    const cur = await ctx.services.settings.currency();
    return reply.send(Readable.from(csvChunks(columns, spec.rows(request.query as z.output<Q>), cur), { objectMode: false, highWaterMark: STREAM_BUFFER_BYTES }));
  });
}

/** A feature's export, built with the app's context (its services, `exportPageSize`: rows per page read). */
export type CsvExportOf = (ctx: AppContext) => CsvExport<z.ZodObject>;

/** Declares a feature's export; the query's type is checked here and erased for the list of exports. */
export function defineCsvExport<Q extends z.ZodObject>(querystring: Q, make: (ctx: AppContext) => Omit<CsvExport<Q>, 'querystring'>): CsvExportOf {
  return ((ctx: AppContext) => ({ ...make(ctx), querystring })) as unknown as CsvExportOf;
}

/** The exports the features declare. Mounted under /api and /admin/api, with the same auth as the JSON lists. */
export function csvExportRoutes(exports: readonly CsvExportOf[]): (app: RouteApp, ctx: AppContext) => void {
  return (app, ctx) => {
    for (const make of exports) csvExport(app, ctx, make(ctx));
  };
}
