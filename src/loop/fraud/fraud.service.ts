import type { Clock } from '../../platform/clock.js';
import { type Db, type Executor, inTransaction } from '../../platform/db/database.js';
import type { Commission, FraudAction, FraudCase, FraudCaseStatus, FraudSignal } from '../../platform/db/schema.js';
import { decodeCursor, type Page, toPage } from '../../platform/db/keyset.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { type OutboxSignal, pendingEvent } from '../../platform/events/outbox.js';
import { newId } from '../../platform/ids.js';
import type { Logger } from '../../platform/logger.js';
import { type Currency, fromMinor } from '../../platform/money.js';
import type { SettingsService } from '../../platform/settings/settings.service.js';
import { commissionChangedPayload } from '../commissions/commission.events.js';
import { commissionRejected, holdPendingCommissions, releaseHeldCommissions } from '../ledger/commission-writes.js';
import { applyPlan } from '../ledger/executor.js';
import { commissionMoved } from '../ledger/ledger.js';
import type { PaidAttribution } from '../ledger/order-writes.js';
import { readPayoutDetails } from '../payouts/payout-details.js';
import { ClickBurst } from './click-burst.js';
import { fraudCasePayload } from './fraud.events.js';
import {
  countOpenCases,
  findOrderAffiliate,
  findCase,
  findHeldCommissions,
  findOpenCase,
  findOtherHoldingCase,
  findOtherPayoutDetails,
  hasHoldingCase,
  heldByCases,
  insertCase,
  listCases,
  recentOrderFacts,
  recordSignIn,
  resolveCase,
  updateEvidence,
} from './fraud.repository.js';
import { readEvidence, type StoredEvidence } from './fraud.schemas.js';
import { networksOf } from './network.js';
import { clickBurstFinding, duplicatePayout, type Finding, type FraudRules, payoutKey, type PayoutTwin, refundRate, selfReferral } from './signals.js';

/** Names this list's cursors. */
const CASE_LIST = 'fraud-cases';
/** Evidence kept per case; past it the newest entries replace the oldest but the first. */
const MAX_EVIDENCE = 100;

/** What a payment needs from the rules, read before its transaction (settings are not read inside one). */
export interface FraudTerms {
  readonly rules: FraudRules;
  /** svc's own mail domains: like a public provider's, an address there is nobody's own domain. */
  readonly ownDomains: ReadonlySet<string>;
}

/** How long the list of svc's mail domains is kept between reads. */
const DOMAINS_TTL_MS = 10_000;

/** The open case a new commission is held by. */
export interface Hold {
  readonly id: string;
  readonly signal: FraudSignal;
}

/**
 * docs/api.md#fraud-review: opens cases where the signals fire, holds and lets go of the
 * commissions through the ledger's executor (the holds are its writes), and answers the Review page.
 */
