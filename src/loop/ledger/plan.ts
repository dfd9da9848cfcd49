import type { Compilable } from 'kysely';
import type { ChainedWrite } from './chain.js';
import type { PendingEvent } from '../../platform/events/outbox.js';
import type { CounterBump } from './counters.repository.js';

/** The counters and balance share of one affiliate that a money move changes. */
export interface CounterMove {
  readonly refCode: string;
  readonly bumps: readonly CounterBump[];
  /** Change of the affiliate's balance (docs/ledger.md#balance-and-withdrawals). */
  readonly balanceCents?: number;
  /** The stripe row to write: a withdrawal names the one it locked; otherwise a random one. */
  readonly stripe?: number;
}

/**
 * What a money rule decided, not yet written. The executor (executor.ts) makes it all or nothing, in
 * the ledger's lock order: `guards` in the order given, then the counters; `inserts`, `riders` and `events`
 * take no contended lock and ride along.
 */
export interface LedgerPlan {
  /** Conditional writes that must each change a row (entity rows: claim, order, commission). */
  readonly guards?: readonly ChainedWrite[];
  /** Inserts of new rows (commissions, withdrawals). */
  readonly inserts?: readonly Compilable[];
  /** Writes that may change no row (an event's outcome, a wait closed). */
  readonly riders?: readonly Compilable[];
  readonly counters?: CounterMove;
  /** Outbox events, in delivery order. */
  readonly events?: readonly PendingEvent[];
}

/** Plans made of parts decided by different rules (one counter move at most). */
export function joinPlans(...plans: readonly (LedgerPlan | undefined)[]): LedgerPlan {
  const parts = plans.filter((p): p is LedgerPlan => p !== undefined);
  const counters = parts.filter((p) => p.counters !== undefined);
  if (counters.length > 1) throw new Error('a ledger plan moves the counters of one affiliate once');
  return {
    guards: parts.flatMap((p) => p.guards ?? []),
    inserts: parts.flatMap((p) => p.inserts ?? []),
    riders: parts.flatMap((p) => p.riders ?? []),
    counters: counters[0]?.counters,
    events: parts.flatMap((p) => p.events ?? []),
  };
}
