import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';
import { createDayPartitions, DAY_MS } from '../day-partitions.js';

/**
 * docs/api.md#click-log: raw clicks are kept `click_retention_days`, and a job that must run once a day across
 * instances (that retention) claims its day in `maintenance_runs`.
 *
 * PostgreSQL: `clicks` becomes a table partitioned by UTC day (native declarative partitioning), so old days
 * are dropped whole. Its primary key is (ref_code, id, created_at): a partitioned table's keys must hold the
 * partition column, and leading with ref_code keeps the key valid for the Citus plan of docs/scaling.md
 * (affiliate tables distributed by ref_code). Every click is moved over in this migration's transaction, under
 * the same ids (the sequence goes with the column), and the (ref_code, created_at) index is rebuilt on the
 * new table. Partitions are made for every day that holds a click and for today; svc makes the days ahead
 * itself from then on (src/loop/clicks/click-retention.ts).
 *
 * SQLite: an index on created_at, by which old clicks are deleted in small batches and the list of every
 * affiliate's clicks is read newest first.
 */
export function clickLog(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('maintenance_runs')
        .addColumn('job', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull())
        .addColumn('instance', 'text', (c) => c.notNull())
        .addColumn('claimed_at', 'bigint', (c) => c.notNull())
        .addColumn('finished_at', 'bigint')
        .addColumn('result', 'text')
        .addPrimaryKeyConstraint('maintenance_runs_pk', ['job', 'day'])
        .execute();
      if (dialect === 'sqlite') {
        await db.schema.createIndex('clicks_created').on('clicks').column('created_at').execute();
        return;
      }
      await sql`alter table clicks rename to clicks_unpartitioned`.execute(db);
      await sql`alter index clicks_ref_created rename to clicks_unpartitioned_ref_created`.execute(db);
      await sql`create table clicks (
        id bigint not null default nextval('clicks_id_seq'),
        ref_code text not null,
        created_at bigint not null,
        ip_hash text,
        user_agent text,
        referer text,
        network_click_ids text,
        constraint clicks_pk primary key (ref_code, id, created_at)
      ) partition by range (created_at)`.execute(db);
      await sql`alter sequence clicks_id_seq owned by clicks.id`.execute(db);
      const days = await sql<{ day: string | number }>`select distinct floor(created_at / ${DAY_MS}) as day from clicks_unpartitioned`.execute(db);
      await createDayPartitions(db, 'clicks', [...days.rows.map((r) => Number(r.day) * DAY_MS), Date.now()]);
      await sql`insert into clicks (id, ref_code, created_at, ip_hash, user_agent, referer, network_click_ids)
        select id, ref_code, created_at, ip_hash, user_agent, referer, network_click_ids from clicks_unpartitioned`.execute(db);
      await sql`drop table clicks_unpartitioned`.execute(db);
      await sql`create index clicks_ref_created on clicks (ref_code, created_at)`.execute(db);
    },
  };
}
