import type { AffiliateService } from '../affiliates/affiliate.service.js';
import { type Clock, toIso } from '../../platform/clock.js';
import { type Db, type Executor, inTransaction, type Tx } from '../../platform/db/database.js';
import { decodeKey, keysetPage, type Page } from '../../platform/db/keyset.js';
import type { PayoutBatch, Withdrawal } from '../../platform/db/schema.js';
import { ConflictError, NotFoundError, PayoutRuleError } from '../../platform/errors.js';
import type { FraudService } from '../fraud/fraud.service.js';
import { newId } from '../../platform/ids.js';
import { type Currency, fromMinor } from '../../platform/money.js';
import type { SettingsService } from '../../platform/settings/settings.service.js';
import { lockBalance } from '../ledger/balance.repository.js';
import { applyPlan, missedAs, whenMissed } from '../ledger/executor.js';
import { batchInsert, batchPaid, scheduleMonthClaim, scheduleMonthDone as scheduleMonthDoneWrite, scheduleWithdrawal } from '../ledger/payout-writes.js';
import { gatherIntoBatch } from '../ledger/withdrawal-writes.js';
import { type PayoutDetails, type PayoutMethod, payableStoredDetails, readPayoutDetails, writePayoutDetails } from './payout-details.js';
import { fileParts, paypalCsv, sepaXml, UPLOAD_ROWS, wiseCsv } from './payout-files.js';
import type { BatchView } from './payout.schemas.js';
import {
  batchTotals,
  batchWithdrawalIdAt,
  batchWithdrawalIds,
  batchWithdrawalsPage,
  findBatch,
  findPayoutDetailsText,
  listBatches,
  owedPerMethod,
  scheduleCandidates,
  scheduleMonthDone,
  storePayoutDetailsText,
} from './payout.repository.js';

/** The schedule's month of an instant: YYYY-MM in UTC. */
function scheduleMonth(ms: number): string {
  return toIso(ms).slice(0, 7);
}

/** The name in the batch list's cursors, so another list's cursor is refused. */
const BATCH_LIST = 'payout-batches';

/** Rows of a batch file read per page: big enough to be few queries, small enough to keep memory flat. */
const FILE_PAGE = 1000;

interface ScheduleFailure {
  readonly refCode: string;
  readonly error: unknown;
}

/**
 * What batches and the schedule need of the withdrawals (the WithdrawalService): declared here, so that
 * payouts do not import withdrawals, which import the payout details (one direction between the two).
 */
export interface PayoutWithdrawals {
  terms(): Promise<{ readonly cur: Currency; readonly minimum: number | null }>;
  requestIn(tx: Tx, refCode: string, amountCents: number, terms: { readonly cur: Currency; readonly minimum: number | null }): Promise<Withdrawal>;
  /** requested -> paid as a plan in `tx`; the executor throws PlanMissed when it was not requested any more. */
  settleIn(tx: Tx, current: Withdrawal, action: 'mark-paid', cur: Currency): Promise<Withdrawal>;
  kickOutbox(): void;
}

/** A monthly run that could not request some affiliates' withdrawals: the month stays open, and the next tick tries them again. */
export class ScheduleIncomplete extends Error {
  override readonly name = 'ScheduleIncomplete';
  constructor(
    readonly month: string,
    readonly requested: readonly Withdrawal[],
    readonly failed: readonly ScheduleFailure[],
  ) {
    const first = failed[0]?.error;
    super(
      `payout schedule ${month}: ${failed.length} affiliate(s) failed (${failed.map((f) => f.refCode).join(', ')}; the first: ${first instanceof Error ? first.message : String(first)}), ${requested.length} withdrawal(s) requested; the next tick tries the failed ones again`,
      { cause: first },
    );
  }
}

/**
 * Payouts (docs/api.md#payouts): payout details, the monthly schedule, and batches with their files. Money still
 * moves only through the withdrawal service (its request and its settle), so the ledger's rules and lock
 * order hold for everything done here.
 */
