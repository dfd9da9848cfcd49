import type { Executor } from '../../platform/db/database.js';
import type { Mailbox, NewMailbox } from '../../platform/db/schema.js';

/** Addresses are stored trimmed and lower-cased (docs/api.md#conventions: compared case-insensitively). */
export function normalizeAddress(address: string): string {
  return address.trim().toLowerCase();
}

export async function findMailbox(db: Executor, address: string): Promise<Mailbox | undefined> {
  return db.selectFrom('mailboxes').selectAll().where('address', '=', normalizeAddress(address)).executeTakeFirst();
}

/** Inserts a mailbox; false when the address is taken. */
export async function insertMailbox(db: Executor, row: NewMailbox): Promise<boolean> {
  const res = await db
    .insertInto('mailboxes')
    .values(row)
    .onConflict((oc) => oc.column('address').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function findMailboxesByAddresses(db: Executor, addresses: readonly string[]): Promise<Mailbox[]> {
  if (addresses.length === 0) return [];
  return db.selectFrom('mailboxes').selectAll().where('address', 'in', addresses.map(normalizeAddress)).execute();
}

export interface NewReferral {
  readonly id: string;
  readonly mailbox_address: string;
  readonly ref_code: string;
  /** Where the attribution came from: 'ref' (explicit parameter) or 'cookie'. */
  readonly source: string;
  readonly network_click_ids: string | null;
  readonly created_at: number;
  /** The network it was made from (salted hash), docs/api.md#fraud-review. */
  readonly ip_hash: string | null;
}

/** The one referral of an attributed mailbox; the unique mailbox_address keeps it to one. */
export async function insertReferral(db: Executor, row: NewReferral): Promise<void> {
  await db.insertInto('referrals').values(row).execute();
}

/** Mailboxes with no token (caught by a catch-all domain), newest first, after (createdAt, address) when given. */
export async function listMailboxesWithoutToken(
  db: Executor,
  limit: number,
  after?: { createdAt: number; address: string },
): Promise<Pick<Mailbox, 'address' | 'domain' | 'created_at'>[]> {
  let q = db.selectFrom('mailboxes').select(['address', 'domain', 'created_at']).where('token_hash', '=', '');
  if (after) {
    q = q.where((eb) => eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('address', '<', after.address)])]));
  }
  return q.orderBy('created_at', 'desc').orderBy('address', 'desc').limit(limit).execute();
}
