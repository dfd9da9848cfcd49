import { type Clock, toIso } from '../../platform/clock.js';
import type { Db, Dialect } from '../../platform/db/database.js';
import { inTransaction } from '../../platform/db/database.js';
import { DAY_MS, dayPartitions, dayStartOf, dropDayPartition } from '../../platform/db/day-partitions.js';
import { decodeKey, keysetPage, type Page } from '../../platform/db/keyset.js';
import type { Logger } from '../../platform/logger.js';
import type { SettingsService } from '../../platform/settings/settings.service.js';
import { type ClickRow, deleteClicksBefore, listClicks } from './click-log.repository.js';
import { createClickDays } from './click.repository.js';

/** Days of partitions made ahead of today on PostgreSQL, so a click never waits for one to be created. */
export const PARTITION_DAYS_AHEAD = 7;
/** SQLite: clicks one delete statement removes at most, a few milliseconds of the event loop. */
export const SQLITE_DELETE_BATCH = 500;
/** PostgreSQL: how long dropping one day's partition waits for the table before that run fails (to be retried). */
const DROP_LOCK_TIMEOUT_MS = 2000;

/** What one retention run did (the maintenance endpoint's answer, kept with the daily run). */
export interface ClickRetentionResult {
  readonly click_retention_days: number;
  /** Clicks made before this instant (a UTC midnight) are removed; those after are kept. */
  readonly kept_from: string;
  readonly removed_clicks: number;
  /** PostgreSQL: the day partitions dropped; SQLite: 0. */
  readonly removed_days: number;
}

export interface ClickListQuery {
  readonly refCode?: string;
  /** UTC days YYYY-MM-DD, both included. */
  readonly from?: string;
  readonly to?: string;
  readonly cursor?: string;
  readonly limit: number;
}

const LIST = 'clicks';

/**
 * The raw click log (docs/api.md#click-log): its list, and its retention. The counts per affiliate and day
 * (daily_stats, written with each click) are the record every figure is read from; the raw rows are detail,
 * kept `click_retention_days` and removed by run(): on PostgreSQL by dropping whole day partitions, on
 * SQLite by small batched deletes that give the event loop back between batches.
 */
export class ClickLog {
  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly clock: Clock,
    private readonly settings: SettingsService,
    private readonly logger: Logger,
  ) {}

  /** A page of raw clicks, newest first; never an IP address (nor its hash). */
  async list(q: ClickListQuery): Promise<Page<{ ref_code: string; clicked_at: string; referer: string | null; user_agent: string | null }>> {
    const after = q.cursor ? decodeKey(q.cursor, ['number', 'number'] as const, LIST) : undefined;
    const rows = await listClicks(this.db, {
      refCode: q.refCode,
      from: q.from === undefined ? undefined : Date.parse(`${q.from}T00:00:00Z`),
      to: q.to === undefined ? undefined : Date.parse(`${q.to}T00:00:00Z`) + DAY_MS,
      after: after ? { createdAt: after[0], id: after[1] } : undefined,
      limit: q.limit,
    });
    return keysetPage(
      rows,
      q.limit,
      (r: ClickRow) => [r.created_at, r.id],
      (r: ClickRow) => ({ ref_code: r.ref_code, clicked_at: toIso(r.created_at), referer: r.referer, user_agent: r.user_agent }),
      LIST,
    );
  }

  /** PostgreSQL: makes the partitions of today and the next PARTITION_DAYS_AHEAD days; answers how many were new. */
  async prepareDays(): Promise<number> {
    const today = dayStartOf(this.clock.now());
    return this.prepareFor(Array.from({ length: PARTITION_DAYS_AHEAD + 1 }, (_, i) => today + i * DAY_MS));
  }

  /** PostgreSQL: makes the partitions of the days holding `times` (a click for a day nobody prepared); answers how many were new. */
  async prepareFor(times: readonly number[]): Promise<number> {
    return this.dialect === 'postgres' ? createClickDays(this.db, times) : 0;
  }

  /**
   * Removes the clicks of every UTC day older than click_retention_days days before today's (a click is kept
   * at least that many whole days), and on PostgreSQL makes the coming days' partitions. Safe to run on
   * several instances at once: a partition another run dropped meanwhile is skipped, and deleting rows already deleted does nothing.
   */
  async run(): Promise<ClickRetentionResult> {
    const days = (await this.settings.get()).click_retention_days;
    const cutoff = dayStartOf(this.clock.now()) - days * DAY_MS;
    let removedClicks = 0;
    let removedDays = 0;
    if (this.dialect === 'postgres') {
      await this.prepareDays();
      for (const partition of await dayPartitions(this.db, 'clicks')) {
        if (partition.dayStart + DAY_MS > cutoff) break;
        const n = await inTransaction(this.db, (tx) => dropDayPartition(tx, 'clicks', partition, DROP_LOCK_TIMEOUT_MS));
        if (n === undefined) continue; // another run dropped it meanwhile
        removedClicks += n;
        removedDays++;
      }
    } else {
      for (;;) {
        const n = await deleteClicksBefore(this.db, cutoff, SQLITE_DELETE_BATCH);
        removedClicks += n;
        if (n < SQLITE_DELETE_BATCH) break;
        // the event loop (and the writers waiting on it) get their turn between batches
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    const result = { click_retention_days: days, kept_from: toIso(cutoff), removed_clicks: removedClicks, removed_days: removedDays };
    if (removedClicks > 0) this.logger.info(result, 'click retention: old raw clicks removed');
    return result;
  }
}