export class PayoutService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly settings: SettingsService,
    private readonly affiliates: AffiliateService,
    private readonly withdrawals: () => PayoutWithdrawals,
    private readonly fraud: FraudService,
  ) {}

  /** The affiliate's details as the API shows them (free text of older versions as an `other` note). */
  async details(refCode: string): Promise<PayoutDetails | null> {
    return readPayoutDetails(await findPayoutDetailsText(this.db, refCode));
  }

  /** Valid details only (what a withdrawal snapshots); null when there are none or they no longer pass. */
  async payableDetails(tx: Executor, refCode: string): Promise<Readonly<PayoutDetails> | null> {
    return payableStoredDetails(await findPayoutDetailsText(tx, refCode));
  }

  /** Sets them (validated at the edge with payoutDetailsField); null clears them. Requested withdrawals keep their own copy. */
  async setDetails(refCode: string, details: PayoutDetails | null): Promise<PayoutDetails | null> {
    await this.affiliates.get(refCode);
    const terms = await this.fraud.terms();
    const cur = await this.settings.currency();
    const text = writePayoutDetails(details);
    // docs/api.md#fraud-review: duplicate_payout, in the transaction that stores them
    await inTransaction(this.db, async (tx) => {
      await storePayoutDetailsText(tx, refCode, text, this.clock.now());
      await this.fraud.atPayoutDetails(tx, refCode, text, terms.rules, cur);
    });
    this.fraud.kickOutbox();
    return details;
  }

  async batchView(b: PayoutBatch): Promise<BatchView> {
    const cur = await this.settings.currency();
    return {
      id: b.id,
      method: b.method as PayoutMethod,
      status: b.status,
      currency: b.currency,
      total: fromMinor(b.total_minor, cur),
      count: b.count,
      withdrawal_ids: await batchWithdrawalIds(this.db, b.id),
      file_parts: fileParts(b.method, b.count),
      created_at: toIso(b.created_at),
      paid_at: b.paid_at === null ? null : toIso(b.paid_at),
    };
  }

  /**
   * Gathers every requested withdrawal of `method` that is in no batch (one conditional update, see
   * gatherIntoBatch); nothing: 422 nothing_to_pay; SEPA pays euros only (422 currency_mismatch).
   */
  async createBatch(method: PayoutMethod): Promise<PayoutBatch> {
    const cur = await this.settings.currency();
    if (method === 'sepa' && cur.code !== 'EUR') throw new PayoutRuleError('currency_mismatch', `SEPA pays euros; the program's currency is ${cur.code}`, { currency: cur.code });
    const now = this.clock.now();
    const id = newId('pb', now);
    return inTransaction(this.db, async (tx) => {
      await applyPlan(tx, this.clock, { inserts: [gatherIntoBatch(tx, id, method)] });
      const { count, total } = await batchTotals(tx, id);
      if (count === 0) throw new PayoutRuleError('nothing_to_pay', `No requested withdrawal is paid by ${method}`);
      const batch: PayoutBatch = { id, method, status: 'open', currency: cur.code, total_minor: total, count, created_at: now, paid_at: null };
      await applyPlan(tx, this.clock, { inserts: [batchInsert(tx, batch)] });
      return batch;
    });
  }

  async getBatch(id: string): Promise<PayoutBatch> {
    const b = await findBatch(this.db, id);
    if (!b) throw new NotFoundError('not_found', `No payout batch ${id}`);
    return b;
  }

  /** Newest first by id (ids begin with their time); cursors are opaque and this list's own (docs/api.md#conventions). */
  async listBatches(cursor: string | undefined, limit: number): Promise<Page<PayoutBatch>> {
    const after = cursor === undefined || cursor === '' ? undefined : decodeKey(cursor, ['string'] as const, BATCH_LIST)[0];
    const rows = await listBatches(this.db, after, limit);
    return keysetPage(rows, limit, (b) => [b.id], (b) => b, BATCH_LIST);
  }

  /** What is owed, per method, in the program currency: requested withdrawals in no batch. */
  async owed(): Promise<{ method: string; currency: string; count: number; total: number }[]> {
    const cur = await this.settings.currency();
    return (await owedPerMethod(this.db)).map((r) => ({ method: r.method, currency: cur.code, count: r.count, total: fromMinor(r.total, cur) }));
  }

  /**
   * Pays the batch and every withdrawal in it in ONE transaction, each through the withdrawal service's
   * own settle (the ledger's booking and one `withdrawal.paid` each): all or nothing. A withdrawal that is
   * no longer requested (rejected meanwhile) fails the whole batch with 409 invalid_transition.
   */
  async markPaid(id: string): Promise<PayoutBatch> {
    const withdrawals = this.withdrawals();
    const cur = await this.settings.currency();
    const batch = await inTransaction(this.db, async (tx) => {
      const b = await findBatch(tx, id);
      if (!b) throw new NotFoundError('not_found', `No payout batch ${id}`);
      if (b.status === 'paid') return b;
      await applyPlan(tx, this.clock, { guards: [batchPaid(tx, id, this.clock.now())] }).catch(missedAs(new ConflictError('invalid_transition', 'The batch changed meanwhile; try again')));
      let after: string | undefined;
      for (;;) {
        const page = await batchWithdrawalsPage(tx, id, after, FILE_PAGE);
        for (const w of page) {
          const notPaid = new ConflictError('invalid_transition', `Withdrawal ${w.id} of the batch is ${w.status}; nothing was paid`, { withdrawal_id: w.id, status: w.status });
          if (w.status !== 'requested') throw notPaid;
          await withdrawals.settleIn(tx, w, 'mark-paid', cur).catch(missedAs(notPaid));
        }
        if (page.length < FILE_PAGE) break;
        after = page[page.length - 1]?.id;
      }
      return (await findBatch(tx, id)) as PayoutBatch;
    });
    withdrawals.kickOutbox();
    return batch;
  }

  /**
   * The batch's file: its content type, file name and chunks (streamed a page at a time). Whole, or `part` N
   * (1-based) of `file_parts`: the withdrawals N-1 × UPLOAD_ROWS onwards in id order, at most UPLOAD_ROWS of
   * them, each part a complete file of its format. A part past the last: 404.
   */
  async file(id: string, part?: number): Promise<{ type: string; name: string; chunks: AsyncIterable<string> }> {
    const batch = await this.getBatch(id);
    const parts = fileParts(batch.method, batch.count);
    if (parts === 0) throw new PayoutRuleError('nothing_to_pay', `A batch of ${batch.method} payouts has no file: pay them by hand, then mark the batch paid`);
    if (part !== undefined && part > parts) throw new NotFoundError('not_found', `Payout batch ${id} has ${parts} file part(s), not ${part}`);
    const cur = await this.settings.currency();
    const rows = UPLOAD_ROWS[batch.method];
    const pages = this.pages(id, part !== undefined && rows !== undefined ? { skip: (part - 1) * rows, take: rows } : undefined);
    const name = (ext: string) => `${batch.method}-${id}${part === undefined ? '' : `-part-${part}-of-${parts}`}.${ext}`;
    if (batch.method === 'paypal') return { type: 'text/csv; charset=utf-8', name: name('csv'), chunks: paypalCsv(batch, cur, pages) };
    if (batch.method === 'wise') return { type: 'text/csv; charset=utf-8', name: name('csv'), chunks: wiseCsv(batch, cur, pages) };
    const s = await this.settings.get();
    if (!s.sepa_debtor_name || !s.sepa_debtor_iban) {
      throw new PayoutRuleError('sepa_debtor_missing', 'Set sepa_debtor_name and sepa_debtor_iban in the settings first');
    }
    return {
      type: 'application/xml; charset=utf-8',
      name: name('xml'),
      chunks: sepaXml(batch, cur, { name: s.sepa_debtor_name, iban: s.sepa_debtor_iban, bic: s.sepa_debtor_bic }, pages, this.clock.now()),
    };
  }

  /** The batch's withdrawals in id order, a keyset page at a time; `slice` skips and caps them (a file's part). */
  private async *pages(id: string, slice?: { skip: number; take: number }): AsyncGenerator<readonly Withdrawal[]> {
    let after = slice && slice.skip > 0 ? await batchWithdrawalIdAt(this.db, id, slice.skip - 1) : undefined;
    let left = slice?.take ?? Number.POSITIVE_INFINITY;
    while (left > 0) {
      const want = Math.min(FILE_PAGE, left);
      const page = await batchWithdrawalsPage(this.db, id, after, want);
      if (page.length > 0) yield page;
      if (page.length < want) return;
      left -= page.length;
      after = page[page.length - 1]?.id;
    }
  }

  /**
   * docs/api.md#payouts `payout_schedule: monthly`: each month (UTC, by the injected clock) has one run, at the
   * first tick on or after its 1st, so a month whose 1st no instance saw is paid when one next ticks: one
   * withdrawal of the whole balance for every active affiliate with payout details whose balance reaches
   * the minimum. Exactly once per affiliate and month across instances: the month is claimed per affiliate
   * in the same transaction as the withdrawal (payout_schedule_runs' primary key), so a second instance's
   * claim finds the row and does nothing. A run that went through every candidate records the month as
   * done (payout_schedule_months); later ticks of that month do nothing, so an affiliate who qualifies after
   * the run waits for the next month's. A run cut short (a crash) is not recorded, and the next tick
   * finishes it. So does a run in which some affiliates failed: the others are paid, and it throws
   * ScheduleIncomplete naming the failed ones. Switching the schedule to monthly records the month of the switch as done
   * (monthlyScheduleStarts), so the first run is the next month's. Called by the worker's timer; tests
   * move the clock and call it. Returns the withdrawals it requested. Proved by test/integration/payout-schedule.test.ts.
   */
  async runSchedule(): Promise<Withdrawal[]> {
    const s = await this.settings.get();
    if (s.payout_schedule !== 'monthly') return [];
    const now = this.clock.now();
    const month = scheduleMonth(now);
    if (await scheduleMonthDone(this.db, month)) return [];
    const withdrawals = this.withdrawals();
    const terms = await withdrawals.terms();
    const minimum = terms.minimum ?? 1;
    const made: Withdrawal[] = [];
    const failed: ScheduleFailure[] = [];
    let after: string | undefined;
    for (;;) {
      const codes = await scheduleCandidates(this.db, month, after, 200);
      for (const refCode of codes) {
        try {
          const w = await inTransaction(this.db, async (tx) => {
            const claimed = await applyPlan(tx, this.clock, { guards: [scheduleMonthClaim(tx, refCode, month, now)] }).then(() => true, whenMissed(false));
            if (!claimed) return undefined;
            if (!(await this.payableDetails(tx, refCode))) return undefined;
            // held for fraud review (docs/api.md#fraud-review): no withdrawal this month
            if (await this.fraud.holding(tx, refCode)) return undefined;
            const balance = await lockBalance(tx, refCode);
            if (balance.cents < Math.max(minimum, 1)) return undefined;
            const requested = await withdrawals.requestIn(tx, refCode, balance.cents, terms);
            await applyPlan(tx, this.clock, { inserts: [scheduleWithdrawal(tx, refCode, month, requested.id)] });
            return requested;
          });
          if (w) made.push(w);
        } catch (error) {
          // its claim rolled back with it: the next tick tries this affiliate again; the others go on now
          failed.push({ refCode, error });
        }
      }
      if (codes.length < 200) break;
      after = codes[codes.length - 1];
    }
    if (made.length > 0) withdrawals.kickOutbox();
    if (failed.length > 0) throw new ScheduleIncomplete(month, made, failed);
    await applyPlan(this.db, this.clock, { inserts: [scheduleMonthDoneWrite(this.db, month, now)] });
    return made;
  }

  /**
   * docs/api.md#payouts: the schedule switched to monthly (called by the settings, in the transaction that
   * switches it) has its first run on the next month's 1st: the month of the switch is recorded as done.
   */
  async monthlyScheduleStarts(tx: Executor, now: number): Promise<void> {
    await applyPlan(tx, this.clock, { inserts: [scheduleMonthDoneWrite(tx, scheduleMonth(now), now)] });
  }

  currency(): Promise<Currency> {
    return this.settings.currency();
  }
}
