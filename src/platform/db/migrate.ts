import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { DatabaseHandle, Dialect } from './database.js';
import { foundation } from './migrations/0001-foundation.js';
import { attribution } from './migrations/0002-attribution.js';
import { mail } from './migrations/0005-mail.js';
import { delivery } from './migrations/0004-delivery.js';
import { loginFailures } from './migrations/0006-login-failures.js';
import { mailContents } from './migrations/0007-mail-contents.js';
import { loginThrottle } from './migrations/0010-login-throttle.js';
import { revenue } from './migrations/0013-revenue.js';
import { ledger } from './migrations/0020-ledger.js';
import { counterStripes } from './migrations/0021-counter-stripes.js';
import { listOrderIndexes } from './migrations/0027-list-order-indexes.js';
import { messageSource } from './migrations/0030-message-source.js';
import { mailtm } from './migrations/0031-mailtm.js';
import { sourceHtml } from './migrations/0032-source-html.js';
import { messageCode } from './migrations/0035-message-code.js';
import { portal } from './migrations/0040-portal.js';
import { filteredListIndexes } from './migrations/0041-filtered-list-indexes.js';
import { uncommissionedOrders } from './migrations/0042-uncommissioned-orders.js';
import { fraudReview } from './migrations/0111-fraud-review.js';
import { holdingFromPayment } from './migrations/0044-holding-from-payment.js';
import { balanceStripes } from './migrations/0043-balance-stripes.js';
import { sharedLimits } from './migrations/0045-shared-limits.js';
import { mailboxByteQuota } from './migrations/0046-mailbox-byte-quota.js';
import { integrations } from './migrations/0050-integrations.js';
import { outboundMail } from './migrations/0060-outbound-mail.js';
import { mailDomains } from './migrations/0070-mail-domains.js';
import { messageLinks } from './migrations/0080-message-links.js';
import { messageSearch } from './migrations/0081-message-search.js';
import { payouts } from './migrations/0090-payouts.js';
import { payoutScheduleMonths } from './migrations/0091-payout-schedule-months.js';
import { scopedMessageSearch } from './migrations/0100-scoped-message-search.js';
import { emailConfirmation } from './migrations/0101-email-confirmation.js';
import { domainPublic } from './migrations/0102-domain-public.js';
import { paddleWaiting } from './migrations/0103-paddle-waiting.js';
import { clickLog } from './migrations/0110-click-log.js';

/**
 * Versioned migrations, in order. Each is a function of the dialect so that the few dialect-specific
 * column types stay in one place. Append new ones; never edit one that has shipped.
 */
const MIGRATIONS: ReadonlyArray<readonly [string, (dialect: Dialect) => Migration]> = [
  ['0001-foundation', foundation],
  ['0002-attribution', attribution],
  ['0004-delivery', delivery],
  ['0005-mail', mail],
  ['0006-login-failures', loginFailures],
  ['0007-mail-contents', mailContents],
  ['0010-login-throttle', loginThrottle],
  ['0013-revenue', revenue],
  ['0020-ledger', ledger],
  ['0021-counter-stripes', counterStripes],
  ['0027-list-order-indexes', listOrderIndexes],
  ['0030-message-source', messageSource],
  ['0031-mailtm', mailtm],
  ['0032-source-html', sourceHtml],
  ['0035-message-code', messageCode],
  ['0040-portal', portal],
  ['0041-filtered-list-indexes', filteredListIndexes],
  ['0042-uncommissioned-orders', uncommissionedOrders],
  ['0043-balance-stripes', balanceStripes],
  ['0044-holding-from-payment', holdingFromPayment],
  ['0045-shared-limits', sharedLimits],
  ['0046-mailbox-byte-quota', mailboxByteQuota],
  ['0050-integrations', integrations],
  ['0060-outbound-mail', outboundMail],
  ['0070-mail-domains', mailDomains],
  ['0080-message-links', messageLinks],
  ['0081-message-search', messageSearch],
  ['0090-payouts', payouts],
  ['0091-payout-schedule-months', payoutScheduleMonths],
  ['0100-scoped-message-search', scopedMessageSearch],
  ['0101-email-confirmation', emailConfirmation],
  ['0102-domain-public', domainPublic],
  ['0103-paddle-waiting', paddleWaiting],
  ['0110-click-log', clickLog],
  ['0111-fraud-review', fraudReview],
];

class InCodeProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return Object.fromEntries(MIGRATIONS.map(([name, make]) => [name, make(this.dialect)]));
  }
}

/** Applies every pending migration; safe to call from many instances at once (Kysely takes a lock). */
export async function migrateToLatest(handle: DatabaseHandle): Promise<string[]> {
  const migrator = new Migrator({
    db: handle.db,
    provider: new InCodeProvider(handle.dialect),
    // Migrations are independent of one another, and one (0002) reached main after later-numbered ones:
    // a database migrated in between must still get it rather than refuse to start.
    allowUnorderedMigrations: true,
    // Kysely looks for its bookkeeping tables in every schema unless told which one is ours.
    ...(handle.schema ? { migrationTableSchema: handle.schema } : {}),
  });
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest().catch((err: unknown) => ({ error: err, results: undefined }));
    if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    // Kysely's introspection (every table of every schema in the database) fails with "schema/relation/
    // column does not exist" when ANOTHER schema is dropped or altered while it runs (parallel test
    // suites, other tenants). A failed run rolls back (PostgreSQL migrates in one transaction under
    // Kysely's lock), so running it again is safe.
    const code = (error as { code?: string }).code;
    if (attempt < 5 && handle.dialect === 'postgres' && (code === '3F000' || code === '42P01' || code === '42703' || code === 'XX000')) {
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      continue;
    }
    throw error instanceof Error ? error : new Error(String(error));
  }
}
