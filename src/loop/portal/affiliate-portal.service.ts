import type { OutboundMailService } from '../../mail/outmail/outbound-mail.service.js';
import { z } from 'zod';
import type { AffiliateService } from '../affiliates/affiliate.service.js';
import type { Clock } from '../../platform/clock.js';
import type { CommissionService, CommissionView } from '../commissions/commission.service.js';
import type { Db } from '../../platform/db/database.js';
import type { Page } from '../../platform/db/keyset.js';
import { fromCents } from '../../platform/money.js';
import type { ReportService, SummaryRow } from '../reports/report.service.js';
import type { SettingsService } from '../../platform/settings/settings.service.js';
import { type WithdrawalService, type WithdrawalView, withdrawalView } from '../withdrawals/withdrawal.service.js';
import type { PortalAuthService, PortalSession } from './portal-auth.service.js';
import { findAccount, payoutDetailsOf, upsertNotify } from './portal.repository.js';
import { describePayoutDetails, type PayoutDetails, payoutDetailsField, readPayoutDetails } from '../payouts/payout-details.js';
import type { PayoutService } from '../payouts/payout.service.js';

export const updateMeSchema = z.strictObject({
  name: z.string().trim().max(200).optional(),
  payout_details: payoutDetailsField.nullable().optional(),
  notify: z
    .strictObject({ commissions: z.boolean().optional(), payouts: z.boolean().optional() })
    .optional()
    .meta({ description: 'Mails when a commission is approved / a withdrawal is paid (both on by default); invitations and password resets are always sent' }),
  current_password: z
    .string()
    .max(1024)
    .optional()
    .meta({ description: 'The affiliate\'s current password: required with payout_details (missing or wrong: 403 password_required), not looked at otherwise' }),
});
export type UpdateMeInput = z.infer<typeof updateMeSchema>;

export interface PortalMe {
  readonly ref_code: string;
  readonly name: string | null;
  readonly email: string | null;
  readonly status: 'active' | 'disabled' | 'pending';
  /** The rate that applies: the affiliate's own, else the global one. */
  readonly commission_rate: number;
  readonly link: string;
  readonly payout_details: PayoutDetails | null;
  /** CONTRACT §18: the program currency, for formatting amounts. */
  readonly currency: string;
  /** Which notification mails the affiliate gets. */
  readonly notify: { readonly commissions: boolean; readonly payouts: boolean };
  /** false when this svc sends no mail at all (SVC_SMTP_URL unset). */
  readonly mail_configured: boolean;
}

export interface PortalDay {
  readonly day: string;
  readonly clicks: number;
  readonly mailboxes: number;
  readonly orders: number;
  readonly commission: number;
}

export interface DayRange {
  readonly from?: string;
  readonly to?: string;
}

export interface PageQuery {
  readonly limit: number;
  readonly cursor?: string;
}

/**
 * What one signed-in affiliate may read and do. Every method works on the session's ref_code, which
 * no method takes from its caller: a portal route cannot ask for another affiliate's rows. The figures,
 * lists and the withdrawal rule are the existing services' (CONTRACT §6, §7), called with that code.
 */
export interface AffiliateScope {
  readonly refCode: string;
  me(): Promise<PortalMe>;
  /** `client`: the request's address, for the throttle of the password check. */
  updateMe(input: UpdateMeInput, client: string): Promise<PortalMe>;
  summary(range: DayRange): Promise<{ summary: SummaryRow; days: PortalDay[] }>;
  commissions(page: PageQuery): Promise<Page<CommissionView>>;
  withdrawals(page: PageQuery): Promise<Page<WithdrawalView>>;
  requestWithdrawal(amountCents: number): Promise<WithdrawalView>;
}

/** The services the portal calls for the figures, lists and withdrawals (never their SQL). */
export interface PortalDeps {
  readonly affiliates: AffiliateService;
  readonly settings: SettingsService;
  readonly reports: ReportService;
  readonly commissions: CommissionService;
  readonly withdrawals: WithdrawalService;
  readonly portalAuth: PortalAuthService;
  readonly outboundMail: OutboundMailService;
  readonly payouts: PayoutService;
}

export class AffiliatePortalService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly baseUrl: string,
    private readonly services: () => PortalDeps,
  ) {}

  private get deps(): PortalDeps {
    return this.services();
  }

  /** The affiliate's view of the service, bound to the session. */
  for(session: PortalSession): AffiliateScope {
    const refCode = session.refCode;
    const { affiliates, reports, commissions, withdrawals, portalAuth } = this.deps;
    return {
      refCode,
      me: () => this.me(refCode),
      updateMe: async (input, client) => {
        // CONTRACT §16: where the money goes changes only with the password, before anything else
        // changes (a refused PATCH changes nothing); the name does not touch money and needs none.
        // Proved by test/integration/portal-session-security.test.ts.
        if (input.payout_details !== undefined) await portalAuth.requirePassword(session, input.current_password, client, 'the payout details');
        if (input.name !== undefined) await affiliates.update(refCode, { name: input.name });
        if (input.payout_details !== undefined) await this.deps.payouts.setDetails(refCode, input.payout_details);
        if (input.notify !== undefined) await upsertNotify(this.db, refCode, input.notify, this.clock.now());
        return this.me(refCode);
      },
      summary: async (range) => {
        const query = { ref_code: refCode, from: range.from, to: range.to };
        const { summary } = await reports.summary(query);
        const row = summary[0];
        if (!row) throw new Error(`no summary row for ${refCode}`);
        const days = (await reports.daily(query)).map(({ day, clicks, mailboxes, orders, commission }) => ({ day, clicks, mailboxes, orders, commission }));
        return { summary: row, days };
      },
      commissions: (page) => commissions.list({ refCode, limit: page.limit, cursor: page.cursor }),
      withdrawals: (page) => withdrawals.list({ refCode, limit: page.limit, cursor: page.cursor }),
      requestWithdrawal: async (amountCents) => withdrawalView(await withdrawals.request(refCode, amountCents), await withdrawals.currency()),
    };
  }

  /** Payout details beside withdrawals, for the admin (affiliates without any are left out). */
  async payoutDetails(refCodes: readonly string[]): Promise<{ ref_code: string; payout_details: string }[]> {
    const rows = await payoutDetailsOf(this.db, [...new Set(refCodes)]);
    return rows.flatMap((r) => {
      const d = readPayoutDetails(r.payout_details);
      return d ? [{ ref_code: r.ref_code, payout_details: describePayoutDetails(d) }] : [];
    });
  }

  private async me(refCode: string): Promise<PortalMe> {
    const a = await this.deps.affiliates.get(refCode);
    const account = await findAccount(this.db, refCode);
    const globalRate = (await this.deps.settings.get()).commission_rate;
    return {
      ref_code: a.ref_code,
      name: a.name,
      email: a.email,
      status: a.status,
      commission_rate: a.commission_rate_bp === null ? globalRate : fromCents(a.commission_rate_bp),
      link: `${this.baseUrl}/go/${encodeURIComponent(a.ref_code)}`,
      payout_details: readPayoutDetails(account?.payout_details),
      currency: (await this.deps.settings.currency()).code,
      notify: { commissions: (account?.notify_commissions ?? 1) !== 0, payouts: (account?.notify_payouts ?? 1) !== 0 },
      mail_configured: this.deps.outboundMail.configured,
    };
  }
}
