import type { Dialect, Executor } from '../../platform/db/database.js';
import type { LoopSlices } from '../../platform/loop-slices.js';
import { OverQuotaError } from '../../platform/errors.js';
import { lockMailboxes, type MailboxQuota, setBytesBound, storedBytes, trimMailboxBytes } from './mail-retention.repository.js';

/** What the byte quotas decide for one message (docs/mailtm.md#the-quota). */
export interface ByteQuotaPlan {
  /** The recipient mailboxes that take the message, in recipient order; none: it is refused. */
  readonly receivers: readonly string[];
  /** The mailboxes that first delete their oldest messages, each with the bytes it may keep of them. */
  readonly keep: ReadonlyMap<string, number>;
  /** Each receiver with a quota: its new bytes_bound, before what its trim frees is taken off. */
  readonly bounds: ReadonlyMap<string, number>;
  /** The smallest quota among the mailboxes that refused the message (for the refusal), or null. */
  readonly refusedBy: number | null;
}

/**
 * The mailboxes whose bytes must be summed before a message of `size` bytes is stored: those with a
 * quota that can take it but whose bound does not show room for it. A mailbox far below its quota
 * is not summed: its bound, never below what it holds, proves the message fits.
 */
export function mailboxesToCount(quotas: readonly MailboxQuota[], size: number): string[] {
  return quotas
    .filter((q) => q.maxBytes !== null && size <= q.maxBytes && (q.bytesBound === null || q.bytesBound + size > q.maxBytes))
    .map((q) => q.address);
}

/**
 * The byte quota rule, for a message of `size` bytes: a mailbox without a quota takes it; a mailbox
 * whose quota is smaller than the message does not (the others still do); a mailbox whose messages
 * would hold more than its quota with this one first deletes its oldest until the rest and this one
 * fit. `counted` has the bytes each mailbox of mailboxesToCount holds; the others' bound stands for it.
 * Proved by test/unit/byte-quota.test.ts, and end to end (both intakes, both databases, concurrent
 * deliveries) by test/integration/mailtm-limits.test.ts.
 */
export function planByteQuotas(
  recipients: readonly string[],
  quotas: readonly MailboxQuota[],
  counted: ReadonlyMap<string, number>,
  size: number,
): ByteQuotaPlan {
  const quotaOf = new Map(quotas.map((q) => [q.address, q]));
  const receivers: string[] = [];
  const keep = new Map<string, number>();
  const bounds = new Map<string, number>();
  let refusedBy: number | null = null;
  for (const address of recipients) {
    const quota = quotaOf.get(address);
    const max = quota?.maxBytes ?? null;
    if (max === null) {
      receivers.push(address);
      continue;
    }
    if (size > max) {
      refusedBy = refusedBy === null ? max : Math.min(refusedBy, max);
      continue;
    }
    receivers.push(address);
    const held = counted.get(address) ?? quota?.bytesBound ?? 0;
    if (held + size > max) keep.set(address, max - size);
    bounds.set(address, held + size);
  }
  return { receivers, keep, bounds, refusedBy };
}

const UNLIMITED_CACHE = 100_000;

/**
 * Applies the byte quotas in the intake's transaction (MailService.deliver), where it is the first step:
 * it reads each recipient mailbox's quota with lockMailboxes, which on PostgreSQL also locks the rows,
 * so no other intake changes these mailboxes before this one commits. A mailbox's quota is set when it is
 * created and never changed, so on SQLite (one writer, no row locks) a mailbox once seen without one is
 * not read again: an intake to ordinary mailboxes costs nothing more than before. A mailbox far below its
 * quota costs one update of its bound; one near it a sum of its messages' sizes, and a trim when full.
 */
export class ByteQuotas {
  private readonly unlimited = new Set<string>();

  constructor(private readonly dialect: Dialect) {}

  /**
   * Answers the mailboxes that take the message (in recipient order) and the ids of the copies deleted
   * to make room for it (their contents still to release). No mailbox can take it: OverQuotaError (413;
   * 552 over SMTP).
   */
  async makeRoom(tx: Executor, recipients: readonly string[], size: number, slices?: LoopSlices): Promise<{ receivers: readonly string[]; trimmed: string[] }> {
    const lock = this.dialect === 'postgres';
    const quotas = await lockMailboxes(tx, lock ? recipients : recipients.filter((a) => !this.unlimited.has(a)), lock, slices);
    if (this.unlimited.size > UNLIMITED_CACHE) this.unlimited.clear();
    for (const q of quotas) if (q.maxBytes === null) this.unlimited.add(q.address);
    const toCount = mailboxesToCount(quotas, size);
    const sums = await storedBytes(tx, toCount);
    const plan = planByteQuotas(recipients, quotas, new Map(toCount.map((a) => [a, sums.get(a) ?? 0])), size);
    if (plan.receivers.length === 0) throw new OverQuotaError(size, plan.refusedBy ?? 0);
    const trimmed: string[] = [];
    for (const [address, bound] of plan.bounds) {
      await slices?.next();
      const keepBytes = plan.keep.get(address);
      const gone = keepBytes === undefined ? { ids: [], bytes: 0 } : await trimMailboxBytes(tx, address, keepBytes);
      trimmed.push(...gone.ids);
      await setBytesBound(tx, address, bound - gone.bytes);
    }
    return { receivers: plan.receivers, trimmed };
  }
}
