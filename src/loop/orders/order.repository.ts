import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Order, OrderStatus } from '../../platform/db/schema.js';
import { given, newestFirst, type PageCursor } from '../../platform/db/keyset.js';

export async function findOrder(db: Executor, orderId: string): Promise<Order | undefined> {
  return db.selectFrom('orders').selectAll().where('order_id', '=', orderId).executeTakeFirst();
}

export interface OrderFilter {
  readonly status?: OrderStatus;
  readonly email?: string;
  /** Prefix of order_id or email. */
  readonly q?: string;
  readonly after?: PageCursor;
  readonly limit: number;
}

/** Newest first; fetches limit + 1 rows so the caller knows whether another page follows. */
export async function listOrders(db: Executor, f: OrderFilter): Promise<Order[]> {
  let q = db
    .selectFrom('orders')
    .selectAll()
    .where((eb) => eb.and(given({ status: f.status, email: f.email })));
  const search = f.q;
  if (search) {
    // substr instead of LIKE: the same exact, case-sensitive prefix match on both dialects, no escaping.
    const lower = search.toLowerCase();
    q = q.where((eb) =>
      eb.or([
        eb(sql<string>`substr(order_id, 1, ${Array.from(search).length})`, '=', search),
        eb(sql<string>`substr(email, 1, ${Array.from(lower).length})`, '=', lower),
      ]),
    );
  }
  return newestFirst(q, f, 'order_id').execute();
}

/** Whether any order exists (docs/api.md#payouts: the currency is locked from the first one). */
export async function anyOrderExists(db: Executor): Promise<boolean> {
  return (await db.selectFrom('orders').select('order_id').limit(1).executeTakeFirst()) !== undefined;
}
