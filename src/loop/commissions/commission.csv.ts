import { mapPage } from '../../platform/db/keyset.js';
import { allPages, defineCsvExport, noOtherFilters, PAGING } from '../../platform/exports/csv.routes.js';
import { commissionBody, commissionView, listCommissionsSchema } from './commission.schemas.js';

/** `/commissions.csv` (docs/api.md#csv-exports): the commission list's rows, through the same service call and mapper. */
export const commissionCsvExport = defineCsvExport(listCommissionsSchema.omit(PAGING), (ctx) => ({
  url: '/commissions.csv',
  file: 'commissions',
  tag: 'commissions',
  summary: 'Export the commission list as CSV',
  item: commissionBody,
  rows: ({ status, ref_code, kind, ...rest }) => {
    noOtherFilters(rest);
    return allPages(async (cursor) => {
      const cur = await ctx.services.settings.currency();
      return mapPage(await ctx.services.commissions.list({ status, refCode: ref_code, kind, cursor, limit: ctx.config.exportPageSize }), (c) => commissionView(c, cur));
    });
  },
}));
