import { payoutRoutes } from '../../loop/payouts/payout.routes.js';
import { outboundMailAdminRoutes } from '../../mail/outmail/outbound-mail.routes.js';
import { adminRoutes } from '../admin/admin.routes.js';
import { adminUserRoutes } from '../admin/admin-users.routes.js';
import { affiliateApiRoutes } from '../../loop/affiliates/affiliate.routes.js';
import { clickPublicRoutes } from '../../loop/clicks/click.routes.js';
import type { AppContext } from '../../context.js';
import { mailboxApiRoutes, mailboxPublicRoutes } from '../../mail/mailboxes/mailbox.routes.js';
import { reportApiRoutes } from '../../loop/reports/report.routes.js';
import { commissionRoutes } from '../../loop/commissions/commission.routes.js';
import { commissionRuleRoutes } from '../../loop/commission-rules/commission-rule.routes.js';
import { orderRoutes } from '../../loop/orders/order.routes.js';
import { withdrawalRoutes } from '../../loop/withdrawals/withdrawal.routes.js';
import { mailApiRoutes, mailPublicRoutes } from '../../mail/messages/mail.routes.js';
import { mailtmPublicRoutes } from '../../mail/mailtm/mailtm.routes.js';
import { domainApiRoutes } from '../../mail/domains/domain.routes.js';
import { mcpRoutes } from '../../mail/mcp/mcp.routes.js';
import { deliveryAdminRoutes } from '../webhooks/delivery.routes.js';
import { csvExportRoutes } from '../exports/csv.routes.js';
import { webRoutes } from '../web/web.routes.js';
import { integrationAdminRoutes, integrationPublicRoutes } from '../../loop/integrations/integration.routes.js';
import { portalAdminRoutes, portalRoutes } from '../../loop/portal/portal.routes.js';
import type { RouteApp } from './route-schema.js';

/**
 * Every feature's routes, by where they are mounted. Adding a feature is adding its functions here:
 * `public` at the root (no auth); `api` under /api (X-API-Key, Idempotency-Key) and also under
 * /admin/api (session + CSRF); `admin` only under /admin/api. Each route declares its schemas
 * (route-schema.ts); /openapi.json is read off the registered routes.
 */
export interface Feature {
  readonly name: string;
  readonly public?: (app: RouteApp, ctx: AppContext) => void | Promise<void>;
  readonly api?: (app: RouteApp, ctx: AppContext) => void | Promise<void>;
  readonly admin?: (app: RouteApp, ctx: AppContext) => void | Promise<void>;
  /** Under /portal/api: an affiliate's session + CSRF (docs/api.md#affiliate-portal); never served under /api or /admin/api. */
  readonly portal?: (app: RouteApp, ctx: AppContext) => void | Promise<void>;
}

export const FEATURES: readonly Feature[] = [
  { name: 'admin', admin: adminRoutes },
  { name: 'admin-users', admin: adminUserRoutes },
  { name: 'affiliates', api: affiliateApiRoutes },
  { name: 'mailboxes', public: mailboxPublicRoutes, api: mailboxApiRoutes },
  { name: 'domains', api: domainApiRoutes },
  { name: 'clicks', public: clickPublicRoutes },
  { name: 'reports', api: reportApiRoutes },
  { name: 'orders', api: orderRoutes },
  { name: 'commissions', api: commissionRoutes },
  { name: 'commission-rules', api: commissionRuleRoutes },
  { name: 'withdrawals', api: withdrawalRoutes },
  { name: 'payouts', api: payoutRoutes },
  { name: 'csv-exports', api: csvExportRoutes },
  { name: 'mail', public: mailPublicRoutes, api: mailApiRoutes },
  { name: 'mailtm', public: mailtmPublicRoutes },
  { name: 'mcp', public: mcpRoutes },
  { name: 'deliveries', admin: deliveryAdminRoutes },
  { name: 'outbound-mail', admin: outboundMailAdminRoutes },
  { name: 'portal', portal: portalRoutes, admin: portalAdminRoutes },
  { name: 'integrations', public: integrationPublicRoutes, admin: integrationAdminRoutes },
  { name: 'web', public: webRoutes },
];
