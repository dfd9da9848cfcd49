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
        // No extra promise when the file is free (the usual case: one handle): every query comes this way.
        override acquireConnection(): Promise<DatabaseConnection> {
          if (turns.tryTake()) return super.acquireConnection();
          return turns.take().then(() => super.acquireConnection());
        }
        override releaseConnection(): Promise<void> {
          // Kysely's driver frees its connection before its promise settles: the next turn may begin at once.
          const released = super.releaseConnection();
          turns.give();
          return released;
        }
      })(config);
    }
  })(config);
}

/** Whose turn it is on one file: `tryTake` takes a free turn at once, `take` waits for one, `give` ends it. */
interface Turns {
  tryTake(): boolean;
  take(): Promise<void>;
  give(): void;
}

const byFile = new Map<string, Turns>();

function turnsOf(file: string): Turns {
  let turns = byFile.get(file);
  if (!turns) {
    const waiting: (() => void)[] = [];
    let busy = false;
    const tryTake = () => {
      if (busy) return false;
      busy = true;
      return true;
    };
    turns = {
      tryTake,
      take: () =>
        new Promise<void>((resolve) => {
          if (tryTake()) resolve();
          else waiting.push(resolve);
        }),
      give: () => {
        const next = waiting.shift();
        if (next) next();
        else busy = false;
      },
    };
    byFile.set(file, turns);
  }
  return turns;
}
