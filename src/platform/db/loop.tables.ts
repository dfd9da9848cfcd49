import type { ColumnType, Generated, Selectable } from 'kysely';

// The affiliate loop's tables: affiliates and their portal accounts, clicks, orders, commissions, rules, withdrawals, payouts, counters, integrations (the Database type and the row types are in schema.ts).

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

export interface ClicksTable {
  id: Generated<number>;
  ref_code: string;
  created_at: number;
  ip_hash: string | null;
  user_agent: string | null;
  referer: string | null;
  network_click_ids: string | null;
}

export interface ReferralsTable {
  id: string;
  mailbox_address: string;
  ref_code: string;
  source: string;
  network_click_ids: string | null;
  created_at: number;
  /** The network the mailbox was created from (fraud-review.ts networkOf, salted hash; migration 0111); null before. */
  ip_hash: ColumnType<string | null, string | null | undefined, string | null>;
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
  /** The open fraud case holding this pending commission (docs/api.md#fraud-review; migration 0111); null: not held. */
  hold_case_id: ColumnType<string | null, string | null | undefined, string | null>;
  hold_signal: ColumnType<FraudSignal | null, FraudSignal | null | undefined, FraudSignal | null>;
}

export type CommissionKind = 'sale' | 'clawback';
export type VoidReason = 'refunded' | 'disputed' | 'fraud';

/** The fraud signals of docs/api.md#fraud-review. */
export type FraudSignal = 'self_referral' | 'duplicate_payout' | 'click_burst' | 'refund_rate';
export type FraudAction = 'flag' | 'hold';
export type FraudCaseStatus = 'open' | 'released' | 'rejected';

/** A fraud case (docs/api.md#fraud-review, migration 0111): one open per affiliate and signal. */
export interface FraudCasesTable {
  id: string;
  ref_code: string;
  signal: FraudSignal;
  action: FraudAction;
  status: FraudCaseStatus;
  /** JSON array of {at, detail, order_id?, click_at?}, oldest first; never a raw address. */
  evidence: string;
  held_count: ColumnType<number, number | undefined, number>;
  held_cents: ColumnType<number, number | undefined, number>;
  /** When it opened (`opened_at` in the API). */
  created_at: number;
  updated_at: number;
  resolved_at: number | null;
  note: string | null;
}

/** The networks an affiliate signed in to the portal from (salted hash of the IPv4 address or IPv6 /64). */
export interface PortalSignInsTable {
  ref_code: string;
  ip_hash: string;
  first_at: number;
  last_at: number;
}

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
