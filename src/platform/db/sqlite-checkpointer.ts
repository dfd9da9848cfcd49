import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';

/**
 * Moves SQLite's WAL checkpoints off the event loop (docs/architecture.md#outsider-bytes-never-run-on-the-event-loop: storing one message blocks it for at
 * most 100 ms). With its defaults SQLite checkpoints inside the COMMIT that takes the WAL past 1000 pages,
 * on the connection that commits: for an 8 MB message that COMMIT took 40 ms instead of 10 (copying the
 * WAL into the database file and syncing it). Here a thread of its own, with its own connection to the
 * file, runs a PASSIVE checkpoint (it never waits for readers or the writer) whenever the WAL changed,
 * and the service's connection checkpoints only past `FALLBACK_PAGES`, should that thread ever fall behind
 * or be gone. Test: test/integration/sqlite-checkpointer.test.ts.
 */

/** The service's own connection checkpoints only when the WAL holds this many pages (64 MB of 4 KB pages). */
const FALLBACK_PAGES = 16_384;
/** SQLite's default, restored on the service's connection if the checkpointing thread ends. */
const DEFAULT_PAGES = 1000;
const INTERVAL_MS = 250;
/** How long stop() lets the thread end by itself before terminating it. */
const STOP_MS = 5000;

/** What `PRAGMA wal_checkpoint` answers: pages in the WAL, and how many of them are in the database file now. */
export interface CheckpointResult {
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
}

// CommonJS, evaluated as the thread's script: it only opens the file and checkpoints.
const THREAD = `
const { parentPort, workerData } = require('node:worker_threads');
const { statSync } = require('node:fs');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 1000');
const checkpoint = () => db.pragma('wal_checkpoint(PASSIVE)')[0];
let seen = '';
const walChanged = () => {
  try {
    const s = statSync(workerData.path + '-wal');
    const now = s.size + ':' + s.mtimeMs;
    if (now === seen) return false;
    seen = now;
    return true;
  } catch {
    return false;
  }
};
const timer = setInterval(() => {
  if (walChanged()) checkpoint();
}, workerData.intervalMs);
parentPort.on('message', (id) => {
  if (id !== 'stop') return parentPort.postMessage({ id, result: checkpoint() });
  clearInterval(timer);
  db.close();
  parentPort.close(); // nothing left to run: the thread ends
});
`;

export class SqliteCheckpointer {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, (result: CheckpointResult) => void>();
  private nextId = 1;
  private stopped = false;
  private exited = false;

  constructor(path: string, connection: SqliteDatabase.Database) {
    connection.pragma(`wal_autocheckpoint = ${FALLBACK_PAGES}`);
    this.worker = new Worker(THREAD, {
      eval: true,
      workerData: { path, driver: createRequire(import.meta.url).resolve('better-sqlite3'), intervalMs: INTERVAL_MS },
    });
    this.worker.unref();
    this.worker.on('message', ({ id, result }: { id: number; result: CheckpointResult }) => {
      this.waiting.get(id)?.(result);
      this.waiting.delete(id);
    });
    // Gone (an error in the thread): the service's connection checkpoints as SQLite does by default.
    this.worker.on('error', () => {});
    this.worker.on('exit', () => {
      this.exited = true;
      if (!this.stopped && connection.open) connection.pragma(`wal_autocheckpoint = ${DEFAULT_PAGES}`);
      for (const resolve of this.waiting.values()) resolve({ busy: 1, log: -1, checkpointed: -1 });
      this.waiting.clear();
    });
  }

  /** Checkpoints now, on the thread (tests, and anyone who wants the WAL emptied before a copy of the file). */
  checkpoint(): Promise<CheckpointResult> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.worker.postMessage(id);
    });
  }

  /**
   * Asks the thread to close its connection and end, and waits for it to. Not worker.terminate(): ending
   * a thread while it still loads better-sqlite3 aborts the whole process (napi_register_module_v1, seen
   * on the admin CLI, which opens and closes the database within a few ms: sqlite-checkpointer.test.ts);
   * the thread reads the request only once its script has run. One that has not ended after STOP_MS is
   * terminated (it would be stuck in a checkpoint, long past loading). Answers how it ended ('gone': before).
   */
  async stop(): Promise<'ended' | 'terminated' | 'gone'> {
    this.stopped = true;
    if (this.exited) return 'gone';
    let terminated = false;
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.postMessage('stop');
    const late = setTimeout(() => {
      terminated = true;
      void this.worker.terminate();
    }, STOP_MS);
    await exited;
    clearTimeout(late);
    return terminated ? 'terminated' : 'ended';
  }
}
