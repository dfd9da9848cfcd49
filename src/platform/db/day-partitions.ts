import { sql } from 'kysely';
import type { Executor } from './database.js';

/**
 * PostgreSQL tables partitioned by UTC day on an epoch-milliseconds column (native declarative partitioning,
 * no extension): one partition per day, named `<table>_pYYYYMMDD`, holding [midnight, next midnight). Old
 * days are removed by dropping their partition whole, never by a scan-and-delete. The click log is the one
 * such table today (migration 0110, docs/scaling.md).
 */

export const DAY_MS = 86_400_000;

/** The start (UTC midnight, epoch ms) of the day holding `ms`. */
export function dayStartOf(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

export interface DayPartition {
  readonly name: string;
  readonly dayStart: number;
}

/** The partition of `table` holding the UTC day that starts at `dayStart`, like clicks_p20261202. */
export function dayPartitionName(table: string, dayStart: number): string {
  return `${table}_p${new Date(dayStart).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

/** The day a partition of `table` holds, from its name; undefined for a table not named so. */
function dayOfPartition(table: string, name: string): number | undefined {
  if (!name.startsWith(`${table}_p`)) return undefined;
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(name.slice(table.length + 2));
  return m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : undefined;
}

/** The day partitions `table` has (in the schema the search path finds it in), oldest first. */
export async function dayPartitions(db: Executor, table: string): Promise<DayPartition[]> {
  const rows = await sql<{ name: string }>`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = cast(${table} as regclass)`.execute(db);
  const found: DayPartition[] = [];
  for (const { name } of rows.rows) {
    const dayStart = dayOfPartition(table, name);
    if (dayStart !== undefined) found.push({ name, dayStart });
  }
  return found.sort((a, b) => a.dayStart - b.dayStart);
}

/**
 * Inside the caller's transaction: creates the partitions of `table` for the days holding `times` that do not
 * exist yet, and answers how many it created. Instances creating the same day at once take turns on a
 * transaction-scoped advisory lock, so none fails on the other's table.
 */
export async function createDayPartitions(tx: Executor, table: string, times: readonly number[]): Promise<number> {
  await takeTurns(tx, table);
  const have = new Set((await dayPartitions(tx, table)).map((p) => p.dayStart));
  let created = 0;
  for (const day of [...new Set(times.map(dayStartOf))].sort((a, b) => a - b)) {
    if (have.has(day)) continue;
    await sql`create table ${sql.id(dayPartitionName(table, day))} partition of ${sql.id(table)} for values from (${sql.lit(day)}) to (${sql.lit(day + DAY_MS)})`.execute(tx);
    created++;
  }
  return created;
}

/**
 * Inside the caller's transaction: drops one day partition whole and answers how many rows it held, or
 * undefined when it was already gone (another run dropped it meanwhile). Runs removing partitions take turns
 * with each other and with those creating them (the same advisory lock), so two at once never count or drop
 * one twice. The transaction waits at most `lockTimeoutMs` for the table, so a long reader makes the drop
 * fail (to be tried again) rather than queue every writer of the table behind it.
 */
export async function dropDayPartition(tx: Executor, table: string, partition: DayPartition, lockTimeoutMs: number): Promise<number | undefined> {
  await takeTurns(tx, table);
  const present = await sql<{ there: string | null }>`select cast(to_regclass(${partition.name}) as text) as there`.execute(tx);
  if (!present.rows[0]?.there) return undefined;
  const row = await sql<{ n: string | number }>`select count(*) as n from ${sql.id(partition.name)}`.execute(tx);
  await sql`set local lock_timeout = ${sql.lit(`${Math.max(1, Math.round(lockTimeoutMs))}ms`)}`.execute(tx);
  await sql`drop table ${sql.id(partition.name)}`.execute(tx);
  return Number(row.rows[0]?.n ?? 0);
}

/** Until the caller's transaction ends, no other instance creates or drops partitions of `table` (an advisory lock). */
async function takeTurns(tx: Executor, table: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`svc.day_partitions.${table}`}))`.execute(tx);
}

/** Whether `err` is PostgreSQL's refusal of a row no partition holds (a day not created yet). */
export function isMissingPartition(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === '23514' && typeof e.message === 'string' && e.message.includes('no partition');
}
