import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

/**
 * Table types shared by both dialects. Times are epoch milliseconds (bigint), money is integer cents
 * (bigint), rates are hundredths of a percent; JSON is stored as text. The pg driver is told to parse
 * int8 and numeric as JS numbers (db/database.ts), so both dialects hand back the same shapes.
 */
export interface SettingsTable {
  key: string;
  value: string;
  updated_at: number;
}

export interface AdminUsersTable {
  id: string;
  username: string;
  password_hash: string;
  created_at: number;
}

export interface AdminSessionsTable {
  id_hash: string;
  user_id: string;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

/** A throttled login key (`ip:…`, `user:…`) within a scope; its row is the lock its attempts take (0010). */
export interface LoginThrottleKeysTable {
  scope: string;
  key: string;
  touched_at: number;
}

/** One login attempt counted against a key (and the attempt's other key); rows older than the window are deleted. */
export interface LoginAttemptsTable {
  id: Generated<number>;
  scope: string;
  key: string;
  pair_key: string;
  at: number;
}

/** A fixed-window counter of one rate-limited route (scope) and client (key), shared by every instance (0045). */
export interface RateLimitWindowsTable {
  scope: string;
  key: string;
  n: number;
  resets_at: number;
}

/** A limited key of live leases (`mailbox:…`, `client:…`); its row is the lock taken to count and add leases (0045). */
export interface LimitLeaseKeysTable {
  key: string;
  touched_at: number;
}

/** One key an open live stream counts against, held by an instance until released or expired (0045). */
export interface LimitLeasesTable {
  id: string;
  key: string;
  instance: string;
  expires_at: number;
}

export interface AffiliatesTable {
  ref_code: string;
  name: string | null;
  email: string | null;
  /** `pending`: signed up on the portal, awaiting the admin's approval (docs/api.md#affiliate-portal); it does not attribute. */
  status: 'active' | 'disabled' | 'pending';
  commission_rate_bp: number | null;
  created_at: number;
  updated_at: number;
  /**
   * When `email` was confirmed (migration 0101): set by the operator (admin area, API) or by the link mailed
   * to the address; null while a sign-up's email is unconfirmed, and then svc neither signs in, resets nor
   * notifies by it (docs/api.md#email-confirmation).
   */
  email_confirmed_at: number | null;
}

/** An affiliate's portal account (docs/api.md#affiliate-portal, 0040): password (null until an invitation is accepted) and payout details. */
export interface AffiliateAccountsTable {
  ref_code: string;
  password_hash: string | null;
  payout_details: string | null;
  created_at: number;
  updated_at: number;
  /** 1: the affiliate gets a mail when a commission is approved (migration 0060). */
  notify_commissions: Generated<number>;
  /** 1: the affiliate gets a mail when a withdrawal is paid. */
  notify_payouts: Generated<number>;
}

/** A portal session, stored by the hash of its cookie value. */
export interface AffiliateSessionsTable {
  id_hash: string;
  ref_code: string;
  csrf_token: string;
  created_at: number;
  expires_at: number;
}

/** A portal invitation, stored by the hash of its token; single use (used_at), 72 h. */
export interface AffiliateInvitesTable {
  token_hash: string;
  ref_code: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
  /** `invite` (72 h, by the admin), `reset` (1 h, forgot password; migration 0060) or `confirm` (24 h, an email's confirmation; 0101). */
  kind: Generated<'invite' | 'reset' | 'confirm'>;
  /** The address a `confirm` token confirms; null for the other kinds (migration 0101). */
  email: string | null;
}

/** A mail svc sends (migration 0060); its sending state is the `deliveries` row with target `mail` and event_id = id. */
export interface OutboundMailTable {
  id: string;
  to_address: string;
  template: string;
  subject: string;
  text_body: string;
  html_body: string;
  message_id: string;
  created_at: number;
}

export interface ClicksTable {
  id: Generated<number>;
  ref_code: string;
  created_at: number;
  ip_hash: string | null;
  user_agent: string | null;
  referer: string | null;
  network_click_ids: string | null;
}

/**
 * A mail domain (0070): the order added (`position`), whether it takes new mailboxes, whether it catches all,
 * and (0102) whether anonymous clients may create mailboxes on it and see it listed (`public`, 1 by default).
 */
export interface MailDomainsTable {
  domain: string;
  position: number;
  active: number;
  catch_all: number;
  public: number;
  created_at: number;
}

export interface MailboxesTable {
  address: string;
  local_part: string;
  domain: string;
  ref_code: string | null;
  /** sha256 of its bearer token; '' for a mailbox with no token (created by a catch-all domain): no token matches it. */
  token_hash: string;
  created_at: number;
  /** The byte quota of its messages (docs/mailtm.md#the-quota: a mail.tm account's); null: none. Set at creation, never changed (0046). */
  max_bytes: ColumnType<number | null, number | null | undefined, never>;
  /** With a quota: never below the bytes its messages hold (byte-quota.ts); null otherwise. */
  bytes_bound: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface ReferralsTable {
  id: string;
  mailbox_address: string;
  ref_code: string;
  source: string;
  network_click_ids: string | null;
  created_at: number;
}

export interface OrdersTable {
  order_id: string;
  email: string;
  amount_cents: number;
  product: string;
  status: OrderStatus;
  ref_code: string | null;
  created_at: number;
  paid_at: number | null;
  /** Sum of the refunds so far (docs/ledger.md#refunds-and-clawbacks); never above amount_cents. */
  refunded_cents: ColumnType<number, number | undefined, number>;
  /** The affiliate the order names itself; attributes it at payment when its email names none. */
  named_ref_code: string | null;
}

export type OrderStatus = 'created' | 'paid' | 'partially_refunded' | 'refunded';

export type CommissionStatus = 'pending' | 'approved' | 'paid' | 'void';

/**
 * The table also still has `approve_due_at` (migration 0020), which nothing reads or writes since 0044:
 * it stays for the instances of the release before it during a rolling deploy, and a later release drops it.
 */
export interface CommissionsTable {
  id: string;
  order_id: string;
  ref_code: string;
  amount_cents: number;
  rate_bp: number;
  commission_cents: number;
  status: CommissionStatus;
  created_at: number;
  updated_at: number;
  approved_at: number | null;
  paid_at: number | null;
  voided_at: number | null;
  /** `sale` (one per attributed order) or `clawback` (a negative paid commission booked by a refund). */
  kind: ColumnType<CommissionKind, CommissionKind | undefined, CommissionKind>;
  /** The commission rule that decided it; null for the plain rates (and clawbacks). */
  rule_id: ColumnType<string | null, string | null | undefined, string | null>;
  void_reason: ColumnType<VoidReason | null, VoidReason | null | undefined, VoidReason | null>;
  /** The flat amount of the rule that decided it (rate_bp is then 0); null for a percentage. */
  flat_cents: ColumnType<number | null, number | null | undefined, number | null>;
}

export type CommissionKind = 'sale' | 'clawback';
export type VoidReason = 'refunded' | 'disputed';

/** Commission rules (docs/ledger.md#commission-rules): exactly one of rate_bp and flat_cents. */
export interface CommissionRulesTable {
  id: string;
  ref_code: string | null;
  product: string | null;
  rate_bp: number | null;
  flat_cents: number | null;
  duration_days: number | null;
  max_orders: number | null;
  created_at: number;
}

export type WithdrawalStatus = 'requested' | 'paid' | 'rejected';

export interface WithdrawalsTable {
  id: string;
  ref_code: string;
  amount_cents: number;
  status: WithdrawalStatus;
  created_at: number;
  updated_at: number;
  paid_at: number | null;
  rejected_at: number | null;
  /** docs/api.md#payouts: the payout details (JSON) as they were when it was requested; null before migration 0090. */
  payout: string | null;
  payout_method: string | null;
  /** The payout batch it went into, set once. */
  batch_id: string | null;
}

export interface PayoutBatchesTable {
  id: string;
  method: string;
  status: 'open' | 'paid';
  currency: string;
  total_minor: number;
  count: number;
  created_at: number;
  paid_at: number | null;
}

/** One row per affiliate and month the payout schedule requested (primary key: exactly once). */
export interface PayoutScheduleRunsTable {
  ref_code: string;
  month: string;
  withdrawal_id: string | null;
  created_at: number;
}

/** One row per month whose scheduled payout run is over (docs/api.md#payouts): that month gets no further run. */
export interface PayoutScheduleMonthsTable {
  month: string;
  done_at: number;
}

/** Daily rollup per affiliate, updated in the same transaction as the writes it counts (docs/api.md#reports). */
export interface DailyStatsTable {
  ref_code: string;
  day: string;
  /** Rows of one (ref_code, day) are spread over a few stripes (migration 0021); readers sum them. */
  stripe: ColumnType<number, number | undefined, number>;
  clicks: ColumnType<number, number | undefined, number>;
  mailboxes: ColumnType<number, number | undefined, number>;
  orders: ColumnType<number, number | undefined, number>;
  commission_pending_cents: ColumnType<number, number | undefined, number>;
  commission_approved_cents: ColumnType<number, number | undefined, number>;
  commission_paid_cents: ColumnType<number, number | undefined, number>;
  commission_void_cents: ColumnType<number, number | undefined, number>;
  withdrawals_requested_cents: ColumnType<number, number | undefined, number>;
  withdrawals_paid_cents: ColumnType<number, number | undefined, number>;
  /** Amount of the paid attributed orders counted in `orders` (migration 0013-revenue). */
  revenue_cents: ColumnType<number, number | undefined, number>;
}

/** All-time counters per affiliate, bumped with daily_stats (migration 0002-attribution). */
/** All-time counters per affiliate and stripe (the days' sums), and the affiliate's balance. */
export interface AffiliateStatsTable extends Omit<DailyStatsTable, 'day'> {
  /**
   * This stripe's share of the available balance (paid commissions − clawbacks − requested/paid
   * withdrawals; migration 0043): the balance is the sum over the stripes. One stripe may be negative.
   */
  balance_cents: ColumnType<number, number | undefined, number>;
}

export interface IdempotencyKeysTable {
  key: string;
  method: string;
  path: string;
  request_hash: string;
  state: 'processing' | 'done';
  response_status: number | null;
  response_body: string | null;
  created_at: number;
}

/** The outbox: one row per emitted event, written in the transaction of the change that caused it. */
export interface EventsTable {
  seq: Generated<number>;
  id: string;
  type: string;
  /** The full JSON body as delivered: {event, id, ts, data}. */
  payload: string;
  created_at: number;
  /** Set when the delivery worker has created this event's deliveries (0004-delivery). */
  fanned_out_at: number | null;
}

/** One copy of an inbound message in one mailbox (migration 0005-mail). */
export interface MessagesTable {
  seq: Generated<number>;
  id: string;
  mailbox_address: string;
  from_address: string | null;
  from_name: string | null;
  to_header: string | null;
  subject: string | null;
  size: number;
  attachments_count: number;
  received_at: number;
  /** 0 until read (or marked seen), 1 after; per mailbox copy (migration 0030). */
  seen: number;
  /** The verification code found at intake (0035-message-code), or null. */
  code: string | null;
}

/** none | raw (as received; sanitised on first read) | clean (sanitised) | dropped (too deeply nested, or could not be sanitised in time). */
export type HtmlState = 'none' | 'clean' | 'dropped' | 'raw';

/** The content of one message id, shared by its mailbox copies (migration 0007-mail-contents). */
export interface MessageContentsTable {
  id: string;
  /** How many `messages` rows (mailbox copies) share it; it goes with the last one. */
  refs: number;
  text: string | null;
  html: string | null;
  html_state: HtmlState;
  /** The raw RFC 822 source as received over SMTP, its first chunk (the rest: message_source_chunks; migration 0030); null when it is composed from the parts. */
  source: Buffer | null;
  /** The headers as JSON `[{name, value}]`, parsed once at intake (migration 0030); null before it. */
  headers: string | null;
  /** The Message-ID header (migration 0030); null before it or when the source has none. */
  msgid: string | null;
  /** The HTML as received, for a source composed from the parts (POST /api/inbound; migration 0032). */
  source_html: string | null;
  /** The message's http(s) links as a JSON array of strings (migration 0080); null before it. */
  links: string | null;
  /** The link that confirms (src/mail/messages/links.ts), or null (migration 0080). */
  verification_link: string | null;
}

/** Attachment bytes, once per message id (`copy_seq` is set only on rows stored before 0007). */
export interface MessageAttachmentsTable {
  id: string;
  message_id: string;
  copy_seq: number | null;
  position: number;
  filename: string;
  content_type: string;
  content_id: string | null;
  size: number;
  content: Buffer;
}

/** The chunks of a message's source after the first (which is message_contents.source), migration 0030. */
export interface MessageSourceChunksTable {
  message_id: string;
  position: number;
  bytes: Buffer;
}

/** A mail.tm-compatible account: a mailbox with a password (migration 0031). */
export interface MailtmAccountsTable {
  id: string;
  address: string;
  password_hash: string;
  created_at: number;
  updated_at: number;
}

/** A bearer token of the mail.tm API, stored as its sha256 (migration 0031). */
export interface MailtmTokensTable {
  token_hash: string;
  account_id: string;
  created_at: number;
  expires_at: number;
}

export type MailtmAccount = Selectable<MailtmAccountsTable>;

export type IntegrationProvider = 'stripe' | 'paddle' | 'lemonsqueezy';
export type IntegrationOutcome = 'applied' | 'ignored' | 'failed';

export interface IntegrationEventsTable {
  id: string;
  provider: IntegrationProvider;
  /** What makes a delivery the same event: the provider's event id, or what Lemon Squeezy's event names. */
  dedupe_key: string;
  type: string;
  provider_event_id: string | null;
  received_at: number;
  outcome: IntegrationOutcome;
  reason: string | null;
  order_id: string | null;
  /** A refund kept until its order arrives; null once applied (or when none waits). */
  waiting_order_id: string | null;
  /** The waiting refund (JSON of IntegrationRefund). */
  refund_json: string | null;
  /** A paid event's other name for its order, as refunds and disputes name it (Stripe: an invoice's payment intent). */
  payment_ref: string | null;
  /** A Paddle transaction waiting for its customer's notification (migration 0103): that customer's id; null when nothing waits. */
  waiting_customer_id: string | null;
  /** The waiting transaction's payment still to book (JSON); null once booked, or when only the booked order's email waits. */
  pay_json: string | null;
}
export type IntegrationEvent = Selectable<IntegrationEventsTable>;

export interface BillingCustomersTable {
  provider: IntegrationProvider;
  customer_id: string;
  email: string;
  updated_at: number;
}

export interface Database {
  settings: SettingsTable;
  admin_users: AdminUsersTable;
  admin_sessions: AdminSessionsTable;
  login_throttle_keys: LoginThrottleKeysTable;
  login_attempts: LoginAttemptsTable;
  rate_limit_windows: RateLimitWindowsTable;
  limit_lease_keys: LimitLeaseKeysTable;
  limit_leases: LimitLeasesTable;
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

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One event to one target (`webhook` or `adapter:<name>`), with its retry schedule and claim lease. */
export interface DeliveriesTable {
  id: string;
  event_id: string;
  event_type: string;
  target: string;
  /** The webhook_url when the event was fanned out; null for adapters. */
  url: string | null;
  status: DeliveryStatus;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: number | null;
  locked_until: number | null;
  lock_token: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  delivered_at: number | null;
}

export interface DeliveryAttemptsTable {
  id: Generated<number>;
  delivery_id: string;
  at: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_body: string | null;
}

export type Affiliate = Selectable<AffiliatesTable>;
export type NewAffiliate = Insertable<AffiliatesTable>;
export type AffiliateUpdate = Updateable<AffiliatesTable>;
export type Mailbox = Selectable<MailboxesTable>;
export type NewMailbox = Insertable<MailboxesTable>;
export type Order = Selectable<OrdersTable>;
export type Commission = Selectable<CommissionsTable>;
export type CommissionRule = Selectable<CommissionRulesTable>;
export type Withdrawal = Selectable<WithdrawalsTable>;
export type PayoutBatch = Selectable<PayoutBatchesTable>;
export type EventRow = Selectable<EventsTable>;
export type MessageRow = Selectable<MessagesTable>;
export type MessageContentRow = Selectable<MessageContentsTable>;
export type AttachmentRow = Selectable<MessageAttachmentsTable>;
export type Delivery = Selectable<DeliveriesTable>;
export type DeliveryAttempt = Selectable<DeliveryAttemptsTable>;
