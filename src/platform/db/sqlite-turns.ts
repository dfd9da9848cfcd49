import { realpathSync } from 'node:fs';
import { type DatabaseConnection, type Driver, SqliteDialect, type SqliteDialectConfig, SqliteDriver } from 'kysely';

/**
 * better-sqlite3 is synchronous: when two handles on one SQLite file live in one process (two instances
 * in one test process, a tool beside the service) and one holds a write transaction across an `await`,
 * the other's write waits in SQLite's busy handler, on the thread the first needs to finish: the whole
 * process stalls for busy_timeout (5 s), then the write fails as busy. Handles on one file in one process
 * take turns instead: a connection is lent to one of them at a time (Kysely lends it for a query, or for
 * a whole transaction). Other processes still meet at SQLite's file lock, where the busy handler works.
 */
export function sqliteDialectTakingTurns(path: string, config: SqliteDialectConfig): SqliteDialect {
  if (path === ':memory:') return new SqliteDialect(config);
  const turns = turnsOf(realpathSync(path));
  return new (class extends SqliteDialect {
    override createDriver(): Driver {
      return new (class extends SqliteDriver {
        override async acquireConnection(): Promise<DatabaseConnection> {
          await turns.take();
          try {
            return await super.acquireConnection();
          } catch (err) {
            turns.give();
            throw err;
          }
        }
        override async releaseConnection(): Promise<void> {
          await super.releaseConnection();
          turns.give();
        }
      })(config);
    }
  })(config);
}

/** A queue of waiters for one file: `take` resolves when it is this caller's turn, `give` ends the turn. */
interface Turns {
  take(): Promise<void>;
  give(): void;
}

const byFile = new Map<string, Turns & { readonly waiting: (() => void)[]; busy: boolean }>();

function turnsOf(file: string): Turns {
  let turns = byFile.get(file);
  if (!turns) {
    const waiting: (() => void)[] = [];
    const t = {
      waiting,
      busy: false,
      take: () => {
        if (!t.busy) {
          t.busy = true;
          return Promise.resolve();
        }
        return new Promise<void>((resolve) => waiting.push(resolve));
      },
      give: () => {
        const next = waiting.shift();
        if (next) next();
        else t.busy = false;
      },
    };
    turns = t;
    byFile.set(file, t);
  }
  return turns;
}
