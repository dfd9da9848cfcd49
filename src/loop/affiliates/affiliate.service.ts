import { z } from 'zod';
import { type Clock, toIso } from '../../platform/clock.js';
import { type Db, inTransaction, isUniqueViolation, type Tx } from '../../platform/db/database.js';
import { type OutboxSignal, recordEvent } from '../../platform/events/outbox.js';
import { affiliateCreatedPayload } from '../../platform/events/payloads.js';
import type { Affiliate, AffiliateUpdate } from '../../platform/db/schema.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import { decodeCursor, type Page, toPage } from '../../platform/db/keyset.js';
import { rateBpField, rateFromBp } from '../ledger/rate.js';
import { deletePortalSessionsOf } from '../portal/portal.repository.js';
import { findAffiliate, insertAffiliate, listAffiliates, updateAffiliate } from './affiliate.repository.js';

/** CONTRACT §1: 1–64 characters of A–Z a–z 0–9 _ -, case-sensitive. */
export const REF_CODE_RE = /^[A-Za-z0-9_-]{1,64}$/;

export function isValidRefCode(value: unknown): value is string {
  return typeof value === 'string' && REF_CODE_RE.test(value);
}

export const refCodeSchema = z.string().max(64, 'must be 1-64 characters of A-Z a-z 0-9 _ -').regex(REF_CODE_RE, 'must be 1-64 characters of A-Z a-z 0-9 _ -');

const nameSchema = z
  .string()
  .trim()
  .max(200)
  .nullable()
  .transform((v) => (v ? v : null));

const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(320)
  .regex(/^[^\s@]+@[^\s@]+$/, 'must be an email address')
  .nullable()
  .or(z.literal('').transform(() => null));

const rateSchema = rateBpField.nullable();

export const createAffiliateSchema = z
  .object({
    ref_code: refCodeSchema,
    name: nameSchema.optional(),
    email: emailSchema.optional(),
    commission_rate: rateSchema.optional(),
  })
  .strict();

export const updateAffiliateSchema = z
  .object({
    status: z.enum(['active', 'disabled']),
    name: nameSchema,
    email: emailSchema,
    commission_rate: rateSchema,
  })
  .partial()
  .strict();

export type CreateAffiliateInput = z.infer<typeof createAffiliateSchema>;
export type UpdateAffiliateInput = z.infer<typeof updateAffiliateSchema>;

/** The affiliate as the API shows it (CONTRACT §3). */
export interface AffiliateJson {
  readonly ref_code: string;
  readonly name: string | null;
  readonly email: string | null;
  readonly status: 'active' | 'disabled' | 'pending';
  readonly commission_rate: number | null;
  readonly created_at: string;
}

export function affiliateJson(a: Affiliate): AffiliateJson {
  return {
    ref_code: a.ref_code,
    name: a.name,
    email: a.email,
    status: a.status,
    commission_rate: a.commission_rate_bp === null ? null : rateFromBp(a.commission_rate_bp),
    created_at: toIso(a.created_at),
  };
}

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

  /**
   * Creates the affiliate and emits affiliate.created in the same transaction. `pending` is a portal
   * sign-up awaiting the admin's approval (CONTRACT §13). `alongside` writes what must exist with the
   * affiliate or not at all (a portal sign-up's credentials) in that same transaction; it must not
   * call the network or hash anything there.
   */
  async create(
    input: CreateAffiliateInput,
    status: 'active' | 'pending' = 'active',
    alongside?: (tx: Tx, created: Affiliate) => Promise<void>,
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
  async list(opts: { limit: number; cursor?: string }): Promise<Page<AffiliateJson>> {
    const rows = await listAffiliates(this.db, { limit: opts.limit, after: decodeCursor(opts.cursor, 'affiliates') });
    return toPage(rows, opts.limit, (a) => ({ createdAt: a.created_at, id: a.ref_code }), affiliateJson, 'affiliates');
  }

  async update(refCode: string, input: UpdateAffiliateInput): Promise<Affiliate> {
    const existing = await this.get(refCode);
    const patch: AffiliateUpdate = { updated_at: this.clock.now() };
    if (input.status !== undefined) patch.status = input.status;
    if (input.name !== undefined) patch.name = input.name;
    if (input.email !== undefined) patch.email = input.email;
    if (input.commission_rate !== undefined) {
      patch.commission_rate_bp = input.commission_rate;
    }
    const updated = await updateAffiliate(this.db, existing.ref_code, patch);
    this.activeCache.delete(refCode);
    // CONTRACT §13: disabling an affiliate ends its portal sessions at once (the session check also
    // requires an active affiliate, so none survives a race with this delete).
    if (updated && updated.status !== 'active') await deletePortalSessionsOf(this.db, refCode);
    if (!updated) throw new NotFoundError('affiliate_not_found', `No affiliate ${refCode}`);
    return updated;
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
