import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { withdrawalRequested } from '../../src/loop/ledger/ledger.js';
import { lockBalance } from '../../src/loop/ledger/balance.repository.js';
import { describeEachDatabase, POSTGRES_URL } from '../helpers/databases.js';
import { addAffiliate, balanceCents } from '../helpers/ledger-fixtures.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * CONTRACT §12 with the striped balance (migration 0043), on PostgreSQL read committed: a withdrawal W1
 * that sees a stripe row a credit has just inserted takes its amount from that row (the lowest it
 * locked); a withdrawal W2 whose statement began before the credit committed never sees that row,
 * neither the credit nor W1's debit. When W1 holds the rows W2 shares with it first, W2 waits for W1,
 * re-reads only the rows it knows (W1 did not change them) and accepts an amount the balance no longer
 * has. Natural timing makes this interleaving rare (a few per thousand in a plain-SQL replay); here it is
 * set up step by step.
 */
describeEachDatabase('a withdrawal racing a credit that makes a new stripe', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('a withdrawal whose statement began before a credit made a stripe row does not miss the debit another took from it', async () => {
    const db = t.service.ctx.db;
    await addAffiliate(t, 'phantom');
    await db.insertInto('affiliate_stats').values({ ref_code: 'phantom', stripe: 7, balance_cents: 10_000 }).execute();
    const credit = async () => {
      // a credit's balance upsert (counterWrites) on a stripe the affiliate had no row for: +5.00 on stripe 0
      await db
        .insertInto('affiliate_stats')
        .values({ ref_code: 'phantom', stripe: 0, balance_cents: 500 })
        .onConflict((oc) => oc.columns(['ref_code', 'stripe']).doUpdateSet({ balance_cents: sql`affiliate_stats.balance_cents + excluded.balance_cents` }))
        .execute();
    };
    let w2: { statusCode: number; body: string };
    let w1Accepted: boolean;
    let requesting: Promise<{ statusCode: number; body: string }> | undefined;
    if (dialect === 'postgres') {
      const watcher = new pg.Client({ connectionString: POSTGRES_URL });
      await watcher.connect();
      try {
        // W1, a withdrawal of 105.00, has locked the balance (first in the lock order) when W2, a withdrawal
        // of 100.00, starts and waits for it; a credit of 5.00 then inserts stripe 0 and commits; W1 locks
        // the balance again (a new statement: it sees stripe 0, as a withdrawal starting now would) and takes
        // 105.00 from stripe 0. W2 must not then find 100.00 on stripe 7 and take it too.
        w1Accepted = await db.transaction().execute(async (tx) => {
          await lockBalance(tx, 'phantom');
          requesting = t.api('POST', '/api/withdrawals', { ref_code: 'phantom', amount: 100 });
          for (let i = 0; ; i++) {
            const { rows } = await watcher.query(
              "select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock'",
            );
            if (rows[0].n > 0) break;
            if (i > 200) throw new Error('W2 never waited for W1');
            await new Promise((r) => setTimeout(r, 10));
          }
          await credit();
          const { accepted } = await withdrawalRequested(tx, 'phantom', 10_500, t.clock.now());
          return accepted;
        });
        w2 = await requesting!;
      } finally {
        await watcher.end();
      }
    } else {
      // SQLite runs one writer at a time: the credit, then W1, then W2
      await credit();
      w1Accepted = await db.transaction().execute(async (tx) => (await withdrawalRequested(tx, 'phantom', 10_500, t.clock.now())).accepted);
      w2 = await t.api('POST', '/api/withdrawals', { ref_code: 'phantom', amount: 100 });
    }
    expect(w1Accepted).toBe(true);
    expect(w2!.statusCode, w2!.body).toBe(422);
    expect(await balanceCents(t, 'phantom')).toBe(0);
  });
});
