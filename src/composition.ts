import { payoutRoutes } from './loop/payouts/payout.routes.js';
import { outboundMailAdminRoutes } from './mail/outmail/outbound-mail.routes.js';
import { adminRoutes } from './platform/admin/admin.routes.js';
import { adminUserRoutes } from './platform/admin/admin-users.routes.js';
import { affiliateApiRoutes } from './loop/affiliates/affiliate.routes.js';
import { clickAdminRoutes, clickApiRoutes, clickPublicRoutes, isPromotionLink, redirectUnknownCode } from './loop/clicks/click.routes.js';
import { mailboxApiRoutes, mailboxPublicRoutes } from './mail/mailboxes/mailbox.routes.js';
import { reportApiRoutes } from './loop/reports/report.routes.js';
import { summaryCsvExport } from './loop/reports/report.csv.js';
import { commissionRoutes } from './loop/commissions/commission.routes.js';
import { fraudRoutes } from './loop/fraud/fraud.routes.js';
import { commissionCsvExport } from './loop/commissions/commission.csv.js';
import { commissionRuleRoutes } from './loop/commission-rules/commission-rule.routes.js';
import { orderRoutes } from './loop/orders/order.routes.js';
import { orderCsvExport } from './loop/orders/order.csv.js';
import { withdrawalRoutes } from './loop/withdrawals/withdrawal.routes.js';
import { withdrawalCsvExport } from './loop/withdrawals/withdrawal.csv.js';
import { mailApiRoutes, mailPublicRoutes } from './mail/messages/mail.routes.js';
import { mailtmPublicRoutes } from './mail/mailtm/mailtm.routes.js';
import { domainApiRoutes } from './mail/domains/domain.routes.js';
import { mcpRoutes } from './mail/mcp/mcp.routes.js';
import { deliveryAdminRoutes } from './platform/webhooks/delivery.routes.js';
import { csvExportRoutes } from './platform/exports/csv.routes.js';
import { webRoutes } from './platform/web/web.routes.js';
import type { Feature } from './platform/http/features.js';
import { integrationAdminRoutes, integrationPublicRoutes } from './loop/integrations/integration.routes.js';
import { portalAdminRoutes, portalRoutes } from './loop/portal/portal.routes.js';

// The composition: the one place that names every feature of both areas and hands them to the
// platform's registries (docs/architecture.md#module-map). platform/ imports nothing from loop/ or
// mail/ (test/unit/area-imports.test.ts); each feature's routes, CSV exports, event payloads and
// settings are its own, listed here.

/** Every feature's routes, by where they are mounted (platform/http/features.ts); the order is /openapi.json's. */
export const FEATURES: readonly Feature[] = [
  { name: 'admin', admin: adminRoutes },
  { name: 'admin-users', admin: adminUserRoutes },
  { name: 'affiliates', api: affiliateApiRoutes },
  { name: 'mailboxes', public: mailboxPublicRoutes, api: mailboxApiRoutes },
  { name: 'domains', api: domainApiRoutes },
  { name: 'clicks', public: clickPublicRoutes, api: clickApiRoutes, admin: clickAdminRoutes, unroutable: { matches: isPromotionLink, answer: redirectUnknownCode } },
  { name: 'reports', api: reportApiRoutes },
  { name: 'orders', api: orderRoutes },
  { name: 'commissions', api: commissionRoutes },
  { name: 'commission-rules', api: commissionRuleRoutes },
  { name: 'fraud', api: fraudRoutes },
  { name: 'withdrawals', api: withdrawalRoutes },
  { name: 'payouts', api: payoutRoutes },
  // each list's CSV export, declared by its feature (docs/api.md#csv-exports)
  { name: 'csv-exports', api: csvExportRoutes([orderCsvExport, commissionCsvExport, withdrawalCsvExport, summaryCsvExport]) },
  { name: 'mail', public: mailPublicRoutes, api: mailApiRoutes },
  { name: 'mailtm', public: mailtmPublicRoutes },
  { name: 'mcp', public: mcpRoutes },
  { name: 'deliveries', admin: deliveryAdminRoutes },
  { name: 'outbound-mail', admin: outboundMailAdminRoutes },
  { name: 'portal', portal: portalRoutes, admin: portalAdminRoutes },
  { name: 'integrations', public: integrationPublicRoutes, admin: integrationAdminRoutes },
  { name: 'web', public: webRoutes },
];
