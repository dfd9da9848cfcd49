import type { Insertable, Selectable, Updateable } from 'kysely';
import type { AffiliateAccountsTable, AffiliateInvitesTable, AffiliateSessionsTable, AffiliateStatsTable, AffiliatesTable, BillingCustomersTable, ClicksTable, CommissionRulesTable, CommissionsTable, DailyStatsTable, FraudCasesTable, IntegrationEventsTable, OrdersTable, PayoutBatchesTable, PayoutScheduleMonthsTable, PayoutScheduleRunsTable, PortalSignInsTable, ReferralsTable, WithdrawalsTable } from './loop.tables.js';
import type { MailDomainsTable, MailboxesTable, MailtmAccountsTable, MailtmTokensTable, MessageAttachmentsTable, MessageContentsTable, MessageSourceChunksTable, MessagesTable, OutboundMailTable } from './mail.tables.js';
import type { AdminSessionsTable, AdminUsersTable, DeliveriesTable, DeliveryAttemptsTable, EventsTable, IdempotencyKeysTable, LimitLeaseKeysTable, LimitLeasesTable, LoginAttemptsTable, LoginThrottleKeysTable, MaintenanceRunsTable, RateLimitWindowsTable, SettingsTable } from './platform.tables.js';

/**
 * Table types shared by both dialects. Times are epoch milliseconds (bigint), money is integer cents
 * (bigint), rates are hundredths of a percent; JSON is stored as text. The pg driver is told to parse
 * int8 and numeric as JS numbers (db/database.ts), so both dialects hand back the same shapes.
 * Each area's tables are in a file of their own (platform.tables.ts, loop.tables.ts, mail.tables.ts);
 * this module is the one import path for all of them.
 */
export type * from './loop.tables.js';
export type * from './mail.tables.js';
export type * from './platform.tables.js';

export interface Database {
  settings: SettingsTable;
  admin_users: AdminUsersTable;
  admin_sessions: AdminSessionsTable;
  login_throttle_keys: LoginThrottleKeysTable;
  login_attempts: LoginAttemptsTable;
  rate_limit_windows: RateLimitWindowsTable;
  limit_lease_keys: LimitLeaseKeysTable;
  limit_leases: LimitLeasesTable;
  maintenance_runs: MaintenanceRunsTable;
  affiliates: AffiliatesTable;
  affiliate_accounts: AffiliateAccountsTable;
  affiliate_sessions: AffiliateSessionsTable;
  affiliate_invites: AffiliateInvitesTable;
  outbound_mail: OutboundMailTable;
  clicks: ClicksTable;
  mail_domains: MailDomainsTable;
  mailboxes: MailboxesTable;
  referrals: ReferralsTable;
  orders: OrdersTable;
  integration_events: IntegrationEventsTable;
  billing_customers: BillingCustomersTable;
  commissions: CommissionsTable;
  fraud_cases: FraudCasesTable;
  portal_sign_ins: PortalSignInsTable;
  commission_rules: CommissionRulesTable;
  withdrawals: WithdrawalsTable;
  payout_batches: PayoutBatchesTable;
  payout_schedule_runs: PayoutScheduleRunsTable;
  payout_schedule_months: PayoutScheduleMonthsTable;
  daily_stats: DailyStatsTable;
  affiliate_stats: AffiliateStatsTable;
  idempotency_keys: IdempotencyKeysTable;
  events: EventsTable;
  messages: MessagesTable;
  message_contents: MessageContentsTable;
  message_attachments: MessageAttachmentsTable;
  message_source_chunks: MessageSourceChunksTable;
  mailtm_accounts: MailtmAccountsTable;
  mailtm_tokens: MailtmTokensTable;
  deliveries: DeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
}

export type Affiliate = Selectable<AffiliatesTable>;
export type NewAffiliate = Insertable<AffiliatesTable>;
export type AffiliateUpdate = Updateable<AffiliatesTable>;
export type Mailbox = Selectable<MailboxesTable>;
export type NewMailbox = Insertable<MailboxesTable>;
export type Order = Selectable<OrdersTable>;
export type Commission = Selectable<CommissionsTable>;
export type CommissionRule = Selectable<CommissionRulesTable>;
export type FraudCase = Selectable<FraudCasesTable>;
export type Withdrawal = Selectable<WithdrawalsTable>;
export type PayoutBatch = Selectable<PayoutBatchesTable>;
export type EventRow = Selectable<EventsTable>;
export type MessageRow = Selectable<MessagesTable>;
export type MessageContentRow = Selectable<MessageContentsTable>;
export type AttachmentRow = Selectable<MessageAttachmentsTable>;
export type Delivery = Selectable<DeliveriesTable>;
export type DeliveryAttempt = Selectable<DeliveryAttemptsTable>;

