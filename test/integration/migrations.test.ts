import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { openDatabase, type DatabaseHandle } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { messageSearch } from '../../src/platform/db/migrations/0081-message-search.js';
import { searchMessages } from '../../src/mail/messages/mail-search.repository.js';
import { searchTerms } from '../../src/mail/messages/search-text.js';
import { describeEachDatabase, freshDatabase, type TestDatabase } from '../helpers/databases.js';

describeEachDatabase('migrations', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;

  beforeEach(async () => {
    database = await freshDatabase(dialect);
    handle = openDatabase(parseDatabaseUrl(database.url), database.pgSchema ? { pgSchema: database.pgSchema } : {});
  });

  afterEach(async () => {
    await handle.destroy();
    await database.drop();
  });

  it('applies every migration once; a second run applies none', async () => {
    const first = await migrateToLatest(handle);
    expect(first[0]).toBe('0001-foundation');
    expect(first).toContain('0002-attribution');
    expect(await migrateToLatest(handle)).toEqual([]);
  });

  it('applies a migration that arrived after later-numbered ones had run', async () => {
    await migrateToLatest(handle);
    // The state of a database migrated before 0002 existed: 0004 and later applied, 0002 not.
    await sql`drop table affiliate_stats`.execute(handle.db);
    await sql`delete from kysely_migration where name = '0002-attribution'`.execute(handle.db);
    await sql`insert into daily_stats (ref_code, day, clicks, orders) values ('early', '2026-11-01', 7, 2)`.execute(handle.db);

    expect(await migrateToLatest(handle)).toEqual(['0002-attribution']);
    // its backfill ran against the data already there
    const rows = await sql<{ clicks: number; orders: number }>`select clicks, orders from affiliate_stats where ref_code = 'early'`.execute(handle.db);
    expect(rows.rows.map((r) => ({ clicks: Number(r.clicks), orders: Number(r.orders) }))).toEqual([{ clicks: 7, orders: 2 }]);
  });
  it('0013 fills revenue from the paid attributed orders already there', async () => {
    await migrateToLatest(handle);
    // the state before 0013: orders, their commissions and the rollup rows, without revenue columns
    await sql`insert into orders (order_id, email, amount_cents, product, status, ref_code, created_at, paid_at) values
      ('o1', 'a@svc.test', 10000, 'p', 'paid', 'rev', 0, ${Date.UTC(2026, 10, 1, 23, 59)}),
      ('o2', 'a@svc.test', 2550, 'p', 'paid', 'rev', 0, ${Date.UTC(2026, 10, 1, 1)}),
      ('o3', 'a@svc.test', 700, 'p', 'paid', 'rev', 0, ${Date.UTC(2026, 10, 2, 0, 0, 1)}),
      ('o4', 'b@svc.test', 999, 'p', 'paid', null, 0, ${Date.UTC(2026, 10, 1)})`.execute(handle.db);
    await sql`insert into commissions (id, order_id, ref_code, amount_cents, rate_bp, commission_cents, status, created_at, updated_at) values
      ('c1', 'o1', 'rev', 10000, 1000, 1000, 'pending', 0, 0),
      ('c2', 'o2', 'rev', 2550, 1000, 255, 'pending', 0, 0),
      ('c3', 'o3', 'rev', 700, 1000, 70, 'pending', 0, 0)`.execute(handle.db);
    await sql`insert into daily_stats (ref_code, day, orders) values ('rev', '2026-11-01', 2), ('rev', '2026-11-02', 1)`.execute(handle.db);
    await sql`insert into affiliate_stats (ref_code, orders) values ('rev', 3)`.execute(handle.db);
    await sql`alter table daily_stats drop column revenue_cents`.execute(handle.db);
    await sql`alter table affiliate_stats drop column revenue_cents`.execute(handle.db);
    await sql`delete from kysely_migration where name = '0013-revenue'`.execute(handle.db);

    expect(await migrateToLatest(handle)).toEqual(['0013-revenue']);
    const days = await sql<{ day: string; revenue_cents: number }>`select day, revenue_cents from daily_stats where ref_code = 'rev' order by day`.execute(handle.db);
    expect(days.rows.map((r) => [r.day, Number(r.revenue_cents)])).toEqual([
      ['2026-11-01', 12550],
      ['2026-11-02', 700],
    ]);
    const all = await sql<{ revenue_cents: number }>`select revenue_cents from affiliate_stats where ref_code = 'rev'`.execute(handle.db);
    expect(all.rows.map((r) => Number(r.revenue_cents))).toEqual([13250]);
  });

  it('0042 counts the paid attributed orders that got no commission, each on its paid day, less its refunds', async () => {
    await migrateToLatest(handle);
    // the state before 0042: o2 and o3 paid and attributed with no commission (a rule's limits), o3 partly
    // refunded, neither counted; o1 counted with its commission; o4 not attributed; o5 never paid
    const day1 = Date.UTC(2026, 10, 1, 23, 59);
    const day2 = Date.UTC(2026, 10, 2, 0, 0, 1);
    await sql`insert into orders (order_id, email, amount_cents, product, status, ref_code, created_at, paid_at, refunded_cents) values
      ('o1', 'a@svc.test', 10000, 'p', 'paid', 'cap', 0, ${day1}, 0),
      ('o2', 'a@svc.test', 2550, 'p', 'paid', 'cap', 0, ${day1}, 0),
      ('o3', 'a@svc.test', 700, 'p', 'partially_refunded', 'cap', 0, ${day2}, 200),
      ('o4', 'b@svc.test', 999, 'p', 'paid', null, 0, ${day1}, 0),
      ('o5', 'a@svc.test', 5000, 'p', 'created', null, 0, null, 0)`.execute(handle.db);
    await sql`insert into commissions (id, order_id, ref_code, amount_cents, rate_bp, commission_cents, status, created_at, updated_at) values
      ('c1', 'o1', 'cap', 10000, 1000, 1000, 'pending', ${day1}, ${day1})`.execute(handle.db);
    await sql`insert into daily_stats (ref_code, day, stripe, orders, revenue_cents, commission_pending_cents) values ('cap', '2026-11-01', 3, 1, 10000, 1000)`.execute(handle.db);
    await sql`insert into affiliate_stats (ref_code, stripe, orders, revenue_cents, commission_pending_cents) values ('cap', 3, 1, 10000, 1000)`.execute(handle.db);
    await sql`delete from kysely_migration where name = '0042-uncommissioned-orders'`.execute(handle.db);

    expect(await migrateToLatest(handle)).toEqual(['0042-uncommissioned-orders']);
    const days = await sql<{ day: string; orders: number; revenue_cents: number }>`
      select day, sum(orders) as orders, sum(revenue_cents) as revenue_cents from daily_stats where ref_code = 'cap' group by day order by day`.execute(handle.db);
    expect(days.rows.map((r) => [r.day, Number(r.orders), Number(r.revenue_cents)])).toEqual([
      ['2026-11-01', 2, 12550],
      ['2026-11-02', 1, 500],
    ]);
    const all = await sql<{ orders: number; revenue_cents: number; pending: number }>`
      select sum(orders) as orders, sum(revenue_cents) as revenue_cents, sum(commission_pending_cents) as pending from affiliate_stats where ref_code = 'cap'`.execute(handle.db);
    expect(all.rows.map((r) => [Number(r.orders), Number(r.revenue_cents), Number(r.pending)])).toEqual([[3, 13050, 1000]]);
  });

  it('0043 moves every affiliate balance to stripe 0 of its all-time rows, keeping their counters, and drops the old column', async () => {
    await migrateToLatest(handle);
    // the state before 0043: the balance in affiliates.balance_cents
    await sql`alter table affiliate_stats drop column balance_cents`.execute(handle.db);
    await sql`alter table affiliates add column balance_cents bigint not null default 0`.execute(handle.db);
    await sql`delete from kysely_migration where name = '0043-balance-stripes'`.execute(handle.db);
    await sql`insert into affiliates (ref_code, name, email, status, commission_rate_bp, balance_cents, created_at, updated_at) values
      ('rich', null, null, 'active', null, 12345, 0, 0),
      ('owing', null, null, 'active', null, -500, 0, 0),
      ('none', null, null, 'active', null, 0, 0, 0)`.execute(handle.db);
    await sql`insert into affiliate_stats (ref_code, stripe, orders, commission_paid_cents) values ('rich', 0, 4, 20000), ('rich', 2, 1, 345)`.execute(handle.db);

    expect(await migrateToLatest(handle)).toEqual(['0043-balance-stripes']);
    const rows = await sql<{ ref_code: string; stripe: number; orders: number; paid: number; balance: number }>`
      select ref_code, stripe, orders, commission_paid_cents as paid, balance_cents as balance from affiliate_stats order by ref_code, stripe`.execute(handle.db);
    expect(rows.rows.map((r) => [r.ref_code, Number(r.stripe), Number(r.orders), Number(r.paid), Number(r.balance)])).toEqual([
      ['owing', 0, 0, 0, -500],
      ['rich', 0, 4, 20000, 12345],
      ['rich', 2, 1, 345, 0],
    ]);
    await expect(sql`select balance_cents from affiliates`.execute(handle.db)).rejects.toThrow(/balance_cents/);
  });

  it('0044 drops the index of the due date stored at booking, and keeps the column for the instances of the release before it', async () => {
    await migrateToLatest(handle);
    const indexes =
      dialect === 'postgres'
        ? await sql<{ name: string }>`select indexname as name from pg_indexes where schemaname = current_schema() and tablename = 'commissions'`.execute(handle.db)
        : await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'commissions'`.execute(handle.db);
    const names = indexes.rows.map((r) => r.name);
    expect(names).toContain('commissions_status_created');
    expect(names).not.toContain('commissions_approve_due');
    // an older instance's commission insert, which names the column, still works
    await sql`insert into commissions (id, order_id, ref_code, amount_cents, rate_bp, commission_cents, status, approve_due_at, created_at, updated_at)
      values ('c-old', 'o-old', 'r', 1000, 1000, 100, 'pending', 123, 0, 0)`.execute(handle.db);
  });

  it('0045 creates the shared-limit tables, unlogged on PostgreSQL (no WAL for minutes of bookkeeping)', async () => {
    await migrateToLatest(handle);
    const tables = ['limit_lease_keys', 'limit_leases', 'rate_limit_windows'];
    for (const table of tables) expect((await sql`select count(*) as n from ${sql.table(table)}`.execute(handle.db)).rows).toHaveLength(1);
    if (dialect === 'postgres') {
      const persistence = await sql<{ name: string; p: string }>`
        select relname as name, relpersistence as p from pg_class where relnamespace = current_schema()::regnamespace and relkind = 'r' and relname in ('limit_lease_keys', 'limit_leases', 'rate_limit_windows', 'mailboxes')
        order by relname`.execute(handle.db);
      expect(persistence.rows).toEqual([...tables.slice(0, 2).map((name) => ({ name, p: 'u' })), { name: 'mailboxes', p: 'p' }, { name: 'rate_limit_windows', p: 'u' }]);
    }
  });

  it('0046 gives the mailbox of every existing mail.tm account mail.tm\'s 40 MiB quota and the bytes it holds as its bound; no other mailbox a quota', async () => {
    await migrateToLatest(handle);
    // the state before 0046: no max_bytes, no bytes_bound
    await sql`alter table mailboxes drop column max_bytes`.execute(handle.db);
    await sql`alter table mailboxes drop column bytes_bound`.execute(handle.db);
    await sql`delete from kysely_migration where name = '0046-mailbox-byte-quota'`.execute(handle.db);
    await sql`insert into mailboxes (address, local_part, domain, ref_code, token_hash, created_at) values
      ('acct@svc.test', 'acct', 'svc.test', null, 'h1', 0), ('plain@svc.test', 'plain', 'svc.test', null, 'h2', 0)`.execute(handle.db);
    await sql`insert into mailtm_accounts (id, address, password_hash, created_at, updated_at) values ('a1', 'acct@svc.test', 'x', 0, 0)`.execute(handle.db);
    await sql`insert into messages (id, mailbox_address, size, attachments_count, received_at) values
      ('m1', 'acct@svc.test', 1000, 0, 0), ('m2', 'acct@svc.test', 234, 0, 0), ('m3', 'plain@svc.test', 5000, 0, 0)`.execute(handle.db);

    expect(await migrateToLatest(handle)).toEqual(['0046-mailbox-byte-quota']);
    const rows = await sql<{ address: string; max_bytes: number | null; bytes_bound: number | null }>`
      select address, max_bytes, bytes_bound from mailboxes order by address`.execute(handle.db);
    const orNull = (v: number | null) => (v === null ? null : Number(v));
    expect(rows.rows.map((r) => [r.address, orNull(r.max_bytes), orNull(r.bytes_bound)])).toEqual([
      ['acct@svc.test', 40 * 1024 * 1024, 1234],
      ['plain@svc.test', null, null],
    ]);
  });

  it('0091 records as done every month the schedule claimed, and the month payout_schedule was switched to monthly in', async () => {
    await migrateToLatest(handle);
    // the state before 0091: runs of January and February, the schedule last written in March
    await sql`drop table payout_schedule_months`.execute(handle.db);
    await sql`delete from kysely_migration where name = '0091-payout-schedule-months'`.execute(handle.db);
    await sql`insert into payout_schedule_runs (ref_code, month, withdrawal_id, created_at) values
      ('a', '2026-01', 'wd1', ${Date.UTC(2026, 0, 1, 0, 1)}), ('b', '2026-01', null, ${Date.UTC(2026, 0, 1, 0, 2)}),
      ('a', '2026-02', null, ${Date.UTC(2026, 1, 1, 0, 1)})`.execute(handle.db);
    await sql`insert into settings (key, value, updated_at) values ('payout_schedule', '"monthly"', ${Date.UTC(2026, 2, 15, 9)})`.execute(handle.db);

    expect(await migrateToLatest(handle)).toEqual(['0091-payout-schedule-months']);
    const rows = await sql<{ month: string; done_at: number }>`select month, done_at from payout_schedule_months order by month`.execute(handle.db);
    expect(rows.rows.map((r) => [r.month, Number(r.done_at)])).toEqual([
      ['2026-01', Date.UTC(2026, 0, 1, 0, 2)],
      ['2026-02', Date.UTC(2026, 1, 1, 0, 1)],
      ['2026-03', Date.UTC(2026, 2, 15, 9)],
    ]);
  });

  it('0102 makes every existing mail domain public, and a domain added without the column public too', async () => {
    await migrateToLatest(handle);
    // the state before 0102: two domains, one inactive, and no public column
    await sql`alter table mail_domains drop column public`.execute(handle.db);
    await sql`delete from kysely_migration where name = '0102-domain-public'`.execute(handle.db);
    await sql`insert into mail_domains (domain, position, active, catch_all, created_at) values ('one.test', 1, 1, 1, 10), ('two.test', 2, 0, 0, 20)`.execute(handle.db);

    expect(await migrateToLatest(handle)).toEqual(['0102-domain-public']);
    await sql`insert into mail_domains (domain, position, active, catch_all, created_at) values ('three.test', 3, 1, 0, 30)`.execute(handle.db);
    const rows = await sql<{ domain: string; public: number }>`select domain, public from mail_domains order by position`.execute(handle.db);
    expect(rows.rows.map((r) => [r.domain, Number(r.public)])).toEqual([
      ['one.test', 1],
      ['two.test', 1],
      ['three.test', 1],
    ]);
  });

  it('0101 marks every email already stored confirmed (existing affiliates keep signing in by it), and none where there is no email', async () => {
    await migrateToLatest(handle);
    // the state before 0101
    await sql`drop index outbound_mail_recipient`.execute(handle.db);
    await sql`alter table affiliate_invites drop column email`.execute(handle.db);
    await sql`alter table affiliates drop column email_confirmed_at`.execute(handle.db);
    await sql`delete from kysely_migration where name = '0101-email-confirmation'`.execute(handle.db);
    await sql`insert into affiliates (ref_code, name, email, status, created_at, updated_at) values
      ('old1', 'Old', 'old1@example.com', 'active', 1000, 2000), ('old2', null, null, 'active', 1000, 3000), ('old3', 'P', 'old3@example.com', 'pending', 1000, 4000)`.execute(handle.db);

    expect(await migrateToLatest(handle)).toEqual(['0101-email-confirmation']);
    const rows = await sql<{ ref_code: string; email_confirmed_at: number | string | null }>`select ref_code, email_confirmed_at from affiliates order by ref_code`.execute(handle.db);
    expect(rows.rows.map((r) => [r.ref_code, r.email_confirmed_at === null ? null : Number(r.email_confirmed_at)])).toEqual([
      ['old1', 2000],
      ['old2', null],
      ['old3', 4000],
    ]);
  });

  it('0100 rebuilds the search index of the messages already stored (SQLite: scoped to each mailbox; PostgreSQL: as it was)', async () => {
    await migrateToLatest(handle);
    const db = handle.db;
    const now = Date.now();
    await db
      .insertInto('mailboxes')
      .values(['a@x.test', 'b@x.test'].map((address) => ({ address, local_part: address[0]!, domain: 'x.test', ref_code: null, token_hash: '', created_at: now })))
      .execute();
    const stored = [
      { id: 'msg_0100a', mailbox: 'a@x.test', subject: 'Hello World', text: 'Your Confirmation, Ünïcode' },
      { id: 'msg_0100b', mailbox: 'b@x.test', subject: 'Hello Other', text: 'nothing here' },
    ];
    for (const m of stored) {
      await db.insertInto('message_contents').values({ id: m.id, refs: 1, text: m.text, html: null, html_state: 'none', headers: null, msgid: null, source_html: null, links: null, verification_link: null }).execute();
      await db
        .insertInto('messages')
        .values({ id: m.id, mailbox_address: m.mailbox, from_address: 'sender@example.test', from_name: null, to_header: null, subject: m.subject, size: 10, attachments_count: 0, received_at: now, seen: 0, code: null })
        .execute();
    }
    // The index as 0081 left it for these messages, and 0100 not yet applied.
    if (dialect === 'sqlite') {
      await sql`drop trigger message_search_delete`.execute(db);
      await sql`drop table message_search`.execute(db);
    } else {
      await sql`drop table message_search`.execute(db);
    }
    await messageSearch(dialect).up(db as never);
    await sql`delete from kysely_migration where name = '0100-scoped-message-search'`.execute(db);
    expect(await migrateToLatest(handle)).toEqual(['0100-scoped-message-search']);

    const found = async (address: string, q: string) => (await searchMessages(db, dialect, address, searchTerms(q), 10)).map((r) => r.id);
    expect(await found('a@x.test', 'hello')).toEqual(['msg_0100a']);
    expect(await found('b@x.test', 'hello')).toEqual(['msg_0100b']);
    expect(await found('a@x.test', 'conf')).toEqual(['msg_0100a']);
    expect(await found('a@x.test', 'other')).toEqual([]);
    expect(await found('b@x.test', 'world')).toEqual([]);
    if (dialect === 'sqlite') {
      // 0081 wrote older documents with their punctuation and case; 0100 makes them words as search-text.ts does.
      expect(await found('a@x.test', 'unicode')).toEqual(['msg_0100a']);
      expect(await found('a@x.test', 'sender@example.test')).toEqual(['msg_0100a']);
      // The delete trigger is back: a deleted copy leaves no row in the index.
      await db.deleteFrom('messages').where('id', '=', 'msg_0100b').execute();
      const rows = await sql<{ n: number }>`select count(*) as n from message_search`.execute(db);
      expect(Number(rows.rows[0]!.n)).toBe(1);
    }
  });

  it('0110 moves a populated click table into day partitions (PostgreSQL) without losing a click or an id', async () => {
    await migrateToLatest(handle);
    const db = handle.db;
    // the click table as 0001 made it, with clicks over three days, and 0110 not applied
    await sql`drop table maintenance_runs`.execute(db);
    if (dialect === 'postgres') {
      await sql`drop table clicks`.execute(db);
      await sql`create table clicks (id bigserial primary key, ref_code text not null, created_at bigint not null, ip_hash text, user_agent text, referer text, network_click_ids text)`.execute(db);
      await sql`create index clicks_ref_created on clicks (ref_code, created_at)`.execute(db);
    } else {
      await sql`drop index clicks_created`.execute(db);
    }
    const day = (d: number, h: number) => Date.UTC(2026, 2, d, h);
    const before = [
      { ref_code: 'ann', created_at: day(30, 23), network_click_ids: '{"awc":"1"}' },
      { ref_code: 'ann', created_at: day(31, 0), network_click_ids: null },
      { ref_code: 'bob', created_at: day(31, 12), network_click_ids: null },
      { ref_code: 'bob', created_at: Date.UTC(2026, 3, 1, 0, 0, 0), network_click_ids: null },
    ];
    for (const c of before) await sql`insert into clicks (ref_code, created_at, ip_hash, user_agent, referer, network_click_ids) values (${c.ref_code}, ${c.created_at}, 'h', 'ua', null, ${c.network_click_ids})`.execute(db);
    const rowsBefore = (await sql<{ id: number; ref_code: string; created_at: number; network_click_ids: string | null }>`select id, ref_code, created_at, network_click_ids from clicks order by id`.execute(db)).rows.map((r) => ({ ...r, id: Number(r.id), created_at: Number(r.created_at) }));
    await sql`delete from kysely_migration where name = '0110-click-log'`.execute(db);

    expect(await migrateToLatest(handle)).toEqual(['0110-click-log']);
    const rowsAfter = (await sql<{ id: number; ref_code: string; created_at: number; network_click_ids: string | null }>`select id, ref_code, created_at, network_click_ids from clicks order by id`.execute(db)).rows.map((r) => ({ ...r, id: Number(r.id), created_at: Number(r.created_at) }));
    expect(rowsAfter).toEqual(rowsBefore);
    // a new click takes the next id
    const next = await sql<{ id: number }>`insert into clicks (ref_code, created_at) values ('ann', ${Date.now()}) returning id`.execute(db);
    expect(Number(next.rows[0]!.id)).toBe(Math.max(...rowsBefore.map((r) => r.id)) + 1);
    if (dialect === 'postgres') {
      const parts = await sql<{ name: string }>`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = cast('clicks' as regclass) order by 1`.execute(db);
      expect(parts.rows.map((r) => r.name).slice(0, 3)).toEqual(['clicks_p20260330', 'clicks_p20260331', 'clicks_p20260401']);
      const inDay = await sql<{ n: number }>`select count(*) as n from clicks_p20260331`.execute(db);
      expect(Number(inDay.rows[0]!.n)).toBe(2);
      const keys = await sql<{ def: string }>`select pg_get_constraintdef(oid) as def from pg_constraint where conrelid = cast('clicks' as regclass) and contype = 'p'`.execute(db);
      expect(keys.rows.map((r) => r.def)).toEqual(['PRIMARY KEY (ref_code, id, created_at)']);
      // the lookups of today use the indexes: network ids by (ref_code, created_at), the svc_click cookie by (ref_code, id)
      const plan = await sql<{ 'QUERY PLAN': string }>`explain select network_click_ids from clicks where ref_code = 'ann' and network_click_ids is not null order by created_at desc limit 1`.execute(db);
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Index Scan Backward using clicks_p\d+_ref_code_created_at_idx|Index Scan Backward using clicks_p\d+_ref_code_/);
    } else {
      const indexes = await sql<{ name: string }>`select name from sqlite_master where type = 'index' and tbl_name = 'clicks' order by name`.execute(db);
      expect(indexes.rows.map((r) => r.name)).toEqual(['clicks_created', 'clicks_ref_created']);
    }
  });
});
