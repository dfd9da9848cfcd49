import { Readable } from 'node:stream';
import type { z } from 'zod';
import { utcDay } from '../clock.js';
import { commissionBody, commissionView, listCommissionsSchema } from '../../loop/commissions/commission.schemas.js';
import { mapPage } from '../db/keyset.js';
import type { AppContext } from '../../context.js';
import { errors } from '../http/openapi.js';
import type { RouteApp } from '../http/route-schema.js';
import { listOrdersSchema, orderListItem, orderListItemView } from '../../loop/orders/order.schemas.js';
import { summaryBody } from '../../loop/reports/report.routes.js';
import { reportQuerySchema } from '../../loop/reports/report.service.js';
import { listWithdrawalsSchema, withdrawalBody, withdrawalView } from '../../loop/withdrawals/withdrawal.schemas.js';
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
function noOtherFilters(_rest: Record<string, never>): void {}

const PAGING = { limit: true, cursor: true } as const;

interface CsvExport<Q extends z.ZodObject> {
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

/** The four exports. Mounted under /api and /admin/api, with the same auth as the JSON lists. */
export function csvExportRoutes(app: RouteApp, ctx: AppContext): void {
  const { orders, commissions, withdrawals, reports } = ctx.services;
  // rows per page read (the JSON list's own query, fetching one more)
  const pageSize = ctx.config.exportPageSize;

  csvExport(app, ctx, {
    url: '/orders.csv',
    file: 'orders',
    tag: 'orders',
    summary: 'Export the order list as CSV',
    querystring: listOrdersSchema.omit(PAGING),
    item: orderListItem,
    rows: ({ status, email, q, ...rest }) => {
      noOtherFilters(rest);
      return allPages(async (cursor) => {
        const cur = await ctx.services.settings.currency();
        return mapPage(await orders.list({ status, email: email || undefined, q: q || undefined, cursor, limit: pageSize }), (o) => orderListItemView(o, cur));
      });
    },
  });

  csvExport(app, ctx, {
    url: '/commissions.csv',
    file: 'commissions',
    tag: 'commissions',
    summary: 'Export the commission list as CSV',
    querystring: listCommissionsSchema.omit(PAGING),
    item: commissionBody,
    rows: ({ status, ref_code, kind, ...rest }) => {
      noOtherFilters(rest);
      return allPages(async (cursor) => {
        const cur = await ctx.services.settings.currency();
        return mapPage(await commissions.list({ status, refCode: ref_code, kind, cursor, limit: pageSize }), (c) => commissionView(c, cur));
      });
    },
  });

  csvExport(app, ctx, {
    url: '/withdrawals.csv',
    file: 'withdrawals',
    tag: 'withdrawals',
    summary: 'Export the withdrawal list as CSV',
    querystring: listWithdrawalsSchema.omit(PAGING),
    item: withdrawalBody,
    rows: ({ status, ref_code, ...rest }) => {
      noOtherFilters(rest);
      return allPages(async (cursor) => {
        const cur = await ctx.services.settings.currency();
        return mapPage(await withdrawals.list({ status, refCode: ref_code, cursor, limit: pageSize }), (w) => withdrawalView(w, cur));
      });
    },
  });

  csvExport(app, ctx, {
    url: '/affiliate/summary.csv',
    file: 'affiliate-summary',
    tag: 'reports',
    summary: 'Export the per-affiliate summary as CSV (one row per affiliate; the totals are not a row)',
    querystring: reportQuerySchema,
    item: summaryBody.shape.summary.element,
    // One row per affiliate, as the JSON summary reads it (the rollups, not the events), a page of
    // affiliates at a time in ref_code order.
    rows: (query) => allPages((cursor) => reports.summaryPage(query, cursor, pageSize)),
  });
}
