import type { FastifyInstance } from 'fastify';
import { adminRoutes } from '../admin/admin.routes.js';
import { affiliateAdminRoutes, affiliateApiRoutes } from '../affiliates/affiliate.routes.js';
import { clickPublicRoutes } from '../clicks/click.routes.js';
import type { AppContext } from '../context.js';
import { mailboxApiRoutes, mailboxPublicRoutes } from '../mailboxes/mailbox.routes.js';
import { reportApiRoutes } from '../reports/report.routes.js';
import { commissionRoutes } from '../commissions/commission.routes.js';
import { orderRoutes } from '../orders/order.routes.js';
import { withdrawalRoutes } from '../withdrawals/withdrawal.routes.js';
import { mailApiRoutes, mailPublicRoutes } from '../mail/mail.routes.js';
import { deliveryAdminRoutes } from '../webhooks/delivery.routes.js';
import { webRoutes } from '../web/web.routes.js';
import { affiliateOperations } from '../affiliates/affiliate.openapi.js';
import { clickOperations } from '../clicks/click.openapi.js';
import { commissionOperations } from '../commissions/commission.openapi.js';
import { mailOperations } from '../mail/mail.openapi.js';
import { mailboxOperations } from '../mailboxes/mailbox.openapi.js';
import { orderOperations } from '../orders/order.openapi.js';
import { reportOperations } from '../reports/report.openapi.js';
import { withdrawalOperations } from '../withdrawals/withdrawal.openapi.js';
import type { ApiOperation } from './openapi.js';

/**
 * Every feature's routes, by where they are mounted. Adding a feature is adding its functions here:
 * `public` at the root (no auth); `api` under /api (X-API-Key, Idempotency-Key) and also under
 * /admin/api (session + CSRF); `admin` only under /admin/api.
 */
export interface Feature {
  readonly name: string;
  readonly public?: (app: FastifyInstance, ctx: AppContext) => void | Promise<void>;
  readonly api?: (app: FastifyInstance, ctx: AppContext) => void | Promise<void>;
  readonly admin?: (app: FastifyInstance, ctx: AppContext) => void | Promise<void>;
  /** Its public and /api operations as served in /openapi.json (admin-only routes are not described). */
  readonly openapi?: readonly ApiOperation[];
}

export const FEATURES: readonly Feature[] = [
  { name: 'admin', admin: adminRoutes },
  { name: 'affiliates', api: affiliateApiRoutes, admin: affiliateAdminRoutes, openapi: affiliateOperations },
  { name: 'mailboxes', public: mailboxPublicRoutes, api: mailboxApiRoutes, openapi: mailboxOperations },
  { name: 'clicks', public: clickPublicRoutes, openapi: clickOperations },
  { name: 'reports', api: reportApiRoutes, openapi: reportOperations },
  { name: 'orders', api: orderRoutes, openapi: orderOperations },
  { name: 'commissions', api: commissionRoutes, openapi: commissionOperations },
  { name: 'withdrawals', api: withdrawalRoutes, openapi: withdrawalOperations },
  { name: 'mail', public: mailPublicRoutes, api: mailApiRoutes, openapi: mailOperations },
  { name: 'deliveries', admin: deliveryAdminRoutes },
  { name: 'web', public: webRoutes },
];
