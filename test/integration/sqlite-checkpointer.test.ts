import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.js';

/** docs/architecture.md#outsider-bytes-never-run-on-the-event-loop: WAL checkpoints of a SQLite file run on a thread of their own, never inside a COMMIT on the event loop. */
describe('SQLite checkpoints off the event loop', () => {
  const open: { handle: DatabaseHandle; dir: string }[] = [];
  afterEach(async () => {
    for (const { handle, dir } of open.splice(0)) {
      await handle.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  function openFile(): { handle: DatabaseHandle; path: string } {
    const dir = mkdtempSync(join(tmpdir(), 'svc-checkpoint-'));
    const path = join(dir, 'svc.db');
    const handle = openDatabase({ kind: 'sqlite', path, url: `sqlite:${path}` });
    open.push({ handle, dir });
    return { handle, path };
  }

  /** 8 MB in one transaction, as one large message is stored. */
  async function write8MB(handle: DatabaseHandle): Promise<void> {
    const conn = handle.sqlite!;
    conn.exec('CREATE TABLE IF NOT EXISTS big (id INTEGER PRIMARY KEY, bytes BLOB)');
    const insert = conn.prepare('INSERT INTO big (bytes) VALUES (?)');
    conn.transaction(() => {
      for (let i = 0; i < 8; i++) insert.run(Buffer.alloc(1024 * 1024, i + 1));
    })();
  }

  it('a COMMIT past 1000 pages leaves the WAL to the thread, which copies it into the file when asked', async () => {
    const { handle, path } = openFile();
    expect(handle.sqlite!.pragma('wal_autocheckpoint', { simple: true })).toBe(16_384);
    await write8MB(handle);
    // SQLite's default would have checkpointed inside that COMMIT: the file would hold the 8 MB already.
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(8 * 1024 * 1024);
    expect(statSync(path).size).toBeLessThan(1024 * 1024);
    const result = await handle.checkpointer!.checkpoint();
    expect(result.busy).toBe(0);
    expect(result.log).toBeGreaterThan(2048);
    expect(result.checkpointed).toBe(result.log);
    expect(statSync(path).size).toBeGreaterThan(8 * 1024 * 1024);
  });

  it('checkpoints by itself soon after the WAL changed, and every row stays readable', async () => {
    const { handle, path } = openFile();
    await write8MB(handle);
    await vi.waitFor(() => expect(statSync(path).size).toBeGreaterThan(8 * 1024 * 1024), { timeout: 5000, interval: 50 });
    const { rows } = await sql<{ n: number; total: number }>`SELECT count(*) AS n, sum(length(bytes)) AS total FROM big`.execute(handle.db);
    expect(rows[0]).toEqual({ n: 8, total: 8 * 1024 * 1024 });
  });

  // Its thread loads better-sqlite3 when it starts: worker.terminate() during that load aborted the process
  // (napi_register_module_v1), as the admin CLI did when it opened and closed a database within a few ms.
  it('stops by asking its thread to end, even right after it started: the thread is never terminated', async () => {
    for (let i = 0; i < 5; i++) {
      const dir = mkdtempSync(join(tmpdir(), 'svc-checkpoint-'));
      const path = join(dir, 'svc.db');
      const handle = openDatabase({ kind: 'sqlite', path, url: `sqlite:${path}` });
      expect(await handle.checkpointer!.stop()).toBe('ended');
      expect(await handle.checkpointer!.stop()).toBe('gone');
      await handle.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an in-memory database has no checkpointer', async () => {
    const handle = openDatabase({ kind: 'sqlite', path: ':memory:', url: 'sqlite::memory:' });
    expect(handle.checkpointer).toBeUndefined();
    await handle.destroy();
  });
});

describe('a SQLite database svc creates', () => {
  it('is readable by its user alone (it holds the API key and the webhook secret): folder 0700, files 0600', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-perms-'));
    const path = join(dir, 'data', 'svc.db');
    const handle = openDatabase({ kind: 'sqlite', path, url: `sqlite:${path}` });
    try {
      handle.sqlite!.exec('CREATE TABLE t (x INTEGER)');
      expect(statSync(join(dir, 'data')).mode & 0o777).toBe(0o700);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(`${path}-wal`).mode & 0o777).toBe(0o600);
    } finally {
      await handle.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
