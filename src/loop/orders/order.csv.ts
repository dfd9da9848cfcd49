import { mapPage } from '../../platform/db/keyset.js';
import { allPages, defineCsvExport, noOtherFilters, PAGING } from '../../platform/exports/csv.routes.js';
import { listOrdersSchema, orderListItem, orderListItemView } from './order.schemas.js';

/** `/orders.csv` (docs/api.md#csv-exports): the order list's rows, through the same service call and mapper. */
export const orderCsvExport = defineCsvExport(listOrdersSchema.omit(PAGING), (ctx) => ({
  url: '/orders.csv',
  file: 'orders',
  tag: 'orders',
  summary: 'Export the order list as CSV',
  item: orderListItem,
  rows: ({ status, email, q, ...rest }) => {
    noOtherFilters(rest);
    return allPages(async (cursor) => {
      const cur = await ctx.services.settings.currency();
      return mapPage(await ctx.services.orders.list({ status, email: email || undefined, q: q || undefined, cursor, limit: ctx.config.exportPageSize }), (o) => orderListItemView(o, cur));
    });
  },
}));
