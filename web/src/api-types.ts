// Generated from /openapi.json by `npm run gen:web-types` (src/platform/http/web-types.ts). Do not edit:
// test/integration/web-types.test.ts fails when this file is stale. Long because it is generated.

/** Every error answer (docs/api.md#conventions). */
export interface ErrorBody {
  success: false;
  error: { code: string; message: string; details?: unknown };
}

/** Every operation of the API: its path and query parameters, its JSON body and its JSON answers by status. */
export interface Operations {
  "GET /admin/api/adapters": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          name: string;
          enabled: boolean;
          description: string;
        }[];
      };
      401: ErrorBody;
    };
  };
  "GET /admin/api/admin-users": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          username: string;
          created_at: string;
        }[];
        next_cursor: null;
      };
      401: ErrorBody;
    };
  };
  "POST /admin/api/admin-users": {
    params: never;
    query: never;
    body: {
      username: string;
      password?: string;
    };
    responses: {
      201: {
        success: true;
        admin_user: {
          username: string;
          created_at: string;
        };
        password?: string;
      };
      400: ErrorBody;
      401: ErrorBody;
      403: ErrorBody;
      409: ErrorBody;
    };
  };
  "DELETE /admin/api/admin-users/{username}": {
    params: {
      username: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
      };
      400: ErrorBody;
      401: ErrorBody;
      403: ErrorBody;
      404: ErrorBody;
      409: ErrorBody;
    };
  };
  "POST /admin/api/affiliates/{ref_code}/invite": {
    params: {
      ref_code: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        invite_url: string;
        expires_at: string;
        mail: "queued" | "not_configured" | "no_email" | "opted_out";
      };
      401: ErrorBody;
      403: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /admin/api/api-key": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        api_key: string;
      };
      401: ErrorBody;
    };
  };
  "POST /admin/api/api-key/rotate": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        api_key: string;
      };
      401: ErrorBody;
      403: ErrorBody;
    };
  };
  "GET /admin/api/deliveries": {
    params: never;
    query: {
      limit?: number;
      cursor?: string;
      status?: "pending" | "delivered" | "failed";
      event?: string;
      target?: string;
    };
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          id: string;
          event_id: string;
          event: string;
          target: string;
          url: string | null;
          status: "pending" | "delivered" | "failed";
          attempt_count: number;
          next_attempt_at: string | null;
          last_status_code: number | null;
          last_error: string | null;
          created_at: string;
          updated_at: string;
          delivered_at: string | null;
        }[];
        next_cursor: string | null;
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "GET /admin/api/deliveries/stats": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        stats: {
          pending: number;
          failed: number;
          oldest_pending_at: string | null;
          unfanned_events: number;
        };
      };
      401: ErrorBody;
    };
  };
  "GET /admin/api/deliveries/{id}": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        delivery: {
          id: string;
          event_id: string;
          event: string;
          target: string;
          url: string | null;
          status: "pending" | "delivered" | "failed";
          attempt_count: number;
          next_attempt_at: string | null;
          last_status_code: number | null;
          last_error: string | null;
          created_at: string;
          updated_at: string;
          delivered_at: string | null;
          attempts: {
            at: string;
            status_code: number | null;
            latency_ms: number;
            error: string | null;
            response_body: string | null;
          }[];
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "POST /admin/api/deliveries/{id}/redeliver": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        delivery: {
          id: string;
          event_id: string;
          event: string;
          target: string;
          url: string | null;
          status: "pending" | "delivered" | "failed";
          attempt_count: number;
          next_attempt_at: string | null;
          last_status_code: number | null;
          last_error: string | null;
          created_at: string;
          updated_at: string;
          delivered_at: string | null;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      403: ErrorBody;
      404: ErrorBody;
      409: ErrorBody;
    };
  };
  "GET /admin/api/event-types": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          type: "order.paid" | "order.refunded" | "commission.created" | "commission.approved" | "commission.paid" | "commission.voided" | "withdrawal.requested" | "withdrawal.paid" | "withdrawal.rejected" | "fraud.case_opened" | "fraud.case_resolved" | "affiliate.created" | "message.received" | "webhook.test";
          description: string;
        }[];
      };
      401: ErrorBody;
    };
  };
  "GET /admin/api/integrations/events": {
    params: never;
    query: {
      limit?: number;
      cursor?: string;
      provider?: "stripe" | "paddle" | "lemonsqueezy";
    };
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          id: string;
          provider: "stripe" | "paddle" | "lemonsqueezy";
          type: string;
          provider_event_id: string | null;
          received_at: string;
          outcome: "applied" | "ignored" | "failed";
          reason: string | null;
          order_id: string | null;
        }[];
        next_cursor: string | null;
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "GET /admin/api/integrations/status": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        providers: {
          provider: "stripe" | "paddle" | "lemonsqueezy";
          events: string[];
          waiting_for_customer: number;
          awaiting_email: number;
        }[];
      };
      401: ErrorBody;
    };
  };
  "POST /admin/api/login": {
    params: never;
    query: never;
    body: {
      username: string;
      password: string;
    };
    responses: {
      200: {
        success: true;
        csrf_token: string;
        username: string;
      };
      400: ErrorBody;
      401: ErrorBody;
      429: ErrorBody;
    };
  };
  "POST /admin/api/logout": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
      };
      401: ErrorBody;
      403: ErrorBody;
    };
  };
  "POST /admin/api/maintenance/retention": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        retention: {
          click_retention_days: number;
          kept_from: string;
          removed_clicks: number;
          removed_days: number;
        };
      };
      401: ErrorBody;
      403: ErrorBody;
    };
  };
  "GET /admin/api/outbound-mail": {
    params: never;
    query: {
      limit?: number;
      cursor?: string;
      status?: "queued" | "sent" | "failed";
    };
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          id: string;
          to: string;
          template: "invitation" | "password_reset" | "email_confirmation" | "commission_approved" | "withdrawal_paid" | "affiliate_review" | "webhook_failing";
          subject: string;
          status: "queued" | "sent" | "failed";
          attempts: number;
          last_error: string | null;
          created_at: string;
          sent_at: string | null;
        }[];
        next_cursor: string | null;
        mail_configured: boolean;
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "POST /admin/api/outbound-mail/{id}/resend": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        mail: {
          id: string;
          to: string;
          template: "invitation" | "password_reset" | "email_confirmation" | "commission_approved" | "withdrawal_paid" | "affiliate_review" | "webhook_failing";
          subject: string;
          status: "queued" | "sent" | "failed";
          attempts: number;
          last_error: string | null;
          created_at: string;
          sent_at: string | null;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      403: ErrorBody;
      404: ErrorBody;
      409: ErrorBody;
    };
  };
  "POST /admin/api/password": {
    params: never;
    query: never;
    body: {
      current_password: string;
      new_password: string;
    };
    responses: {
      200: {
        success: true;
      };
      400: ErrorBody;
      401: ErrorBody;
      403: ErrorBody;
      429: ErrorBody;
    };
  };
  "GET /admin/api/payout-details": {
    params: never;
    query: {
      ref_codes: string;
    };
    body: never;
    responses: {
      200: {
        success: true;
        payout_details: Record<string, string>;
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "GET /admin/api/session": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        csrf_token: string;
        username: string;
      };
      401: ErrorBody;
    };
  };
  "GET /admin/api/settings": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        settings: {
          commission_rate: number;
          cookie_lifetime_days: number;
          landing_url: string;
          webhook_url: string | null;
          webhook_secret: {
            set: boolean;
            last4: string | null;
          };
          mailbox_ttl_hours: number;
          mailbox_max_messages: number;
          affiliate_signup: "closed" | "review" | "open";
          holding_days: number | null;
          stripe_webhook_secret: {
            set: boolean;
            last4: string | null;
          };
          paddle_webhook_secret: {
            set: boolean;
            last4: string | null;
          };
          lemonsqueezy_webhook_secret: {
            set: boolean;
            last4: string | null;
          };
          admin_email: string | null;
          message_events: boolean;
          currency: string;
          payout_minimum: number | null;
          payout_schedule: "manual" | "monthly";
          sepa_debtor_name: string | null;
          sepa_debtor_iban: string | null;
          sepa_debtor_bic: string | null;
          fraud_rules: {
            self_referral: "off" | "flag" | "hold";
            duplicate_payout: "off" | "flag" | "hold";
            click_burst: "off" | "flag" | "hold";
            refund_rate: "off" | "flag" | "hold";
          };
          fraud_click_burst: number;
          click_retention_days: number;
        };
      };
      401: ErrorBody;
    };
  };
  "PATCH /admin/api/settings": {
    params: never;
    query: never;
    body: {
      commission_rate?: number;
      cookie_lifetime_days?: number;
      landing_url?: string;
      webhook_url?: string | null;
      webhook_secret?: string;
      mailbox_ttl_hours?: number;
      mailbox_max_messages?: number;
      affiliate_signup?: "closed" | "review" | "open";
      holding_days?: number | null;
      stripe_webhook_secret?: string;
      paddle_webhook_secret?: string;
      lemonsqueezy_webhook_secret?: string;
      admin_email?: string | null;
      message_events?: boolean;
      currency?: string;
      payout_minimum?: number | null;
      payout_schedule?: "manual" | "monthly";
      sepa_debtor_name?: string | null;
      sepa_debtor_iban?: string | null;
      sepa_debtor_bic?: string | null;
      click_retention_days?: number;
      fraud_rules?: {
        self_referral?: "off" | "flag" | "hold";
        duplicate_payout?: "off" | "flag" | "hold";
        click_burst?: "off" | "flag" | "hold";
        refund_rate?: "off" | "flag" | "hold";
      };
      fraud_click_burst?: number;
    };
    responses: {
      200: {
        success: true;
        settings: {
          commission_rate: number;
          cookie_lifetime_days: number;
          landing_url: string;
          webhook_url: string | null;
          webhook_secret: {
            set: boolean;
            last4: string | null;
          };
          mailbox_ttl_hours: number;
          mailbox_max_messages: number;
          affiliate_signup: "closed" | "review" | "open";
          holding_days: number | null;
          stripe_webhook_secret: {
            set: boolean;
            last4: string | null;
          };
          paddle_webhook_secret: {
            set: boolean;
            last4: string | null;
          };
          lemonsqueezy_webhook_secret: {
            set: boolean;
            last4: string | null;
          };
          admin_email: string | null;
          message_events: boolean;
          currency: string;
          payout_minimum: number | null;
          payout_schedule: "manual" | "monthly";
          sepa_debtor_name: string | null;
          sepa_debtor_iban: string | null;
          sepa_debtor_bic: string | null;
          fraud_rules: {
            self_referral: "off" | "flag" | "hold";
            duplicate_payout: "off" | "flag" | "hold";
            click_burst: "off" | "flag" | "hold";
            refund_rate: "off" | "flag" | "hold";
          };
          fraud_click_burst: number;
          click_retention_days: number;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      403: ErrorBody;
    };
  };
  "POST /admin/api/webhooks/test": {
    params: never;
    query: never;
    body: never;
    responses: {
      201: {
        success: true;
        event: {
          id: string;
          event: "webhook.test";
          ts: number;
        };
        delivery: {
          id: string;
          event_id: string;
          event: string;
          target: string;
          url: string | null;
          status: "pending" | "delivered" | "failed";
          attempt_count: number;
          next_attempt_at: string | null;
          last_status_code: number | null;
          last_error: string | null;
          created_at: string;
          updated_at: string;
          delivered_at: string | null;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      403: ErrorBody;
    };
  };
  "GET /api/affiliate/summary": {
    params: never;
    query: {
      ref_code?: string;
      from?: string;
      to?: string;
    };
    body: never;
    responses: {
      200: {
        success: true;
        summary: {
          ref_code: string;
          clicks: number;
          mailboxes: number;
          conversion_rate: number;
          orders: number;
          order_rate: number;
          revenue: number;
          commission: {
            pending: number;
            approved: number;
            paid: number;
            void: number;
            total: number;
          };
          withdrawals: {
            requested: number;
            paid: number;
          };
          balance: number;
          currency: string;
        }[];
        totals: {
          clicks: number;
          mailboxes: number;
          conversion_rate: number;
          orders: number;
          order_rate: number;
          revenue: number;
          commission: {
            pending: number;
            approved: number;
            paid: number;
            void: number;
            total: number;
          };
          withdrawals: {
            requested: number;
            paid: number;
          };
          balance: number;
          currency: string;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "GET /api/affiliate/summary.csv": {
    params: never;
    query: {
      ref_code?: string;
      from?: string;
      to?: string;
    };
    body: never;
    responses: {
      200: unknown;
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "GET /api/affiliates": {
    params: never;
    query: {
      limit?: number;
      cursor?: string;
    };
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          ref_code: string;
          name: string | null;
          email: string | null;
          status: "active" | "disabled" | "pending";
          commission_rate: number | null;
          created_at: string;
          payout_details?: {
            method: "paypal" | "wise" | "sepa" | "other";
            email?: string;
            iban?: string;
            bic?: string;
            account_holder?: string;
            note?: string;
          } | null;
        }[];
        next_cursor: string | null;
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "POST /api/affiliates": {
    params: never;
    query: never;
    body: {
      ref_code: string;
      name?: string | null;
      email?: (string | null) | "";
      commission_rate?: number | null;
    };
    responses: {
      201: {
        success: true;
        affiliate: {
          ref_code: string;
          name: string | null;
          email: string | null;
          status: "active" | "disabled" | "pending";
          commission_rate: number | null;
          created_at: string;
          payout_details?: {
            method: "paypal" | "wise" | "sepa" | "other";
            email?: string;
            iban?: string;
            bic?: string;
            account_holder?: string;
            note?: string;
          } | null;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      409: ErrorBody;
    };
  };
  "GET /api/affiliates/{ref_code}": {
    params: {
      ref_code: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        affiliate: {
          ref_code: string;
          name: string | null;
          email: string | null;
          status: "active" | "disabled" | "pending";
          commission_rate: number | null;
          created_at: string;
          payout_details?: {
            method: "paypal" | "wise" | "sepa" | "other";
            email?: string;
            iban?: string;
            bic?: string;
            account_holder?: string;
            note?: string;
          } | null;
        };
      };
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "PATCH /api/affiliates/{ref_code}": {
    params: {
      ref_code: string;
    };
    query: never;
    body: {
      status?: "active" | "disabled";
      name?: string | null;
      email?: (string | null) | "";
      commission_rate?: number | null;
      payout_details?: {
        method: "paypal";
        email: string;
        note?: string;
      } | {
        method: "wise";
        email: string;
        account_holder?: string;
        note?: string;
      } | {
        method: "sepa";
        iban: string;
        bic?: string;
        account_holder: string;
        note?: string;
      } | {
        method: "other";
        note: string;
      } | null;
    };
    responses: {
      200: {
        success: true;
        affiliate: {
          ref_code: string;
          name: string | null;
          email: string | null;
          status: "active" | "disabled" | "pending";
          commission_rate: number | null;
          created_at: string;
          payout_details?: {
            method: "paypal" | "wise" | "sepa" | "other";
            email?: string;
            iban?: string;
            bic?: string;
            account_holder?: string;
            note?: string;
          } | null;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /api/clicks": {
    params: never;
    query: {
      limit?: number;
      cursor?: string;
      ref_code?: string;
      from?: string;
      to?: string;
    };
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          ref_code: string;
          clicked_at: string;
          referer: string | null;
          user_agent: string | null;
        }[];
        next_cursor: string | null;
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "GET /api/commission-rules": {
    params: never;
    query: {
      limit?: number;
      cursor?: string;
      ref_code?: string;
    };
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          id: string;
          ref_code: string | null;
          product: string | null;
          rate: number | null;
          flat: number | null;
          currency: string;
          duration_days: number | null;
          max_orders: number | null;
          created_at: string;
        }[];
        next_cursor: string | null;
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "POST /api/commission-rules": {
    params: never;
    query: never;
    body: {
      ref_code?: string | null;
      product?: string | null;
      rate?: number | null;
      flat?: number | null;
      duration_days?: number | null;
      max_orders?: number | null;
    };
    responses: {
      201: {
        success: true;
        rule: {
          id: string;
          ref_code: string | null;
          product: string | null;
          rate: number | null;
          flat: number | null;
          currency: string;
          duration_days: number | null;
          max_orders: number | null;
          created_at: string;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "DELETE /api/commission-rules/{id}": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
      };
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "PATCH /api/commission-rules/{id}": {
    params: {
      id: string;
    };
    query: never;
    body: {
      ref_code?: string | null;
      product?: string | null;
      rate?: number | null;
      flat?: number | null;
      duration_days?: number | null;
      max_orders?: number | null;
    };
    responses: {
      200: {
        success: true;
        rule: {
          id: string;
          ref_code: string | null;
          product: string | null;
          rate: number | null;
          flat: number | null;
          currency: string;
          duration_days: number | null;
          max_orders: number | null;
          created_at: string;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /api/commissions": {
    params: never;
    query: {
      limit?: number;
      cursor?: string;
      status?: "pending" | "approved" | "paid" | "void";
      ref_code?: string;
      kind?: "sale" | "clawback";
    };
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          id: string;
          order_id: string;
          ref_code: string;
          amount: number;
          rate: number;
          commission: number;
          currency: string;
          status: "pending" | "approved" | "paid" | "void";
          kind: "sale" | "clawback";
          rule_id: string | null;
          void_reason: ("refunded" | "disputed" | "fraud") | null;
          hold: {
            case_id: string;
            signal: "self_referral" | "duplicate_payout" | "click_burst" | "refund_rate";
          } | null;
          created_at: string;
        }[];
        next_cursor: string | null;
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "GET /api/commissions.csv": {
    params: never;
    query: {
      status?: "pending" | "approved" | "paid" | "void";
      ref_code?: string;
      kind?: "sale" | "clawback";
    };
    body: never;
    responses: {
      200: unknown;
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "GET /api/commissions/{id}": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        commission: {
          id: string;
          order_id: string;
          ref_code: string;
          amount: number;
          rate: number;
          commission: number;
          currency: string;
          status: "pending" | "approved" | "paid" | "void";
          kind: "sale" | "clawback";
          rule_id: string | null;
          void_reason: ("refunded" | "disputed" | "fraud") | null;
          hold: {
            case_id: string;
            signal: "self_referral" | "duplicate_payout" | "click_burst" | "refund_rate";
          } | null;
          created_at: string;
        };
      };
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "POST /api/commissions/{id}/approve": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        commission: {
          id: string;
          order_id: string;
          ref_code: string;
          amount: number;
          rate: number;
          commission: number;
          currency: string;
          status: "pending" | "approved" | "paid" | "void";
          kind: "sale" | "clawback";
          rule_id: string | null;
          void_reason: ("refunded" | "disputed" | "fraud") | null;
          hold: {
            case_id: string;
            signal: "self_referral" | "duplicate_payout" | "click_burst" | "refund_rate";
          } | null;
          created_at: string;
        };
      };
      401: ErrorBody;
      404: ErrorBody;
      409: ErrorBody;
    };
  };
  "POST /api/commissions/{id}/mark-paid": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        commission: {
          id: string;
          order_id: string;
          ref_code: string;
          amount: number;
          rate: number;
          commission: number;
          currency: string;
          status: "pending" | "approved" | "paid" | "void";
          kind: "sale" | "clawback";
          rule_id: string | null;
          void_reason: ("refunded" | "disputed" | "fraud") | null;
          hold: {
            case_id: string;
            signal: "self_referral" | "duplicate_payout" | "click_burst" | "refund_rate";
          } | null;
          created_at: string;
        };
      };
      401: ErrorBody;
      404: ErrorBody;
      409: ErrorBody;
    };
  };
  "POST /api/commissions/{id}/void": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        commission: {
          id: string;
          order_id: string;
          ref_code: string;
          amount: number;
          rate: number;
          commission: number;
          currency: string;
          status: "pending" | "approved" | "paid" | "void";
          kind: "sale" | "clawback";
          rule_id: string | null;
          void_reason: ("refunded" | "disputed" | "fraud") | null;
          hold: {
            case_id: string;
            signal: "self_referral" | "duplicate_payout" | "click_burst" | "refund_rate";
          } | null;
          created_at: string;
        };
      };
      401: ErrorBody;
      404: ErrorBody;
      409: ErrorBody;
    };
  };
  "GET /api/domains": {
    params: never;
    query: {
      limit?: number;
      cursor?: string;
    };
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          domain: string;
          active: boolean;
          catch_all: boolean;
          public: boolean;
          created_at: string;
        }[];
        next_cursor: string | null;
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "POST /api/domains": {
    params: never;
    query: never;
    body: {
      domain: string;
      active?: boolean;
      catch_all?: boolean;
      public?: boolean;
    };
    responses: {
      201: {
        success: true;
        domain: {
          domain: string;
          active: boolean;
          catch_all: boolean;
          public: boolean;
          created_at: string;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      409: ErrorBody;
    };
  };
  "DELETE /api/domains/{domain}": {
    params: {
      domain: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
      409: ErrorBody;
    };
  };
  "PATCH /api/domains/{domain}": {
    params: {
      domain: string;
    };
    query: never;
    body: {
      active?: boolean;
      catch_all?: boolean;
      public?: boolean;
    };
    responses: {
      200: {
        success: true;
        domain: {
          domain: string;
          active: boolean;
          catch_all: boolean;
          public: boolean;
          created_at: string;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /api/fraud/cases": {
    params: never;
    query: {
      limit?: number;
      cursor?: string;
      status?: "open" | "released" | "rejected";
      signal?: "self_referral" | "duplicate_payout" | "click_burst" | "refund_rate";
      ref_code?: string;
    };
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          id: string;
          ref_code: string;
          signal: "self_referral" | "duplicate_payout" | "click_burst" | "refund_rate";
          action: "flag" | "hold";
          status: "open" | "released" | "rejected";
          evidence: {
            at: string;
            detail: string;
            order_id?: string;
            click_at?: string;
          }[];
          held: {
            count: number;
            amount: number;
            currency: string;
          };
          opened_at: string;
          resolved_at: string | null;
          note: string | null;
        }[];
        next_cursor: string | null;
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "GET /api/fraud/cases/{id}": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        case: {
          id: string;
          ref_code: string;
          signal: "self_referral" | "duplicate_payout" | "click_burst" | "refund_rate";
          action: "flag" | "hold";
          status: "open" | "released" | "rejected";
          evidence: {
            at: string;
            detail: string;
            order_id?: string;
            click_at?: string;
          }[];
          held: {
            count: number;
            amount: number;
            currency: string;
          };
          opened_at: string;
          resolved_at: string | null;
          note: string | null;
        };
      };
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "POST /api/fraud/cases/{id}/reject": {
    params: {
      id: string;
    };
    query: never;
    body: {
      note?: string;
    };
    responses: {
      200: {
        success: true;
        case: {
          id: string;
          ref_code: string;
          signal: "self_referral" | "duplicate_payout" | "click_burst" | "refund_rate";
          action: "flag" | "hold";
          status: "open" | "released" | "rejected";
          evidence: {
            at: string;
            detail: string;
            order_id?: string;
            click_at?: string;
          }[];
          held: {
            count: number;
            amount: number;
            currency: string;
          };
          opened_at: string;
          resolved_at: string | null;
          note: string | null;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
      409: ErrorBody;
    };
  };
  "POST /api/fraud/cases/{id}/release": {
    params: {
      id: string;
    };
    query: never;
    body: {
      note?: string;
    };
    responses: {
      200: {
        success: true;
        case: {
          id: string;
          ref_code: string;
          signal: "self_referral" | "duplicate_payout" | "click_burst" | "refund_rate";
          action: "flag" | "hold";
          status: "open" | "released" | "rejected";
          evidence: {
            at: string;
            detail: string;
            order_id?: string;
            click_at?: string;
          }[];
          held: {
            count: number;
            amount: number;
            currency: string;
          };
          opened_at: string;
          resolved_at: string | null;
          note: string | null;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
      409: ErrorBody;
    };
  };
  "GET /api/fraud/open-count": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        open: number;
      };
      401: ErrorBody;
    };
  };
  "POST /api/inbound": {
    params: never;
    query: never;
    body: {
      to: string;
      from?: string | null;
      from_name?: string | null;
      subject?: string | null;
      text?: string | null;
      html?: string | null;
      attachments?: ({
        filename?: string | null;
        content_type?: string | null;
        content_base64: string;
      }[]) | null;
    };
    responses: {
      201: {
        success: true;
        message: {
          id: string;
          mailboxes: string[];
          received_at: string;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
      413: ErrorBody;
      503: ErrorBody;
    };
  };
  "POST /api/mailboxes": {
    params: never;
    query: never;
    body: {
      name?: string | null;
      domain?: string | null;
      ref?: string | null;
      ref_code?: string | null;
    };
    responses: {
      201: {
        success: true;
        mailbox: {
          address: string;
          ref_code: string | null;
          token: string;
          created_at: string;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      409: ErrorBody;
    };
  };
  "GET /api/mailboxes/without-token": {
    params: never;
    query: {
      limit?: number;
      cursor?: string;
    };
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          address: string;
          domain: string;
          created_at: string;
        }[];
        next_cursor: string | null;
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "GET /api/mailboxes/{address}/messages": {
    params: {
      address: string;
    };
    query: {
      limit?: number;
      cursor?: string;
      q?: string;
    };
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          id: string;
          from: string | null;
          from_name: string | null;
          subject: string | null;
          received_at: string;
          size: number;
          attachments_count: number;
          seen: boolean;
          code: string | null;
        }[];
        next_cursor: string | null;
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /api/mailboxes/{address}/messages/wait": {
    params: {
      address: string;
    };
    query: {
      timeout?: number;
      after?: string;
      from?: string;
      subject?: string;
      has_code?: "true" | "false";
    };
    body: never;
    responses: {
      200: {
        success: true;
        message: {
          id: string;
          mailbox: string;
          from: string | null;
          from_name: string | null;
          to: string | null;
          subject: string | null;
          received_at: string;
          size: number;
          attachments_count: number;
          seen: boolean;
          code: string | null;
          links: string[];
          verification_link: string | null;
          text: string | null;
          html: string | null;
          remote_images: number;
          html_dropped: boolean;
          attachments: {
            id: string;
            filename: string;
            content_type: string;
            size: number;
          }[];
          headers: {
            name: string;
            value: string;
          }[];
        } | null;
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
      429: ErrorBody;
    };
  };
  "DELETE /api/mailboxes/{address}/messages/{id}": {
    params: {
      address: string;
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /api/mailboxes/{address}/messages/{id}": {
    params: {
      address: string;
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        message: {
          id: string;
          mailbox: string;
          from: string | null;
          from_name: string | null;
          to: string | null;
          subject: string | null;
          received_at: string;
          size: number;
          attachments_count: number;
          seen: boolean;
          code: string | null;
          links: string[];
          verification_link: string | null;
          text: string | null;
          html: string | null;
          remote_images: number;
          html_dropped: boolean;
          attachments: {
            id: string;
            filename: string;
            content_type: string;
            size: number;
          }[];
          headers: {
            name: string;
            value: string;
          }[];
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "PATCH /api/mailboxes/{address}/messages/{id}": {
    params: {
      address: string;
      id: string;
    };
    query: never;
    body: {
      seen: boolean;
    };
    responses: {
      200: {
        success: true;
        message: {
          id: string;
          mailbox: string;
          from: string | null;
          from_name: string | null;
          to: string | null;
          subject: string | null;
          received_at: string;
          size: number;
          attachments_count: number;
          seen: boolean;
          code: string | null;
          links: string[];
          verification_link: string | null;
          text: string | null;
          html: string | null;
          remote_images: number;
          html_dropped: boolean;
          attachments: {
            id: string;
            filename: string;
            content_type: string;
            size: number;
          }[];
          headers: {
            name: string;
            value: string;
          }[];
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /api/mailboxes/{address}/messages/{id}/attachments/{attachmentId}": {
    params: {
      address: string;
      id: string;
      attachmentId: string;
    };
    query: never;
    body: never;
    responses: {
      200: unknown;
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /api/mailboxes/{address}/messages/{id}/html": {
    params: {
      address: string;
      id: string;
    };
    query: {
      remote_images?: "true" | "false";
    };
    body: never;
    responses: {
      200: unknown;
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
      503: ErrorBody;
    };
  };
  "GET /api/mailboxes/{address}/messages/{id}/source": {
    params: {
      address: string;
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: unknown;
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
      503: ErrorBody;
    };
  };
  "GET /api/orders": {
    params: never;
    query: {
      limit?: number;
      cursor?: string;
      status?: "created" | "paid" | "partially_refunded" | "refunded";
      email?: string;
      q?: string;
    };
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          order_id: string;
          email: string;
          amount: number;
          currency: string;
          product: string;
          status: "created" | "paid" | "partially_refunded" | "refunded";
          created_at: string;
          paid_at?: string;
          refunded_amount?: number;
          ref_code: string | null;
          commission: {
            id: string;
            commission: number;
            status: "pending" | "approved" | "paid" | "void";
            void_reason: ("refunded" | "disputed" | "fraud") | null;
          } | null;
        }[];
        next_cursor: string | null;
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "POST /api/orders": {
    params: never;
    query: never;
    body: {
      order_id: string;
      email: string;
      amount: number;
      product: string;
      ref_code?: string;
      currency?: string;
    };
    responses: {
      200: {
        success: true;
        order: {
          order_id: string;
          email: string;
          amount: number;
          currency: string;
          product: string;
          status: "created" | "paid" | "partially_refunded" | "refunded";
          created_at: string;
          paid_at?: string;
          refunded_amount?: number;
        };
      };
      201: {
        success: true;
        order: {
          order_id: string;
          email: string;
          amount: number;
          currency: string;
          product: string;
          status: "created" | "paid" | "partially_refunded" | "refunded";
          created_at: string;
          paid_at?: string;
          refunded_amount?: number;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      409: ErrorBody;
      422: ErrorBody;
    };
  };
  "GET /api/orders.csv": {
    params: never;
    query: {
      status?: "created" | "paid" | "partially_refunded" | "refunded";
      email?: string;
      q?: string;
    };
    body: never;
    responses: {
      200: unknown;
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "POST /api/orders/pay": {
    params: never;
    query: never;
    body: {
      order_id: string;
    };
    responses: {
      200: {
        success: true;
        order: {
          order_id: string;
          email: string;
          amount: number;
          currency: string;
          product: string;
          status: "created" | "paid" | "partially_refunded" | "refunded";
          created_at: string;
          paid_at?: string;
          refunded_amount?: number;
        };
        commission: {
          id: string;
          order_id: string;
          ref_code: string;
          amount: number;
          rate: number;
          commission: number;
          currency: string;
          status: "pending" | "approved" | "paid" | "void";
          kind: "sale" | "clawback";
          rule_id: string | null;
          void_reason: ("refunded" | "disputed" | "fraud") | null;
          hold: {
            case_id: string;
            signal: "self_referral" | "duplicate_payout" | "click_burst" | "refund_rate";
          } | null;
          created_at: string;
        } | null;
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "POST /api/orders/refund": {
    params: never;
    query: never;
    body: {
      order_id: string;
      amount?: number;
    };
    responses: {
      200: {
        success: true;
        order: {
          order_id: string;
          email: string;
          amount: number;
          currency: string;
          product: string;
          status: "created" | "paid" | "partially_refunded" | "refunded";
          created_at: string;
          paid_at?: string;
          refunded_amount?: number;
        };
        refund: {
          amount: number;
        };
        commission: {
          id: string;
          order_id: string;
          ref_code: string;
          amount: number;
          rate: number;
          commission: number;
          currency: string;
          status: "pending" | "approved" | "paid" | "void";
          kind: "sale" | "clawback";
          rule_id: string | null;
          void_reason: ("refunded" | "disputed" | "fraud") | null;
          hold: {
            case_id: string;
            signal: "self_referral" | "duplicate_payout" | "click_burst" | "refund_rate";
          } | null;
          created_at: string;
        } | null;
        clawback: {
          id: string;
          order_id: string;
          ref_code: string;
          amount: number;
          rate: number;
          commission: number;
          currency: string;
          status: "pending" | "approved" | "paid" | "void";
          kind: "sale" | "clawback";
          rule_id: string | null;
          void_reason: ("refunded" | "disputed" | "fraud") | null;
          hold: {
            case_id: string;
            signal: "self_referral" | "duplicate_payout" | "click_burst" | "refund_rate";
          } | null;
          created_at: string;
        } | null;
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
      409: ErrorBody;
      422: ErrorBody;
    };
  };
  "GET /api/orders/{order_id}": {
    params: {
      order_id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        order: {
          order_id: string;
          email: string;
          amount: number;
          currency: string;
          product: string;
          status: "created" | "paid" | "partially_refunded" | "refunded";
          created_at: string;
          paid_at?: string;
          refunded_amount?: number;
        };
        commission: {
          id: string;
          order_id: string;
          ref_code: string;
          amount: number;
          rate: number;
          commission: number;
          currency: string;
          status: "pending" | "approved" | "paid" | "void";
          kind: "sale" | "clawback";
          rule_id: string | null;
          void_reason: ("refunded" | "disputed" | "fraud") | null;
          hold: {
            case_id: string;
            signal: "self_referral" | "duplicate_payout" | "click_burst" | "refund_rate";
          } | null;
          created_at: string;
        } | null;
      };
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /api/payout-batches": {
    params: never;
    query: {
      limit?: number;
      cursor?: string;
    };
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          id: string;
          method: "paypal" | "wise" | "sepa" | "other";
          status: "open" | "paid";
          currency: string;
          total: number;
          count: number;
          withdrawal_ids: string[];
          file_parts: number;
          created_at: string;
          paid_at: string | null;
        }[];
        next_cursor: string | null;
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "POST /api/payout-batches": {
    params: never;
    query: never;
    body: {
      method: "paypal" | "wise" | "sepa" | "other";
    };
    responses: {
      201: {
        success: true;
        batch: {
          id: string;
          method: "paypal" | "wise" | "sepa" | "other";
          status: "open" | "paid";
          currency: string;
          total: number;
          count: number;
          withdrawal_ids: string[];
          file_parts: number;
          created_at: string;
          paid_at: string | null;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      422: ErrorBody;
    };
  };
  "GET /api/payout-batches/{id}": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        batch: {
          id: string;
          method: "paypal" | "wise" | "sepa" | "other";
          status: "open" | "paid";
          currency: string;
          total: number;
          count: number;
          withdrawal_ids: string[];
          file_parts: number;
          created_at: string;
          paid_at: string | null;
        };
      };
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /api/payout-batches/{id}/file": {
    params: {
      id: string;
    };
    query: {
      part?: number;
    };
    body: never;
    responses: {
      200: unknown;
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
      422: ErrorBody;
    };
  };
  "POST /api/payout-batches/{id}/mark-paid": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        batch: {
          id: string;
          method: "paypal" | "wise" | "sepa" | "other";
          status: "open" | "paid";
          currency: string;
          total: number;
          count: number;
          withdrawal_ids: string[];
          file_parts: number;
          created_at: string;
          paid_at: string | null;
        };
      };
      401: ErrorBody;
      404: ErrorBody;
      409: ErrorBody;
    };
  };
  "GET /api/payouts/owed": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        owed: {
          method: string;
          currency: string;
          count: number;
          total: number;
        }[];
      };
      401: ErrorBody;
    };
  };
  "GET /api/reports/daily": {
    params: never;
    query: {
      ref_code?: string;
      from?: string;
      to?: string;
    };
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          day: string;
          clicks: number;
          mailboxes: number;
          orders: number;
          revenue: number;
          commission: number;
        }[];
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "GET /api/withdrawals": {
    params: never;
    query: {
      limit?: number;
      cursor?: string;
      status?: "requested" | "paid" | "rejected";
      ref_code?: string;
    };
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          id: string;
          ref_code: string;
          amount: number;
          currency: string;
          status: "requested" | "paid" | "rejected";
          payout: {
            method: "paypal" | "wise" | "sepa" | "other";
            email?: string;
            iban?: string;
            bic?: string;
            account_holder?: string;
            note?: string;
          } | null;
          batch_id: string | null;
          created_at: string;
        }[];
        next_cursor: string | null;
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "POST /api/withdrawals": {
    params: never;
    query: never;
    body: {
      ref_code: string;
      amount: number;
    };
    responses: {
      201: {
        success: true;
        withdrawal: {
          id: string;
          ref_code: string;
          amount: number;
          currency: string;
          status: "requested" | "paid" | "rejected";
          payout: {
            method: "paypal" | "wise" | "sepa" | "other";
            email?: string;
            iban?: string;
            bic?: string;
            account_holder?: string;
            note?: string;
          } | null;
          batch_id: string | null;
          created_at: string;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
      422: ErrorBody;
    };
  };
  "GET /api/withdrawals.csv": {
    params: never;
    query: {
      status?: "requested" | "paid" | "rejected";
      ref_code?: string;
    };
    body: never;
    responses: {
      200: unknown;
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "GET /api/withdrawals/{id}": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        withdrawal: {
          id: string;
          ref_code: string;
          amount: number;
          currency: string;
          status: "requested" | "paid" | "rejected";
          payout: {
            method: "paypal" | "wise" | "sepa" | "other";
            email?: string;
            iban?: string;
            bic?: string;
            account_holder?: string;
            note?: string;
          } | null;
          batch_id: string | null;
          created_at: string;
        };
      };
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "POST /api/withdrawals/{id}/mark-paid": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        withdrawal: {
          id: string;
          ref_code: string;
          amount: number;
          currency: string;
          status: "requested" | "paid" | "rejected";
          payout: {
            method: "paypal" | "wise" | "sepa" | "other";
            email?: string;
            iban?: string;
            bic?: string;
            account_holder?: string;
            note?: string;
          } | null;
          batch_id: string | null;
          created_at: string;
        };
      };
      401: ErrorBody;
      404: ErrorBody;
      409: ErrorBody;
    };
  };
  "POST /api/withdrawals/{id}/reject": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        withdrawal: {
          id: string;
          ref_code: string;
          amount: number;
          currency: string;
          status: "requested" | "paid" | "rejected";
          payout: {
            method: "paypal" | "wise" | "sepa" | "other";
            email?: string;
            iban?: string;
            bic?: string;
            account_holder?: string;
            note?: string;
          } | null;
          batch_id: string | null;
          created_at: string;
        };
      };
      401: ErrorBody;
      404: ErrorBody;
      409: ErrorBody;
    };
  };
  "GET /go/{ref_code}": {
    params: {
      ref_code: string;
    };
    query: never;
    body: never;
    responses: {
      302: unknown;
    };
  };
  "GET /healthz": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        status: "ok";
      };
    };
  };
  "POST /integrations/lemonsqueezy": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        duplicate: boolean;
        outcome: "applied" | "ignored" | "failed";
        reason: string | null;
        order_id: string | null;
      };
      400: ErrorBody;
      413: ErrorBody;
    };
  };
  "POST /integrations/paddle": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        duplicate: boolean;
        outcome: "applied" | "ignored" | "failed";
        reason: string | null;
        order_id: string | null;
      };
      400: ErrorBody;
      413: ErrorBody;
    };
  };
  "POST /integrations/stripe": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        duplicate: boolean;
        outcome: "applied" | "ignored" | "failed";
        reason: string | null;
        order_id: string | null;
      };
      400: ErrorBody;
      413: ErrorBody;
    };
  };
  "POST /mailboxes": {
    params: never;
    query: never;
    body: {
      name?: string | null;
      domain?: string | null;
      ref?: string | null;
      ref_code?: string | null;
    };
    responses: {
      201: {
        success: true;
        mailbox: {
          address: string;
          ref_code: string | null;
          token: string;
          created_at: string;
        };
      };
      400: ErrorBody;
      409: ErrorBody;
      429: ErrorBody;
    };
  };
  "GET /mailboxes/{address}/events": {
    params: {
      address: string;
    };
    query: {
      token?: string;
    };
    body: never;
    responses: {
      200: unknown;
      401: ErrorBody;
      429: ErrorBody;
    };
  };
  "GET /mailboxes/{address}/messages": {
    params: {
      address: string;
    };
    query: {
      limit?: number;
      cursor?: string;
      q?: string;
    };
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          id: string;
          from: string | null;
          from_name: string | null;
          subject: string | null;
          received_at: string;
          size: number;
          attachments_count: number;
          seen: boolean;
          code: string | null;
        }[];
        next_cursor: string | null;
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /mailboxes/{address}/messages/wait": {
    params: {
      address: string;
    };
    query: {
      timeout?: number;
      after?: string;
      from?: string;
      subject?: string;
      has_code?: "true" | "false";
    };
    body: never;
    responses: {
      200: {
        success: true;
        message: {
          id: string;
          mailbox: string;
          from: string | null;
          from_name: string | null;
          to: string | null;
          subject: string | null;
          received_at: string;
          size: number;
          attachments_count: number;
          seen: boolean;
          code: string | null;
          links: string[];
          verification_link: string | null;
          text: string | null;
          html: string | null;
          remote_images: number;
          html_dropped: boolean;
          attachments: {
            id: string;
            filename: string;
            content_type: string;
            size: number;
          }[];
          headers: {
            name: string;
            value: string;
          }[];
        } | null;
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
      429: ErrorBody;
    };
  };
  "DELETE /mailboxes/{address}/messages/{id}": {
    params: {
      address: string;
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /mailboxes/{address}/messages/{id}": {
    params: {
      address: string;
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        message: {
          id: string;
          mailbox: string;
          from: string | null;
          from_name: string | null;
          to: string | null;
          subject: string | null;
          received_at: string;
          size: number;
          attachments_count: number;
          seen: boolean;
          code: string | null;
          links: string[];
          verification_link: string | null;
          text: string | null;
          html: string | null;
          remote_images: number;
          html_dropped: boolean;
          attachments: {
            id: string;
            filename: string;
            content_type: string;
            size: number;
          }[];
          headers: {
            name: string;
            value: string;
          }[];
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "PATCH /mailboxes/{address}/messages/{id}": {
    params: {
      address: string;
      id: string;
    };
    query: never;
    body: {
      seen: boolean;
    };
    responses: {
      200: {
        success: true;
        message: {
          id: string;
          mailbox: string;
          from: string | null;
          from_name: string | null;
          to: string | null;
          subject: string | null;
          received_at: string;
          size: number;
          attachments_count: number;
          seen: boolean;
          code: string | null;
          links: string[];
          verification_link: string | null;
          text: string | null;
          html: string | null;
          remote_images: number;
          html_dropped: boolean;
          attachments: {
            id: string;
            filename: string;
            content_type: string;
            size: number;
          }[];
          headers: {
            name: string;
            value: string;
          }[];
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /mailboxes/{address}/messages/{id}/attachments/{attachmentId}": {
    params: {
      address: string;
      id: string;
      attachmentId: string;
    };
    query: never;
    body: never;
    responses: {
      200: unknown;
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /mailboxes/{address}/messages/{id}/html": {
    params: {
      address: string;
      id: string;
    };
    query: {
      token?: string;
      remote_images?: "true" | "false";
    };
    body: never;
    responses: {
      200: unknown;
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
      503: ErrorBody;
    };
  };
  "GET /mailboxes/{address}/messages/{id}/source": {
    params: {
      address: string;
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: unknown;
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
      503: ErrorBody;
    };
  };
  "GET /mailtm/.well-known/mercure": {
    params: never;
    query: {
      topic?: string | string[];
      authorization?: string;
      lastEventID?: string;
    };
    body: never;
    responses: {
      200: unknown;
      400: ErrorBody;
      401: ErrorBody;
      429: ErrorBody;
    };
  };
  "POST /mailtm/accounts": {
    params: never;
    query: {
      ref?: string;
    };
    body: {
      address: string;
      password: string;
    };
    responses: {
      201: {
        "@context": string;
        "@id": string;
        "@type": string;
        id: string;
        address: string;
        quota: number;
        used: number;
        isDisabled: boolean;
        isDeleted: boolean;
        createdAt: string;
        updatedAt: string;
      } | {
        id: string;
        address: string;
        quota: number;
        used: number;
        isDisabled: boolean;
        isDeleted: boolean;
        createdAt: string;
        updatedAt: string;
      };
      400: ErrorBody;
      422: ErrorBody;
      429: ErrorBody;
    };
  };
  "DELETE /mailtm/accounts/{id}": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      204: unknown;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /mailtm/accounts/{id}": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        "@context": string;
        "@id": string;
        "@type": string;
        id: string;
        address: string;
        quota: number;
        used: number;
        isDisabled: boolean;
        isDeleted: boolean;
        createdAt: string;
        updatedAt: string;
      } | {
        id: string;
        address: string;
        quota: number;
        used: number;
        isDisabled: boolean;
        isDeleted: boolean;
        createdAt: string;
        updatedAt: string;
      };
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /mailtm/domains": {
    params: never;
    query: {
      page?: number;
    };
    body: never;
    responses: {
      200: {
        "@context": string;
        "@id": string;
        "@type": "hydra:Collection";
        "hydra:member": {
          "@id": string;
          "@type": string;
          id: string;
          domain: string;
          isActive: boolean;
          isPrivate: boolean;
          createdAt: string;
          updatedAt: string;
        }[];
        "hydra:totalItems": number;
        "hydra:view"?: {
          "@id": string;
          "@type": "hydra:PartialCollectionView";
          "hydra:first"?: string;
          "hydra:last"?: string;
          "hydra:previous"?: string;
          "hydra:next"?: string;
        };
      } | {
        id: string;
        domain: string;
        isActive: boolean;
        isPrivate: boolean;
        createdAt: string;
        updatedAt: string;
      }[];
      400: ErrorBody;
    };
  };
  "GET /mailtm/domains/{id}": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        "@context": string;
        "@id": string;
        "@type": string;
        id: string;
        domain: string;
        isActive: boolean;
        isPrivate: boolean;
        createdAt: string;
        updatedAt: string;
      } | {
        id: string;
        domain: string;
        isActive: boolean;
        isPrivate: boolean;
        createdAt: string;
        updatedAt: string;
      };
      404: ErrorBody;
    };
  };
  "GET /mailtm/me": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        "@context": string;
        "@id": string;
        "@type": string;
        id: string;
        address: string;
        quota: number;
        used: number;
        isDisabled: boolean;
        isDeleted: boolean;
        createdAt: string;
        updatedAt: string;
      } | {
        id: string;
        address: string;
        quota: number;
        used: number;
        isDisabled: boolean;
        isDeleted: boolean;
        createdAt: string;
        updatedAt: string;
      };
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /mailtm/messages": {
    params: never;
    query: {
      page?: number;
    };
    body: never;
    responses: {
      200: {
        "@context": string;
        "@id": string;
        "@type": "hydra:Collection";
        "hydra:member": {
          "@id": string;
          "@type": string;
          id: string;
          accountId: string;
          msgid: string;
          from: {
            address: string;
            name: string;
          };
          to: {
            address: string;
            name: string;
          }[];
          subject: string;
          seen: boolean;
          isDeleted: boolean;
          hasAttachments: boolean;
          size: number;
          downloadUrl: string;
          createdAt: string;
          updatedAt: string;
          intro: string;
        }[];
        "hydra:totalItems": number;
        "hydra:view"?: {
          "@id": string;
          "@type": "hydra:PartialCollectionView";
          "hydra:first"?: string;
          "hydra:last"?: string;
          "hydra:previous"?: string;
          "hydra:next"?: string;
        };
      } | {
        id: string;
        accountId: string;
        msgid: string;
        from: {
          address: string;
          name: string;
        };
        to: {
          address: string;
          name: string;
        }[];
        subject: string;
        seen: boolean;
        isDeleted: boolean;
        hasAttachments: boolean;
        size: number;
        downloadUrl: string;
        createdAt: string;
        updatedAt: string;
        intro: string;
      }[];
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "DELETE /mailtm/messages/{id}": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      204: unknown;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /mailtm/messages/{id}": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        "@context": string;
        "@id": string;
        "@type": string;
        id: string;
        accountId: string;
        msgid: string;
        from: {
          address: string;
          name: string;
        };
        to: {
          address: string;
          name: string;
        }[];
        subject: string;
        seen: boolean;
        isDeleted: boolean;
        hasAttachments: boolean;
        size: number;
        downloadUrl: string;
        createdAt: string;
        updatedAt: string;
        cc: string[];
        bcc: string[];
        flagged: boolean;
        verifications: string[];
        retention: boolean;
        retentionDate: string;
        text: string;
        html: string[];
        attachments: {
          id: string;
          filename: string;
          contentType: string;
          disposition: "attachment" | "inline";
          transferEncoding: string;
          related: boolean;
          size: number;
          downloadUrl: string;
        }[];
        sourceUrl: string;
      } | {
        id: string;
        accountId: string;
        msgid: string;
        from: {
          address: string;
          name: string;
        };
        to: {
          address: string;
          name: string;
        }[];
        subject: string;
        seen: boolean;
        isDeleted: boolean;
        hasAttachments: boolean;
        size: number;
        downloadUrl: string;
        createdAt: string;
        updatedAt: string;
        cc: string[];
        bcc: string[];
        flagged: boolean;
        verifications: string[];
        retention: boolean;
        retentionDate: string;
        text: string;
        html: string[];
        attachments: {
          id: string;
          filename: string;
          contentType: string;
          disposition: "attachment" | "inline";
          transferEncoding: string;
          related: boolean;
          size: number;
          downloadUrl: string;
        }[];
        sourceUrl: string;
      };
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "PATCH /mailtm/messages/{id}": {
    params: {
      id: string;
    };
    query: never;
    body: {
      seen: boolean;
    };
    responses: {
      200: {
        seen: boolean;
      };
      400: ErrorBody;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /mailtm/messages/{id}/attachment/{attachmentId}": {
    params: {
      id: string;
      attachmentId: string;
    };
    query: never;
    body: never;
    responses: {
      200: unknown;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /mailtm/messages/{id}/download": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: unknown;
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "GET /mailtm/sources/{id}": {
    params: {
      id: string;
    };
    query: never;
    body: never;
    responses: {
      200: {
        "@context": string;
        "@id": string;
        "@type": string;
        id: string;
        downloadUrl: string;
        data: string;
      } | {
        id: string;
        downloadUrl: string;
        data: string;
      };
      401: ErrorBody;
      404: ErrorBody;
    };
  };
  "POST /mailtm/token": {
    params: never;
    query: never;
    body: {
      address: string;
      password: string;
    };
    responses: {
      200: {
        id: string;
        token: string;
      };
      400: ErrorBody;
      401: ErrorBody;
      429: ErrorBody;
    };
  };
  "DELETE /mcp": {
    params: never;
    query: never;
    body: never;
    responses: {
      405: ErrorBody;
    };
  };
  "GET /mcp": {
    params: never;
    query: never;
    body: never;
    responses: {
      405: ErrorBody;
    };
  };
  "POST /mcp": {
    params: never;
    query: never;
    body: unknown;
    responses: {
      200: string;
      400: ErrorBody;
      401: ErrorBody;
      429: ErrorBody;
    };
  };
  "GET /openapi.json": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: string;
    };
  };
  "POST /portal/api/accept-invite": {
    params: never;
    query: never;
    body: {
      token: string;
      password: string;
    };
    responses: {
      200: {
        success: true;
        csrf_token: string;
        ref_code: string;
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "GET /portal/api/commissions": {
    params: never;
    query: {
      limit?: number;
      cursor?: string;
    };
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          id: string;
          order_id: string;
          ref_code: string;
          amount: number;
          rate: number;
          commission: number;
          currency: string;
          status: "pending" | "approved" | "paid" | "void";
          kind: "sale" | "clawback";
          rule_id: string | null;
          void_reason: ("refunded" | "disputed" | "fraud") | null;
          created_at: string;
          under_review: boolean;
        }[];
        next_cursor: string | null;
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "POST /portal/api/confirm-email": {
    params: never;
    query: never;
    body: {
      token: string;
    };
    responses: {
      200: {
        success: true;
        ref_code: string;
        email: string;
      };
      400: ErrorBody;
      409: ErrorBody;
    };
  };
  "POST /portal/api/confirm-email/resend": {
    params: never;
    query: never;
    body: never;
    responses: {
      202: {
        success: true;
        mail: "queued" | "not_configured" | "no_email";
      };
      401: ErrorBody;
      403: ErrorBody;
      409: ErrorBody;
    };
  };
  "POST /portal/api/forgot-password": {
    params: never;
    query: never;
    body: {
      login: string;
    };
    responses: {
      202: {
        success: true;
        mail: "queued" | "not_configured";
      };
      400: ErrorBody;
      429: ErrorBody;
    };
  };
  "POST /portal/api/login": {
    params: never;
    query: never;
    body: {
      login?: string;
      ref_code?: string;
      password: string;
    };
    responses: {
      200: {
        success: true;
        csrf_token: string;
        ref_code: string;
      };
      400: ErrorBody;
      401: ErrorBody;
      429: ErrorBody;
    };
  };
  "POST /portal/api/logout": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
      };
      401: ErrorBody;
      403: ErrorBody;
    };
  };
  "GET /portal/api/me": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        affiliate: {
          ref_code: string;
          name: string | null;
          email: string | null;
          email_confirmed: boolean;
          status: "active" | "disabled" | "pending";
          commission_rate: number;
          link: string;
          payout_details: {
            method: "paypal" | "wise" | "sepa" | "other";
            email?: string;
            iban?: string;
            bic?: string;
            account_holder?: string;
            note?: string;
          } | null;
          currency: string;
          notify: {
            commissions: boolean;
            payouts: boolean;
          };
          mail_configured: boolean;
        };
      };
      401: ErrorBody;
    };
  };
  "PATCH /portal/api/me": {
    params: never;
    query: never;
    body: {
      name?: string;
      payout_details?: {
        method: "paypal";
        email: string;
        note?: string;
      } | {
        method: "wise";
        email: string;
        account_holder?: string;
        note?: string;
      } | {
        method: "sepa";
        iban: string;
        bic?: string;
        account_holder: string;
        note?: string;
      } | {
        method: "other";
        note: string;
      } | null;
      notify?: {
        commissions?: boolean;
        payouts?: boolean;
      };
      current_password?: string;
    };
    responses: {
      200: {
        success: true;
        affiliate: {
          ref_code: string;
          name: string | null;
          email: string | null;
          email_confirmed: boolean;
          status: "active" | "disabled" | "pending";
          commission_rate: number;
          link: string;
          payout_details: {
            method: "paypal" | "wise" | "sepa" | "other";
            email?: string;
            iban?: string;
            bic?: string;
            account_holder?: string;
            note?: string;
          } | null;
          currency: string;
          notify: {
            commissions: boolean;
            payouts: boolean;
          };
          mail_configured: boolean;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      403: ErrorBody;
      429: ErrorBody;
    };
  };
  "POST /portal/api/password": {
    params: never;
    query: never;
    body: {
      current_password: string;
      new_password: string;
    };
    responses: {
      200: {
        success: true;
      };
      400: ErrorBody;
      401: ErrorBody;
      403: ErrorBody;
      429: ErrorBody;
    };
  };
  "POST /portal/api/reset-password": {
    params: never;
    query: never;
    body: {
      token: string;
      password: string;
    };
    responses: {
      200: {
        success: true;
        csrf_token: string;
        ref_code: string;
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "GET /portal/api/session": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        csrf_token: string;
        ref_code: string;
      };
      401: ErrorBody;
    };
  };
  "GET /portal/api/signup": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        signup: "closed" | "review" | "open";
      };
    };
  };
  "POST /portal/api/signup": {
    params: never;
    query: never;
    body: {
      ref_code: string;
      name: string;
      email: string;
      password: string;
    };
    responses: {
      201: {
        success: true;
        affiliate: {
          ref_code: string;
          name: string | null;
          email: string | null;
          status: "active" | "disabled" | "pending";
          commission_rate: number | null;
          created_at: string;
          payout_details?: {
            method: "paypal" | "wise" | "sepa" | "other";
            email?: string;
            iban?: string;
            bic?: string;
            account_holder?: string;
            note?: string;
          } | null;
        };
        csrf_token: string | null;
        confirmation_mail: "queued" | "not_configured";
      };
      400: ErrorBody;
      403: ErrorBody;
      409: ErrorBody;
      429: ErrorBody;
    };
  };
  "GET /portal/api/summary": {
    params: never;
    query: {
      from?: string;
      to?: string;
    };
    body: never;
    responses: {
      200: {
        success: true;
        summary: {
          ref_code: string;
          clicks: number;
          mailboxes: number;
          conversion_rate: number;
          orders: number;
          order_rate: number;
          revenue: number;
          commission: {
            pending: number;
            approved: number;
            paid: number;
            void: number;
            total: number;
          };
          withdrawals: {
            requested: number;
            paid: number;
          };
          balance: number;
          currency: string;
        };
        days: {
          day: string;
          clicks: number;
          mailboxes: number;
          orders: number;
          commission: number;
        }[];
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "GET /portal/api/withdrawals": {
    params: never;
    query: {
      limit?: number;
      cursor?: string;
    };
    body: never;
    responses: {
      200: {
        success: true;
        items: {
          id: string;
          ref_code: string;
          amount: number;
          currency: string;
          status: "requested" | "paid" | "rejected";
          payout: {
            method: "paypal" | "wise" | "sepa" | "other";
            email?: string;
            iban?: string;
            bic?: string;
            account_holder?: string;
            note?: string;
          } | null;
          batch_id: string | null;
          created_at: string;
        }[];
        next_cursor: string | null;
      };
      400: ErrorBody;
      401: ErrorBody;
    };
  };
  "POST /portal/api/withdrawals": {
    params: never;
    query: never;
    body: {
      amount: number;
    };
    responses: {
      201: {
        success: true;
        withdrawal: {
          id: string;
          ref_code: string;
          amount: number;
          currency: string;
          status: "requested" | "paid" | "rejected";
          payout: {
            method: "paypal" | "wise" | "sepa" | "other";
            email?: string;
            iban?: string;
            bic?: string;
            account_holder?: string;
            note?: string;
          } | null;
          batch_id: string | null;
          created_at: string;
        };
      };
      400: ErrorBody;
      401: ErrorBody;
      403: ErrorBody;
      409: ErrorBody;
      422: ErrorBody;
    };
  };
  "GET /public/config": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        domains: string[];
        mailbox_ttl_hours: number;
      };
    };
  };
  "GET /readyz": {
    params: never;
    query: never;
    body: never;
    responses: {
      200: {
        success: true;
        status: "ready";
        database: "sqlite" | "postgres";
      };
      503: ErrorBody;
    };
  };
}
