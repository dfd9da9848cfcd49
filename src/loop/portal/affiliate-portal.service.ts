import type { PortalMailer } from './portal-mailer.js';
import type { AffiliateService } from '../affiliates/affiliate.service.js';
import type { Clock } from '../../platform/clock.js';
import type { CommissionService } from '../commissions/commission.service.js';
import type { Db } from '../../platform/db/database.js';
import type { Page } from '../../platform/db/keyset.js';
import { fromCents } from '../../platform/money.js';
import type { ReportService, SummaryRow } from '../reports/report.service.js';
import type { SettingsService } from '../../platform/settings/settings.service.js';
import type { Commission, Withdrawal } from '../../platform/db/schema.js';
import type { WithdrawalService } from '../withdrawals/withdrawal.service.js';
import type { PortalAuthService, PortalSession } from './portal-auth.service.js';
import type { PortalMe, UpdateMeInput } from './portal.schemas.js';
import { findAccount, payoutDetailsOf, upsertNotify } from './portal.repository.js';
import { describePayoutDetails, readPayoutDetails } from '../payouts/payout-details.js';
import type { PayoutService } from '../payouts/payout.service.js';


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
 * lists and the withdrawal rule are the existing services' (docs/ledger.md#balance-and-withdrawals,
 * docs/api.md#reports), called with that code.
 */
export interface AffiliateScope {
  readonly refCode: string;
  me(): Promise<PortalMe>;
  /** `client`: the request's address, for the throttle of the password check. */
  updateMe(input: UpdateMeInput, client: string): Promise<PortalMe>;
  summary(range: DayRange): Promise<{ summary: SummaryRow; days: PortalDay[] }>;
  commissions(page: PageQuery): Promise<Page<Commission>>;
  withdrawals(page: PageQuery): Promise<Page<Withdrawal>>;
  requestWithdrawal(amountCents: number): Promise<Withdrawal>;
}

/** The services the portal calls for the figures, lists and withdrawals (never their SQL). */
export interface PortalDeps {
  readonly affiliates: AffiliateService;
  readonly settings: SettingsService;
  readonly reports: ReportService;
  readonly commissions: CommissionService;
  readonly withdrawals: WithdrawalService;
  readonly portalAuth: PortalAuthService;
  readonly outboundMail: PortalMailer;
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
        // docs/api.md#affiliate-portal: where the money goes changes only with the password, before anything else
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
      requestWithdrawal: (amountCents) => withdrawals.request(refCode, amountCents),
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
      email_confirmed: a.email !== null && a.email_confirmed_at !== null,
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
