import { z } from 'zod';
import { toIso } from '../../platform/clock.js';
import type { FraudCase } from '../../platform/db/schema.js';
import { listQuerySchema } from '../../platform/http/list-query.js';
import { isoTime, money } from '../../platform/http/openapi.js';
import { type Currency, fromMinor } from '../../platform/money.js';
import { stripInvisibleButLines } from '../../platform/plain-text.js';
import { refCodeSchema } from '../affiliates/affiliate.schemas.js';
import { FRAUD_SIGNALS } from './signals.js';

// A fraud case at the edge (docs/api.md#fraud-review): the list's query, the body, and the one mapper.

export const listCasesSchema = listQuerySchema.extend({
  status: z.enum(['open', 'released', 'rejected']).optional(),
  signal: z.enum(FRAUD_SIGNALS).optional(),
  ref_code: refCodeSchema.optional(),
});

// control and invisible characters (bidi overrides, zero-width spaces) are dropped, line breaks kept
export const resolveCaseSchema = z
  .strictObject({ note: z.string().max(2000, 'must be at most 2000 characters').transform((v) => stripInvisibleButLines(v).trim()).optional() })
  .optional();

export const evidenceBody = z.strictObject({
  at: isoTime,
  detail: z.string().meta({ description: 'What was found, in words; never a raw IP address (a salted hash or a /24-/48 prefix only)' }),
  order_id: z.string().optional(),
  click_at: isoTime.optional(),
});

export const caseBody = z.strictObject({
  id: z.string(),
  ref_code: z.string(),
  signal: z.enum(FRAUD_SIGNALS),
  action: z.enum(['flag', 'hold']).meta({ description: 'flag: a case to look at; hold: the affiliate\'s pending commissions are held while it is open' }),
  status: z.enum(['open', 'released', 'rejected']),
  evidence: z.array(evidenceBody).meta({ description: 'Oldest first; grows while the case is open (at most 100 entries)' }),
  held: z.strictObject({ count: z.number().int(), amount: money, currency: z.string() }).meta({ description: 'The commissions it holds (open) or held when it was resolved' }),
  opened_at: isoTime,
  resolved_at: isoTime.nullable(),
  note: z.string().nullable(),
});

export type CaseView = z.infer<typeof caseBody>;

/** Stored evidence: times in ms, as the service appends it. */
export interface StoredEvidence {
  readonly at: number;
  readonly detail: string;
  readonly order_id?: string;
  readonly click_at?: number;
}

export function readEvidence(text: string): StoredEvidence[] {
  try {
    const parsed: unknown = JSON.parse(text);
    return Array.isArray(parsed) ? (parsed as StoredEvidence[]) : [];
  } catch {
    return [];
  }
}

export function caseView(c: FraudCase, held: { readonly count: number; readonly cents: number }, cur: Currency): CaseView {
  return {
    id: c.id,
    ref_code: c.ref_code,
    signal: c.signal,
    action: c.action,
    status: c.status,
    evidence: readEvidence(c.evidence).map((e) => ({
      at: toIso(e.at),
      detail: e.detail,
      ...(e.order_id !== undefined ? { order_id: e.order_id } : {}),
      ...(e.click_at !== undefined ? { click_at: toIso(e.click_at) } : {}),
    })),
    held: { count: held.count, amount: fromMinor(held.cents, cur), currency: cur.code },
    opened_at: toIso(c.created_at),
    resolved_at: c.resolved_at === null ? null : toIso(c.resolved_at),
    note: c.note,
  };
}
