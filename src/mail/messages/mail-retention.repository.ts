import type { Executor } from '../../platform/db/database.js';
import type { LoopSlices } from '../../platform/loop-slices.js';

/* What leaves the store: deleted and expired copies, the contents they release, and the byte quotas (byte-quota.ts). */
/**
 * Copies that were deleted give up their share of the content: `refs` goes down by the number of
 * copies gone, and a content nobody shares any more is deleted with its attachments (cascade).
 */
export async function releaseContents(db: Executor, deletedIds: readonly string[], slices?: LoopSlices): Promise<void> {
  const counts = new Map<string, number>();
  for (const id of deletedIds) counts.set(id, (counts.get(id) ?? 0) + 1);
  // In id order: every transaction takes content row locks in the same order (no deadlock between two
  // that release the same shared contents).
  for (const [id, n] of [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    await slices?.next();
    // Usually the last copy went: one statement.
    const gone = await db.deleteFrom('message_contents').where('id', '=', id).where('refs', '<=', n).executeTakeFirst();
    if (Number(gone.numDeletedRows) > 0) continue;
    // Shared: the UPDATE locks the row (PostgreSQL), so of two copies released at once the second sees the
    // first's decrement and deletes at zero.
    const left = await db
      .updateTable('message_contents')
      .set((eb) => ({ refs: eb('refs', '-', n) }))
      .where('id', '=', id)
      .returning('refs')
      .executeTakeFirst();
    if (left && Number(left.refs) <= 0) await db.deleteFrom('message_contents').where('id', '=', id).execute();
  }
}

/** Deletes one mailbox's copy (the content goes with the last copy); false when there was none. Run in a transaction. */
export async function deleteMessage(db: Executor, address: string, id: string): Promise<boolean> {
  const gone = await db.deleteFrom('messages').where('mailbox_address', '=', address).where('id', '=', id).returning('id').execute();
  await releaseContents(
    db,
    gone.map((r) => r.id),
  );
  return gone.length > 0;
}

/**
 * Deletes up to `batch` messages received before `cutoff` and the contents no copy shares any more;
 * answers how many copies went. Run in a transaction. Idempotent, so instances running it at the same
 * time only share the work.
 */
export async function deleteReceivedBefore(db: Executor, cutoff: number, batch: number, slices?: LoopSlices): Promise<number> {
  const gone = await db
    .deleteFrom('messages')
    .where('seq', 'in', (qb) => qb.selectFrom('messages').select('seq').where('received_at', '<', cutoff).orderBy('received_at').limit(batch))
    .returning('id')
    .execute();
  await releaseContents(
    db,
    gone.map((r) => r.id),
    slices,
  );
  return gone.length;
}

/**
 * The mailbox quota: deletes the copies of `address` beyond the newest `keep` and answers their
 * message ids, whose contents the caller releases (releaseContents) once all mailbox locks are held
 * and every mailbox is trimmed. Run in the intake's transaction, after lockMailboxes.
 */
export async function trimMailbox(db: Executor, address: string, keep: number): Promise<string[]> {
  const gone = await db
    .deleteFrom('messages')
    .where('mailbox_address', '=', address)
    .where('seq', '<', (eb) =>
      eb.selectFrom('messages').select('seq').where('mailbox_address', '=', address).orderBy('seq', 'desc').limit(1).offset(keep - 1),
    )
    .returning('id')
    .execute();
  return gone.map((r) => r.id);
}

/**
 * The byte quota (docs/mailtm.md#the-quota) of each mailbox (null: none), read one at a time in address order. With
 * `lock` (PostgreSQL) each row is also locked until commit: that serialises the intakes of a mailbox, so
 * both of its quotas hold under concurrency, and two intakes to overlapping mailboxes wait for each other
 * at the first shared mailbox, never in a cycle. Run before any other write of the intake.
 */
export async function lockMailboxes(db: Executor, addresses: readonly string[], lock: boolean, slices?: LoopSlices): Promise<MailboxQuota[]> {
  const quotas: MailboxQuota[] = [];
  for (const address of [...addresses].sort()) {
    await slices?.next();
    const row = await db
      .selectFrom('mailboxes')
      .select(['address', 'max_bytes', 'bytes_bound'])
      .where('address', '=', address)
      .$if(lock, (q) => q.forUpdate())
      .executeTakeFirst();
    if (row) quotas.push({ address: row.address, maxBytes: nullableNumber(row.max_bytes), bytesBound: nullableNumber(row.bytes_bound) });
  }
  return quotas;
}

export interface MailboxQuota {
  readonly address: string;
  /** The byte quota; null: none. */
  readonly maxBytes: number | null;
  /** Never below the bytes its messages hold (null: not kept, they must be summed). */
  readonly bytesBound: number | null;
}

function nullableNumber(value: number | null): number | null {
  return value === null ? null : Number(value);
}

/** The new bound of a mailbox with a quota; run in the intake's transaction, under lockMailboxes. */
export async function setBytesBound(db: Executor, address: string, bytes: number): Promise<void> {
  await db.updateTable('mailboxes').set({ bytes_bound: bytes }).where('address', '=', address).execute();
}

/**
 * The bytes each mailbox's messages hold: the sum of their `size`, the measure of the byte quota and of
 * a mail.tm account's `used`. Mailboxes without messages are absent (0).
 */
export async function storedBytes(db: Executor, addresses: readonly string[]): Promise<Map<string, number>> {
  if (addresses.length === 0) return new Map();
  const rows = await db
    .selectFrom('messages')
    .select((eb) => ['mailbox_address', eb.fn.sum<number>('size').as('bytes')])
    .where('mailbox_address', 'in', [...addresses])
    .groupBy('mailbox_address')
    .execute();
  return new Map(rows.map((r) => [r.mailbox_address, Number(r.bytes)]));
}

/**
 * The byte quota: deletes the copies of `address` beyond the newest ones whose sizes add up to at most
 * `keepBytes` (the oldest go first) and answers their message ids, whose contents the caller releases,
 * and the bytes they held. It sums the sizes as they are when it runs, so a copy deleted meanwhile never
 * leaves the mailbox over.
 */
export async function trimMailboxBytes(db: Executor, address: string, keepBytes: number): Promise<{ ids: string[]; bytes: number }> {
  const gone = await db
    .deleteFrom('messages')
    .where('mailbox_address', '=', address)
    .where('seq', 'in', (eb) =>
      eb
        .selectFrom((inner) =>
          inner
            .selectFrom('messages')
            .select((w) => ['seq', w.fn.sum<number>('size').over((o) => o.orderBy('seq', 'desc')).as('newer_bytes')])
            .where('mailbox_address', '=', address)
            .as('copies'),
        )
        .select('copies.seq')
        .where('copies.newer_bytes', '>', keepBytes),
    )
    .returning(['id', 'size'])
    .execute();
  return { ids: gone.map((r) => r.id), bytes: gone.reduce((n, r) => n + Number(r.size), 0) };
}

/** Rows and bytes of stored attachment content (tests and operators: stored once per message). */
export async function attachmentStorage(db: Executor): Promise<{ rows: number; bytes: number }> {
  const row = await db
    .selectFrom('message_attachments')
    .select((eb) => [eb.fn.countAll().as('rows'), eb.fn.sum('size').as('bytes')])
    .executeTakeFirst();
  return { rows: Number(row?.rows ?? 0), bytes: Number(row?.bytes ?? 0) };
}
