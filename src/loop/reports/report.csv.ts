import { allPages, defineCsvExport } from '../../platform/exports/csv.routes.js';
import { summaryBody } from './report.routes.js';
import { reportQuerySchema } from './report.service.js';

/** `/affiliate/summary.csv` (docs/api.md#csv-exports): one row per affiliate; the totals are not a row. */
export const summaryCsvExport = defineCsvExport(reportQuerySchema, (ctx) => ({
  url: '/affiliate/summary.csv',
  file: 'affiliate-summary',
  tag: 'reports',
  summary: 'Export the per-affiliate summary as CSV (one row per affiliate; the totals are not a row)',
  item: summaryBody.shape.summary.element,
  // One row per affiliate, as the JSON summary reads it (the rollups, not the events), a page of
  // affiliates at a time in ref_code order.
  rows: (query) => allPages((cursor) => ctx.services.reports.summaryPage(query, cursor, ctx.config.exportPageSize)),
}));
