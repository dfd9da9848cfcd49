import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { Kysely, PostgresAdapter, PostgresDialect, type PostgresPool, type PostgresPoolClient, type SqliteDialectConfig, type Transaction } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';
import { SqliteCheckpointer } from './sqlite-checkpointer.js';
import { sqliteDialectTakingTurns } from './sqlite-turns.js';

/** Which database, from DATABASE_URL (parsed by the config loader). */
export type DatabaseConfig =
  | { readonly kind: 'sqlite'; readonly path: string; readonly url: string }
  | {
      readonly kind: 'postgres';
      readonly url: string;
      /** Named prepared statements (default); false: plain unnamed statements (SVC_PG_PREPARE=off). */
      readonly prepare?: boolean;
    };

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
/** Repositories take this first: either the database or an open transaction; the caller decides. */
export type Executor = Db | Tx;
export type Dialect = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  readonly db: Db;
  readonly dialect: Dialect;
  /** PostgreSQL schema in use (search_path), 'public' unless a test chose another. */
  readonly schema?: string;
  /** The SQLite connection itself, for the few hot paths that run prepared statements on it (SQLite only). */
  readonly sqlite?: SqliteDatabase.Database;
  /** Checkpoints the WAL of a SQLite file off the event loop (SQLite only). */
  readonly checkpointer?: SqliteCheckpointer;
  destroy(): Promise<void>;
}

// int8 (counts, cents, epoch ms) and numeric (sums) come back as JS numbers, like SQLite's integers.
// Every value we store stays far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

export interface OpenOptions {
  /** PostgreSQL schema to use as search_path (tests give every run its own). */
  readonly pgSchema?: string;
  readonly poolMax?: number;
}

/**
 * Which database an executor (the database or a transaction) talks to, for the few repositories whose
 * best statement differs by dialect and that are handed only an executor.
 */
export function dialectOf<DB>(db: Kysely<DB>): Dialect {
  // getExecutor() is marked internal in Kysely's types (0.28); the adapter is how Kysely itself tells them apart
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

export function openDatabase(cfg: DatabaseConfig, opts: OpenOptions = {}): DatabaseHandle {
  if (cfg.kind === 'sqlite') {
    // The file holds the API key and the webhook secret: a folder and a file svc creates are its user's
    // alone (SQLite gives the -wal and -shm files the database file's permissions). Existing ones are left as they are.
    const inFile = cfg.path !== ':memory:';
    const created = inFile && !existsSync(cfg.path);
    if (inFile) mkdirSync(dirname(cfg.path), { recursive: true, mode: 0o700 });
    const sqlite = new SqliteDatabase(cfg.path);
    if (created) chmodSync(cfg.path, 0o600);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    const db = new Kysely<Database>({ dialect: sqliteDialectTakingTurns(cfg.path, { database: withStatementCache(sqlite) }) });
    const checkpointer = inFile ? new SqliteCheckpointer(cfg.path, sqlite) : undefined;
    const destroy = async () => {
      await checkpointer?.stop();
      await db.destroy();
    };
    return { db, dialect: 'sqlite', sqlite, checkpointer, destroy };
  }
  // A schema can also come with the URL (`?options=-c%20search_path%3Dname`), e.g. for several processes
  // sharing a test schema; migrations must then keep their bookkeeping in that schema too.
  const schema = opts.pgSchema ?? searchPathOf(cfg.url) ?? 'public';
  const pool = new pg.Pool({
    connectionString: cfg.url,
    max: opts.poolMax ?? 10,
    connectionTimeoutMillis: 5000,
    ...(opts.pgSchema ? { options: `-c search_path=${opts.pgSchema}` } : {}),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: withNamedStatements(pool, cfg.prepare !== false) }) });
  return { db, dialect: 'postgres', schema, destroy: () => db.destroy() };
}

const STATEMENT_CACHE_SIZE = 500;

/** BEGIN, prepared once per connection like any other statement (pg-pool.test.ts checks it is). */
const BEGIN = { name: 'svc_begin', text: 'begin' } as const;

/** How many distinct SQL texts PostgreSQL keeps prepared per connection (the first ones seen; the rest run unnamed). */
const PG_NAMED_STATEMENTS = 200;
/** Statements larger than this (multi-row inserts of varying size, long IN lists) are not kept prepared. */
const PG_NAMED_MAX_PARAMS = 64;
const PG_NAMED_MAX_TEXT = 4000;

/**
 * A statement whose result columns come from `*` (selectAll, returningAll) is not kept prepared: once a
 * migration adds a column (a newer instance starting while this one serves), PostgreSQL refuses to run
 * the prepared statement again ("cached plan must not change result type"), on every connection that
 * prepared it. count(*) has one fixed column and is fine.
 */
