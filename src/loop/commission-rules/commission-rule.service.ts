import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { CommissionRule } from '../../platform/db/schema.js';
import { NotFoundError, ValidationError } from '../../platform/errors.js';
import { decodeCursor, type Page, toPage } from '../../platform/db/keyset.js';
import { newId } from '../../platform/ids.js';
import { type Currency, rescaleMinor, USD } from '../../platform/money.js';
import type { Executor } from '../../platform/db/database.js';
import type { AffiliateService } from '../affiliates/affiliate.service.js';
import type { RuleInput } from './commission-rule.schemas.js';
import { deleteRule, findRule, flatRules, insertRule, listRules, replaceRule, setRuleFlat } from './commission-rule.repository.js';

const RULE_LIST = 'commission-rules';

/** Commission rules (docs/ledger.md#commission-rules): stored here; the ledger's commission policy reads and applies them. */
export class CommissionRuleService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly affiliates: Pick<AffiliateService, 'get'>,
    readonly currency: () => Promise<Currency> = async () => USD,
  ) {}

  /** docs/api.md#payouts: a currency change keeps each flat amount's value in the new minor unit; false (nothing written) when one is not exact. */
  async rescaleFlats(tx: Executor, from: Currency, to: Currency): Promise<boolean> {
    const rules = await flatRules(tx);
    const moved = rules.map((r) => ({ id: r.id, minor: rescaleMinor(r.flat_cents, from, to) }));
    if (moved.some((m) => m.minor === undefined)) return false;
    for (const m of moved) await setRuleFlat(tx, m.id, m.minor as number);
    return true;
  }

  async create(input: RuleInput): Promise<CommissionRule> {
    const row: CommissionRule = {
      id: newId('rule', this.clock.now()),
      ref_code: input.ref_code ?? null,
      product: input.product ?? null,
      rate_bp: input.rate ?? null,
      flat_cents: input.flat ?? null,
      duration_days: input.duration_days ?? null,
      max_orders: input.max_orders ?? null,
      created_at: this.clock.now(),
    };
    await this.check(row);
    await insertRule(this.db, row);
    return row;
  }

  async get(id: string): Promise<CommissionRule> {
    const rule = await findRule(this.db, id);
    if (!rule) throw new NotFoundError('commission_rule_not_found', `No commission rule ${id}`);
    return rule;
  }

  async update(id: string, input: RuleInput): Promise<CommissionRule> {
    const current = await this.get(id);
    const row: CommissionRule = {
      ...current,
      ...(input.ref_code !== undefined ? { ref_code: input.ref_code } : {}),
      ...(input.product !== undefined ? { product: input.product } : {}),
      ...(input.rate !== undefined ? { rate_bp: input.rate } : {}),
      ...(input.flat !== undefined ? { flat_cents: input.flat } : {}),
      ...(input.duration_days !== undefined ? { duration_days: input.duration_days } : {}),
      ...(input.max_orders !== undefined ? { max_orders: input.max_orders } : {}),
    };
    // a rate given alone replaces a flat amount and vice versa
    if (input.rate != null && input.flat === undefined) row.flat_cents = null;
    if (input.flat != null && input.rate === undefined) row.rate_bp = null;
    await this.check(row);
    if (!(await replaceRule(this.db, row))) throw new NotFoundError('commission_rule_not_found', `No commission rule ${id}`);
    return row;
  }

  async delete(id: string): Promise<void> {
    if (!(await deleteRule(this.db, id))) throw new NotFoundError('commission_rule_not_found', `No commission rule ${id}`);
  }

  async list(opts: { refCode?: string; cursor?: string; limit: number }): Promise<Page<CommissionRule>> {
    const rows = await listRules(this.db, { refCode: opts.refCode, limit: opts.limit, after: decodeCursor(opts.cursor, RULE_LIST) });
    return toPage(rows, opts.limit, (r) => ({ createdAt: r.created_at, id: r.id }), (r) => r, RULE_LIST);
  }

  /** Exactly one of rate and flat; at least one of ref_code and product; a named affiliate exists. */
  private async check(row: CommissionRule): Promise<void> {
    if ((row.rate_bp === null) === (row.flat_cents === null)) {
      throw new ValidationError([{ field: 'rate,flat', message: 'exactly one of rate and flat must be given' }]);
    }
    if (row.ref_code === null && row.product === null) {
      throw new ValidationError([{ field: 'ref_code,product', message: 'a rule names an affiliate, a product, or both' }]);
    }
    // 404 affiliate_not_found for an affiliate that does not exist
    if (row.ref_code !== null) await this.affiliates.get(row.ref_code);
  }
}
