/** One error model: every failure the client should see is an AppError with a stable code (docs/api.md#conventions). */
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

export interface FieldIssue {
  readonly field: string;
  readonly message: string;
}

export class ValidationError extends AppError {
  constructor(details: readonly FieldIssue[], message = 'Request validation failed') {
    super(400, 'invalid_request', message, details);
  }
}

export class UnauthorizedError extends AppError {
  constructor(message = 'Authentication required') {
    super(401, 'unauthorized', message);
  }
}

export class CsrfError extends AppError {
  constructor() {
    super(403, 'csrf_failed', 'Missing or wrong X-CSRF-Token header');
  }
}

/** 403 for a refusal that is not about credentials (docs/api.md#affiliate-portal: sign-up closed). */
export class ForbiddenError extends AppError {
  constructor(code: 'signup_closed', message: string) {
    super(403, code, message);
  }
}

/**
 * 403 password_required: a change that moves money (docs/api.md#affiliate-portal: an affiliate's payout details) sent
 * without the signed-in affiliate's current password, or with a wrong one. The session alone is not
 * enough, so a stolen session cannot redirect payouts. `details` names the field, like a 400's.
 */
export class PasswordRequiredError extends AppError {
  constructor(message: string, fieldMessage: string) {
    super(403, 'password_required', message, [{ field: 'current_password', message: fieldMessage }]);
  }
}

export type NotFoundCode =
  | 'order_not_found'
  | 'affiliate_not_found'
  | 'mailbox_not_found'
  | 'commission_not_found'
  | 'withdrawal_not_found'
  | 'admin_user_not_found'
  | 'commission_rule_not_found'
  | 'fraud_case_not_found'
  | 'domain_not_found'
  | 'not_found';

export class NotFoundError extends AppError {
  constructor(code: NotFoundCode, message: string) {
    super(404, code, message);
  }
}

export type ConflictCode =
  | 'order_exists'
  | 'affiliate_exists'
  | 'mailbox_exists'
  | 'invalid_transition'
  | 'idempotency_conflict'
  | 'admin_user_exists'
  | 'last_admin'
  | 'domain_exists'
  | 'domain_in_use'
  | 'currency_locked'
  | 'email_taken'
  | 'email_already_confirmed'
  /** docs/api.md#fraud-review: the commission is held by an open fraud case. */
  | 'on_hold';

export class ConflictError extends AppError {
  constructor(code: ConflictCode, message: string, details?: unknown) {
    super(409, code, message, details);
  }
}

export class PayloadTooLargeError extends AppError {
  constructor(limit: number) {
    super(413, 'payload_too_large', `Body is larger than the limit of ${limit} bytes`, { limit });
  }
}

/**
 * docs/mailtm.md#the-quota: a message larger than the byte quota of every recipient mailbox that could take it (the
 * HTTP answer of the contract's size limit, with the quota as the limit; 552 over SMTP).
 */
export class OverQuotaError extends AppError {
  constructor(size: number, quota: number) {
    super(413, 'payload_too_large', `The message (${size} bytes) is larger than the quota of its recipient mailboxes (${quota} bytes)`, { limit: quota, size });
  }
}

export class InsufficientBalanceError extends AppError {
  constructor(available: number) {
    super(422, 'insufficient_balance', 'Amount exceeds the available balance', { available });
  }
}

/** 422 of docs/api.md#payouts (payouts): a rule about money that the request breaks, named by its code. */
export type PayoutRuleCode = 'currency_mismatch' | 'payout_details_missing' | 'below_payout_minimum' | 'nothing_to_pay' | 'sepa_debtor_missing' | 'on_hold';

export class PayoutRuleError extends AppError {
  constructor(code: PayoutRuleCode, message: string, details?: unknown) {
    super(422, code, message, details);
  }
}

/** docs/ledger.md#refunds-and-clawbacks: a refund above what is left of the order (also: the order is refunded already). */
export class RefundExceedsAmountError extends AppError {
  constructor(refundable: number) {
    super(422, 'refund_exceeds_amount', 'The refunds would exceed the order amount', { refundable });
  }
}

export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number, message = 'Too many requests, retry later') {
    super(429, 'rate_limited', message, { retry_after: retryAfterSeconds }, {
      'retry-after': String(retryAfterSeconds),
    });
  }
}