export class FraudService {
  private readonly bursts = new ClickBurst();
  /** Cases a click is opening after its answer (settled() waits for them). */
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly settings: SettingsService,
    private readonly outbox: OutboxSignal,
    private readonly logger: Logger,
    /** The holding period's approval, run after a release so that held commissions due are approved at once. */
    private readonly approveDue: () => Promise<number>,
    /** svc's mail domains (the mail area's), for self_referral's domain rule. */
    private readonly mailDomains: () => Promise<readonly string[]>,
  ) {}

  private domains?: { at: number; set: Promise<ReadonlySet<string>> };

  async terms(): Promise<FraudTerms> {
    const now = this.clock.now();
    if (!this.domains || now - this.domains.at > DOMAINS_TTL_MS || now < this.domains.at) {
      const set = this.mailDomains().then((list) => new Set(list.map((d) => d.toLowerCase())) as ReadonlySet<string>);
      this.domains = { at: now, set };
      set.catch(() => {
        this.domains = undefined;
      });
    }
    return { rules: (await this.settings.get()).fraud_rules, ownDomains: await this.domains.set };
  }

  /**
   * A payment's signals, inside its transaction, before its commission is booked: `self_referral` on what the
   * paying UPDATE returned (paymentOf). Answers the open case the new commission is held by, if any.
   */
  async atPayment(tx: Executor, terms: FraudTerms, order: { order_id: string; email: string }, attribution: PaidAttribution, cur: Currency): Promise<Hold | undefined> {
    let hold: Hold | undefined = attribution.heldBy;
    const action = terms.rules.self_referral;
    if (action === 'off') return hold;
    const finding = selfReferral({ orderEmail: order.email, affiliateEmail: attribution.email, signedInNetwork: attribution.signedInNetwork, ownDomains: terms.ownDomains }, order.order_id);
    if (!finding) return hold;
    const c = await this.raise(tx, attribution.ref_code, 'self_referral', action, finding, cur);
    if (c.action === 'hold') hold ??= { id: c.id, signal: c.signal };
    return hold;
  }

  /**
   * `self_referral` for an order whose email arrived after its payment (a Paddle transaction booked before its
   * customer), in the transaction that fills it in: a case that opens to hold takes its pending commission too.
   */
  async atLateEmail(tx: Executor, terms: FraudTerms, orderId: string, email: string, cur: Currency): Promise<void> {
    const action = terms.rules.self_referral;
    if (action === 'off') return;
    const attributed = await findOrderAffiliate(tx, orderId);
    if (!attributed) return;
    const finding = selfReferral({ orderEmail: email, affiliateEmail: attributed.email, signedInNetwork: undefined, ownDomains: terms.ownDomains }, orderId);
    if (finding) await this.raise(tx, attributed.ref_code, 'self_referral', action, finding, cur);
  }

  /**
   * `click_burst` for a click about to be counted on /go: true when it is counted. The first click past the
   * limit opens (or adds to) the case, in a transaction of its own after the answer.
   */
  countClick(refCode: string, ip: string, rules: FraudRules, limit: number): boolean {
    if (rules.click_burst === 'off') return true;
    const nets = networksOf(ip);
    if (!nets) return true;
    const now = this.clock.now();
    const verdict = this.bursts.count(refCode, nets.wide, now, limit);
    if (verdict === 'first_past') {
      const raised = this.raiseAlone(refCode, 'click_burst', rules.click_burst, clickBurstFinding(nets.wide, limit, now))
        .catch((err: unknown) => this.logger.error({ err, ref_code: refCode }, 'click_burst case not opened'))
        .finally(() => this.inFlight.delete(raised));
      this.inFlight.add(raised);
    }
    return verdict === 'counted';
  }

  /**
   * `refund_rate` after a refund of an attributed order: over the affiliate's orders paid in the last 30 days,
   * at least 5 and more than 30 % of their amount refunded.
   */
  async afterRefund(refCode: string, orderId: string): Promise<void> {
    const action = (await this.settings.get()).fraud_rules.refund_rate;
    if (action === 'off') return;
    const cur = await this.settings.currency();
    const facts = await recentOrderFacts(this.db, refCode, this.clock.now());
    const finding = refundRate(facts, orderId, (cents) => `${fromMinor(cents, cur)} ${cur.code}`);
    if (finding) await this.raiseAlone(refCode, 'refund_rate', action, finding);
  }

  /** `duplicate_payout`, in the transaction that stored the affiliate's new payout details. */
  async atPayoutDetails(tx: Executor, refCode: string, storedText: string | null, rules: FraudRules, cur: Currency): Promise<void> {
    const action = rules.duplicate_payout;
    if (action === 'off' || storedText === null) return;
    const mine = readPayoutDetails(storedText);
    const keys = { email: payoutKey(mine?.email), iban: payoutKey(mine?.iban) };
    if (keys.email === null && keys.iban === null) return;
    const twins: PayoutTwin[] = [];
    for (const other of await findOtherPayoutDetails(tx, refCode)) {
      const d = readPayoutDetails(other.payout_details);
      const field = keys.email !== null && payoutKey(d?.email) === keys.email ? 'payout email' : keys.iban !== null && payoutKey(d?.iban) === keys.iban ? 'IBAN' : undefined;
      if (field && !twins.some((t) => t.refCode === other.ref_code)) twins.push({ refCode: other.ref_code, field });
    }
    const finding = duplicatePayout(twins);
    if (!finding) return;
    await this.raise(tx, refCode, 'duplicate_payout', action, finding, cur);
    // the other side of each pair shares the same details: its case says with whom, and only flags (anyone
    // can type another affiliate's public payout address: holding its money for that would be a weapon)
    for (const twin of twins.slice(0, 5)) {
      await this.raise(tx, twin.refCode, 'duplicate_payout', 'flag', { detail: `Payout details are also the ${twin.field} of affiliate ${refCode}, who set them later` }, cur);
    }
  }

  /** Resolves once the cases that clicks began to open are written (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }

  /** After a caller's transaction that raised a case committed: deliver its events. */
  kickOutbox(): void {
    this.outbox.kick();
  }

  /** A portal sign-in (password, link): its network, hashed with the service's salt, for `self_referral`. */
  async signedIn(refCode: string, ipHash: string): Promise<void> {
    await recordSignIn(this.db, refCode, ipHash, this.clock.now());
  }

  /** Whether the affiliate has an open case that holds (withdrawals are then 422 on_hold). */
  holding(db: Executor, refCode: string): Promise<boolean> {
    return hasHoldingCase(db, refCode);
  }

  /**
   * Opens the affiliate's case of `signal` or adds `finding` to the open one, in the caller's transaction.
   * A case that opens to hold takes every pending commission of the affiliate not held yet (a ledger write,
   * made by the executor before any counter move of the transaction) and emits `fraud.case_opened`.
   */
  private async raise(tx: Executor, refCode: string, signal: FraudSignal, action: FraudAction, finding: Finding, cur: Currency): Promise<FraudCase> {
    const now = this.clock.now();
    const entry: StoredEvidence = {
      at: now,
      detail: finding.detail,
      ...(finding.orderId !== undefined ? { order_id: finding.orderId } : {}),
      ...(finding.clickAt !== undefined ? { click_at: finding.clickAt } : {}),
    };
    for (;;) {
      const open = await findOpenCase(tx, refCode, signal);
      if (open) {
        const evidence = readEvidence(open.evidence);
        evidence.push(entry);
        if (evidence.length > MAX_EVIDENCE) evidence.splice(1, evidence.length - MAX_EVIDENCE);
        const text = JSON.stringify(evidence);
        // the rule was switched from flag to hold since the case opened: from this finding on it holds
        const upgrade = open.action === 'flag' && action === 'hold';
        await updateEvidence(tx, open.id, text, upgrade ? 'hold' : open.action, now);
        if (upgrade) await applyPlan(tx, this.clock, { riders: [holdPendingCommissions(tx, refCode, open.id, signal)] });
        return { ...open, evidence: text, action: upgrade ? 'hold' : open.action, updated_at: now };
      }
      const row: FraudCase = {
        id: newId('fc', now),
        ref_code: refCode,
        signal,
        action,
        status: 'open',
        evidence: JSON.stringify([entry]),
        held_count: 0,
        held_cents: 0,
        created_at: now,
        updated_at: now,
        resolved_at: null,
        note: null,
      };
      if (!(await insertCase(tx, row))) continue; // opened by another writer a moment ago: add to it
      await applyPlan(tx, this.clock, {
        riders: action === 'hold' ? [holdPendingCommissions(tx, refCode, row.id, signal)] : [],
        events: [pendingEvent('fraud.case_opened', fraudCasePayload(row, await this.heldNow(tx, row), cur))],
      });
      return row;
    }
  }

  /** raise() in a transaction of its own (a click, a refund), the outbox woken after it. */
  private async raiseAlone(refCode: string, signal: FraudSignal, action: FraudAction, finding: Finding): Promise<void> {
    const cur = await this.settings.currency();
    await inTransaction(this.db, (tx) => this.raise(tx, refCode, signal, action, finding, cur));
    this.outbox.kick();
  }

  private async heldNow(db: Executor, c: FraudCase): Promise<{ count: number; cents: number }> {
    if (c.status !== 'open') return { count: c.held_count, cents: c.held_cents };
    return (await heldByCases(db, [c.id])).get(c.id) ?? { count: 0, cents: 0 };
  }

  async list(filter: { status?: FraudCaseStatus; signal?: FraudSignal; refCode?: string; cursor?: string; limit: number }): Promise<Page<{ row: FraudCase; held: { count: number; cents: number } }>> {
    const rows = await listCases(this.db, { ...filter, after: decodeCursor(filter.cursor, CASE_LIST) });
    const held = await heldByCases(this.db, rows.filter((r) => r.status === 'open').map((r) => r.id));
    return toPage(
      rows,
      filter.limit,
      (c) => ({ createdAt: c.created_at, id: c.id }),
      (c) => ({ row: c, held: c.status === 'open' ? (held.get(c.id) ?? { count: 0, cents: 0 }) : { count: c.held_count, cents: c.held_cents } }),
      CASE_LIST,
    );
  }

  async get(id: string): Promise<{ row: FraudCase; held: { count: number; cents: number } }> {
    const row = await findCase(this.db, id);
    if (!row) throw new NotFoundError('fraud_case_not_found', `No fraud case ${id}`);
    return { row, held: await this.heldNow(this.db, row) };
  }

  openCount(): Promise<number> {
    return countOpenCases(this.db);
  }

  /**
   * Releases an open case: the commissions it held continue as if never held (held by another open case of
   * the affiliate that holds, if there is one), and those whose holding period is over are approved at once.
   * Released already: answered unchanged; rejected: 409 invalid_transition.
   */
  async release(id: string, note: string | undefined): Promise<{ row: FraudCase; held: { count: number; cents: number } }> {
    const cur = await this.settings.currency();
    const done = await this.resolve(id, 'released', note, async (tx, c, held) => {
      const next = await findOtherHoldingCase(tx, c.ref_code, c.id);
      const resolved: FraudCase = { ...c, status: 'released', held_count: held.count, held_cents: held.cents, note: note ?? null, resolved_at: this.clock.now() };
      await applyPlan(tx, this.clock, {
        riders: [releaseHeldCommissions(tx, c.id, next)],
        events: [pendingEvent('fraud.case_resolved', fraudCasePayload(resolved, held, cur))],
      });
    });
    if (done.changed) {
      this.outbox.kick();
      // the release is committed: a failure to approve now is logged, and the holding period's next tick approves them
      await this.approveDue().catch((err: unknown) => this.logger.error({ err, case_id: id }, 'released commissions not approved at once'));
    }
    return done.result;
  }

  /** Rejects an open case: every commission it holds becomes void with void_reason "fraud" (counters as any void). */
  async reject(id: string, note: string | undefined): Promise<{ row: FraudCase; held: { count: number; cents: number } }> {
    const cur = await this.settings.currency();
    const done = await this.resolve(id, 'rejected', note, async (tx, c, held, commissions) => {
      const now = this.clock.now();
      for (const commission of commissions) {
        const { after, write } = commissionRejected(tx, commission, now);
        await applyPlan(tx, this.clock, { guards: [write], counters: commissionMoved(commission, 'void'), events: [pendingEvent('commission.voided', commissionChangedPayload(after, cur))] });
      }
      const resolved: FraudCase = { ...c, status: 'rejected', held_count: held.count, held_cents: held.cents, note: note ?? null, resolved_at: now };
      await applyPlan(tx, this.clock, { events: [pendingEvent('fraud.case_resolved', fraudCasePayload(resolved, held, cur))] });
    });
    if (done.changed) this.outbox.kick();
    return done.result;
  }

  /** The one resolution loop: lock the case, check it is open, record what it held, then `apply`; all in one transaction. */
  private async resolve(
    id: string,
    to: 'released' | 'rejected',
    note: string | undefined,
    apply: (tx: Executor, c: FraudCase, held: { count: number; cents: number }, commissions: Commission[]) => Promise<void>,
  ): Promise<{ changed: boolean; result: { row: FraudCase; held: { count: number; cents: number } } }> {
    return inTransaction(this.db, async (tx) => {
      const c = await findCase(tx, id);
      if (!c) throw new NotFoundError('fraud_case_not_found', `No fraud case ${id}`);
      if (c.status === to) return { changed: false, result: { row: c, held: { count: c.held_count, cents: c.held_cents } } };
      if (c.status !== 'open') throw new ConflictError('invalid_transition', `Cannot ${to === 'released' ? 'release' : 'reject'} a fraud case that is ${c.status}`, { status: c.status });
      const commissions = await findHeldCommissions(tx, c.id);
      const held = { count: commissions.length, cents: commissions.reduce((sum, x) => sum + x.commission_cents, 0) };
      const now = this.clock.now();
      if (!(await resolveCase(tx, c.id, to, held, note ?? null, now))) throw new Error(`fraud case ${id} was resolved by another writer while locked`);
      await apply(tx, c, held, commissions);
      return { changed: true, result: { row: { ...c, status: to, held_count: held.count, held_cents: held.cents, note: note ?? null, resolved_at: now, updated_at: now }, held } };
    });
  }
}
