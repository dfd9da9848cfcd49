import type { Clock } from '../../platform/clock.js';
import { type Db, inTransaction, isUniqueViolation, type Tx } from '../../platform/db/database.js';
import { type OutboxSignal, recordEvent } from '../../platform/events/outbox.js';
import { affiliateCreatedPayload } from './affiliate.events.js';
import type { Affiliate, AffiliateUpdate } from '../../platform/db/schema.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import type { Executor } from '../../platform/db/database.js';
import { decodeCursor, type Page, toPage } from '../../platform/db/keyset.js';
import { type CreateAffiliateInput, isValidRefCode, type UpdateAffiliateInput } from './affiliate.schemas.js';
import { confirmAffiliateEmail, emailConfirmedByAnother, findAffiliate, insertAffiliate, listAffiliates, updateAffiliate } from './affiliate.repository.js';

// /go and mailbox creation ask "is this code active?" on every request; a short cache keeps that off
// the database. A change through this instance clears it; one made by another instance shows within a second.
const ACTIVE_CACHE_MS = 1000;
const ACTIVE_CACHE_MAX = 10_000;

export class AffiliateService {
  private readonly activeCache = new Map<string, { at: number; active: boolean }>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly outbox: OutboxSignal,
  ) {}

  private readonly inactiveListeners: ((refCode: string) => Promise<void>)[] = [];

  /** Runs `listener` after an affiliate is changed to a status other than active (the portal ends its sessions). */
  onInactive(listener: (refCode: string) => Promise<void>): void {
    this.inactiveListeners.push(listener);
  }

  /**
   * Creates the affiliate and emits affiliate.created in the same transaction. `pending` is a portal
   * sign-up awaiting the admin's approval (docs/api.md#affiliate-portal). `alongside` writes what must exist with the
   * affiliate or not at all (a portal sign-up's credentials) in that same transaction; it must not
   * call the network or hash anything there. An email the operator gives (admin area, API) is confirmed
   * as given; a sign-up's (`emailConfirmed: false`) waits for its link (docs/api.md#email-confirmation).
   */
  async create(
    input: CreateAffiliateInput,
    status: 'active' | 'pending' = 'active',
    alongside?: (tx: Tx, created: Affiliate) => Promise<void>,
    emailConfirmed = true,
  ): Promise<Affiliate> {
    const now = this.clock.now();
    const row = {
      ref_code: input.ref_code,
      name: input.name ?? null,
      email: input.email ?? null,
      status,
      commission_rate_bp: input.commission_rate ?? null,
      created_at: now,
      updated_at: now,
      email_confirmed_at: input.email && emailConfirmed ? now : null,
    };
    const created: Affiliate = row;
    let inserted: boolean;
    try {
      inserted = await inTransaction(this.db, async (tx) => {
        if (!(await insertAffiliate(tx, row))) return false;
        await recordEvent(tx, this.clock, 'affiliate.created', affiliateCreatedPayload(created));
        if (alongside) await alongside(tx, created);
        return true;
      });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      inserted = false;
    }
    if (!inserted) throw new ConflictError('affiliate_exists', `Affiliate ${input.ref_code} already exists`);
    this.activeCache.delete(input.ref_code);
    this.outbox.kick();
    return created;
  }

  async get(refCode: string): Promise<Affiliate> {
    const found = isValidRefCode(refCode) ? await findAffiliate(this.db, refCode) : undefined;
    if (!found) throw new NotFoundError('affiliate_not_found', `No affiliate ${refCode}`);
    return found;
  }

  /** Newest first by (created_at, ref_code). */
  async list(opts: { limit: number; cursor?: string }): Promise<Page<Affiliate>> {
    const rows = await listAffiliates(this.db, { limit: opts.limit, after: decodeCursor(opts.cursor, 'affiliates') });
    return toPage(rows, opts.limit, (a) => ({ createdAt: a.created_at, id: a.ref_code }), (a) => a, 'affiliates');
  }

  async update(refCode: string, input: UpdateAffiliateInput): Promise<Affiliate> {
    const existing = await this.get(refCode);
    const patch: AffiliateUpdate = { updated_at: this.clock.now() };
    if (input.status !== undefined) patch.status = input.status;
    if (input.name !== undefined) patch.name = input.name;
    // the operator's new email is confirmed as given; saving the same one again leaves its state as it is
    if (input.email !== undefined && input.email !== existing.email) {
      patch.email = input.email;
      patch.email_confirmed_at = input.email === null ? null : patch.updated_at;
    }
    if (input.commission_rate !== undefined) {
      patch.commission_rate_bp = input.commission_rate;
    }
    const updated = await updateAffiliate(this.db, existing.ref_code, patch);
    this.activeCache.delete(refCode);
    // docs/api.md#affiliate-portal: disabling an affiliate ends its portal sessions at once (the session check also
    // requires an active affiliate, so none survives a race with this delete).
    if (updated && updated.status !== 'active') for (const listener of this.inactiveListeners) await listener(refCode);
    if (!updated) throw new NotFoundError('affiliate_not_found', `No affiliate ${refCode}`);
    return updated;
  }

  /**
   * Confirms `email` as `refCode`'s (a link mailed to it was followed), in the caller's transaction: never
   * when another affiliate has it confirmed (409 email_taken), nor when the affiliate's email is no longer
   * `email` (false: the link is void). Confirming an already confirmed address again is true.
   */
  async confirmEmail(tx: Executor, refCode: string, email: string, now: number): Promise<boolean> {
    if (await confirmAffiliateEmail(tx, refCode, email, now)) return true;
    if (await emailConfirmedByAnother(tx, refCode, email)) {
      throw new ConflictError('email_taken', 'Another affiliate already confirmed this email address; sign in with your ref code, or ask the program administrator');
    }
    const current = await findAffiliate(tx, refCode);
    return current?.email === email && current.email_confirmed_at !== null;
  }

  /** True when the code names an active affiliate; cached for up to a second. Invalid codes are never active. */
  async isActive(refCode: string): Promise<boolean> {
    if (!isValidRefCode(refCode)) return false;
    const now = this.clock.now();
    const hit = this.activeCache.get(refCode);
    if (hit && now - hit.at < ACTIVE_CACHE_MS && now >= hit.at) return hit.active;
    const found = await findAffiliate(this.db, refCode);
    const active = found?.status === 'active';
    // Unknown codes are cached too, so a flood of random codes cannot grow the map without bound.
    if (this.activeCache.size >= ACTIVE_CACHE_MAX) this.activeCache.clear();
    this.activeCache.set(refCode, { at: now, active });
    return active;
  }

  /** Forgets cached lookups (tests, or after a change made outside this service). */
  invalidate(): void {
    this.activeCache.clear();
  }
}