function resultShapeIsFixed(text: string): boolean {
  return !text.replace(/count\(\*\)/gi, '').includes('*');
}

/**
 * PostgreSQL parses and plans every unnamed statement afresh; for our small statements that is most of
 * the server's work. This names each distinct SQL text of the usual size (up to PG_NAMED_STATEMENTS per
 * process), so every connection parses it once and then only binds and executes it (node-postgres
 * prepares a named statement on its first use on a connection; a protocol-level prepared statement
 * outlives a rolled-back transaction). Kysely puts every value in a parameter, so one text serves every
 * call of a query shape. Behind a pooler, use one that supports protocol-level prepared statements
 * (PgBouncer 1.21+ with max_prepared_statements) or session pooling; `prepare` false (SVC_PG_PREPARE=off)
 * sends every statement unnamed. Uses only pg's documented `name` option of a query config.
 */
function withNamedStatements(pool: pg.Pool, prepare: boolean): PostgresPool {
  const names = new Map<string, string>();
  const nameOf = (text: string, params: number): string | undefined => {
    let name = names.get(text);
    if (
      name === undefined &&
      names.size < PG_NAMED_STATEMENTS &&
      params <= PG_NAMED_MAX_PARAMS &&
      text.length <= PG_NAMED_MAX_TEXT &&
      resultShapeIsFixed(text)
    ) {
      name = `svc_${names.size}`;
      names.set(text, name);
    }
    return name;
  };
  return {
    async connect() {
      const client = await pool.connect();
      // The pool listens for errors of idle clients only: a connection lost while checked out (killed
      // server side between two statements) must fail its next query, not crash the process.
      const onError = () => {};
      client.on('error', onError);
      return {
        query: ((text: unknown, values?: readonly unknown[]) => {
          if (typeof text !== 'string' || !prepare) return client.query(text as never, values as unknown[]);
          if (text === 'begin') return client.query(BEGIN);
          const name = nameOf(text, values?.length ?? 0);
          return name ? client.query({ name, text, values: values as unknown[] }) : client.query(text, values as unknown[]);
        }) as unknown as PostgresPoolClient['query'],
        release: () => {
          client.off('error', onError);
          client.release();
        },
      };
    },
    end: () => pool.end(),
  };
}

/**
 * Kysely's SQLite driver prepares every query afresh; preparing costs more than running most of ours.
 * This keeps the most recently used prepared statements by SQL text (the driver runs one query at a time
 * on the connection, so a statement is never used twice at once).
 */
function withStatementCache(sqlite: SqliteDatabase.Database): SqliteDialectConfig['database'] {
  const cache = new Map<string, SqliteDatabase.Statement>();
  return {
    close: () => {
      cache.clear();
      sqlite.close();
    },
    prepare: (sqlText: string) => {
      let stmt = cache.get(sqlText);
      if (stmt) {
        // re-inserted so that the Map's order is least recently used first
        cache.delete(sqlText);
      } else {
        stmt = sqlite.prepare(sqlText);
        if (cache.size >= STATEMENT_CACHE_SIZE) {
          const oldest = cache.keys().next();
          if (!oldest.done) cache.delete(oldest.value);
        }
      }
      cache.set(sqlText, stmt);
      return stmt;
    },
  };
}

function searchPathOf(url: string): string | undefined {
  try {
    const options = new URL(url).searchParams.get('options') ?? '';
    return /(?:^|\s)-c\s*search_path=([A-Za-z0-9_]+)/.exec(options)?.[1];
  } catch {
    return undefined;
  }
}

/** Runs fn in a transaction. On PostgreSQL, retries serialization failures and deadlocks a few times. */
export function inTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return retryingConflicts(() => db.transaction().execute(fn));
}

/**
 * Runs `attempt` again (a few times, after a short random pause) when it failed only because it met a
 * concurrent writer: a serialization failure or deadlock on PostgreSQL, a busy database on SQLite. The
 * failed attempt must have written nothing (a rolled-back transaction, or one statement).
 */
export async function retryingConflicts<T>(attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      const code = (err as { code?: string }).code;
      // SQLITE_BUSY*: another process wrote since this transaction's first read (or held the lock past
      // busy_timeout); nothing was written, so running it again is safe.
      if (n < 8 && (code === '40001' || code === '40P01' || code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_SNAPSHOT')) {
        // a short random pause so that two retrying writers do not collide again in lockstep
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * n));
        continue;
      }
      throw err;
    }
  }
}

/** True when err is a unique-constraint violation on either dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string };
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
