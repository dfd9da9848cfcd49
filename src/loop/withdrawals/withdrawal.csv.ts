import { mapPage } from '../../platform/db/keyset.js';
import { allPages, defineCsvExport, noOtherFilters, PAGING } from '../../platform/exports/csv.routes.js';
import { listWithdrawalsSchema, withdrawalBody, withdrawalView } from './withdrawal.schemas.js';

/** `/withdrawals.csv` (docs/api.md#csv-exports): the withdrawal list's rows, through the same service call and mapper. */
export const withdrawalCsvExport = defineCsvExport(listWithdrawalsSchema.omit(PAGING), (ctx) => ({
  url: '/withdrawals.csv',
  file: 'withdrawals',
  tag: 'withdrawals',
  summary: 'Export the withdrawal list as CSV',
  item: withdrawalBody,
  rows: ({ status, ref_code, ...rest }) => {
    noOtherFilters(rest);
    return allPages(async (cursor) => {
      const cur = await ctx.services.settings.currency();
      return mapPage(await ctx.services.withdrawals.list({ status, refCode: ref_code, cursor, limit: ctx.config.exportPageSize }), (w) => withdrawalView(w, cur));
    });
  },
}));
