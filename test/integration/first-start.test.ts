import pg from 'pg';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, parseDatabaseUrl } from '../../src/config.js';
import { openDatabase } from '../../src/platform/db/database.js';
import { createService } from '../../src/server.js';
import { describeEachDatabase, freshDatabase, POSTGRES_URL, processDatabaseUrl, type TestDatabase } from '../helpers/databases.js';
import { bannerValue, runSvc, type SvcProcess, started, takePort } from '../helpers/process.js';

/** What the first start leaves in the database: admin users and every setting, as stored. */
async function stored(database: TestDatabase): Promise<{ admins: string[]; settings: Record<string, string>; rows: string }> {
  const handle = openDatabase(parseDatabaseUrl(database.url), { pgSchema: database.pgSchema, poolMax: 1 });
  try {
    const admins = await handle.db.selectFrom('admin_users').selectAll().execute();
    const settings = await handle.db.selectFrom('settings').selectAll().execute();
    return {
      admins: admins.map((a) => a.username),
      settings: Object.fromEntries(settings.map((s) => [s.key, s.value])),
      rows: JSON.stringify([admins, settings]),
    };
  } finally {
    await handle.destroy();
  }
}

async function login(base: string, password: string): Promise<number> {
  const res = await fetch(`${base}/admin/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'admin', password }) });
  return res.status;
}

/** An /api call with the key: 200 when the key is the service's. */
async function apiStatus(base: string, key: string): Promise<number> {
  return (await fetch(`${base}/api/affiliates`, { headers: { 'x-api-key': key } })).status;
}

describeEachDatabase('the first start that serves prints the secrets (CONTRACT §21, dist/main.js)', (dialect) => {
  let database: TestDatabase;
  let url: string;
  const children: SvcProcess[] = [];
  const run = (env: Record<string, string>) => {
    const p = runSvc({ DATABASE_URL: url, ...env });
    children.push(p);
    return p;
  };
  beforeEach(async () => {
    database = await freshDatabase(dialect);
    url = processDatabaseUrl(database);
  });
  afterEach(async () => {
    await Promise.all(children.splice(0).map((c) => c.stop()));
    await database.drop();
  });

  it('a start on a busy port creates nothing and says how to choose another port; the next start prints the secrets, and they work', async () => {
    const taken = await takePort();
    try {
      const failed = run({ PORT: String(taken.port) });
      expect(await failed.exited).toBe(1);
      expect(failed.stderr()).toBe(
        `svc: cannot listen for HTTP on 127.0.0.1:${taken.port}: the address is already in use (EADDRINUSE): another process listens on that port; to use another port: PORT=${taken.port + 1} npm start\n`,
      );
      expect(failed.stdout()).not.toMatch(/admin password|API key|svc is running/);
    } finally {
      await new Promise((resolve) => taken.server.close(resolve));
    }
    // the failed start migrated the database, and left no secret that nobody saw
    const after = await stored(database);
    expect(after.admins).toEqual([]);
    expect(after.settings).not.toHaveProperty('api_key');

    const serving = run({ PORT: '0' });
    const base = await started(serving);
    const password = bannerValue(serving, 'admin password') as string;
    const key = bannerValue(serving, 'API key') as string;
    expect(password).toMatch(/^\S{16,}$/);
    expect(key).toMatch(/^svc_\S{16,}$/);
    expect(await login(base, password)).toBe(200);
    expect(await apiStatus(base, key)).toBe(200);
    expect(await apiStatus(base, `${key}x`)).toBe(401);
    // the password is stored only as its hash
    expect((await stored(database)).rows).not.toContain(password);
    await serving.stop();

    // printed once: the start after it says nothing of them
    const again = run({ PORT: '0' });
    await started(again);
    expect(bannerValue(again, 'admin password')).toBeUndefined();
    expect(bannerValue(again, 'API key')).toBeUndefined();
    expect(again.stdout()).not.toContain(password);
    // but says where they are, for whoever lost the first start's output
    expect(again.stdout()).toContain('The admin password and API key were printed by the first start. The API key is under Settings in the admin area; a lost password is reset with: npm run admin -- reset-password');
  });

  it('several instances: after a failed start, two that start together print each secret once, from the same instance, and both take them', async () => {
    const taken = await takePort();
    try {
      expect(await run({ PORT: String(taken.port) }).exited).toBe(1);
    } finally {
      await new Promise((resolve) => taken.server.close(resolve));
    }
    const pair = [run({ PORT: '0' }), run({ PORT: '0' })];
    const bases = await Promise.all(pair.map(started));
    const passwords = pair.map((p) => bannerValue(p, 'admin password'));
    const keys = pair.map((p) => bannerValue(p, 'API key'));
    expect(passwords.filter(Boolean)).toHaveLength(1);
    expect(keys.filter(Boolean)).toHaveLength(1);
    // one transaction: the instance that created the admin user also created the key, so one banner has both
    expect(passwords.findIndex(Boolean)).toBe(keys.findIndex(Boolean));
    const password = passwords.find(Boolean) as string;
    const key = keys.find(Boolean) as string;
    for (const base of bases) {
      expect(await login(base, password)).toBe(200);
      expect(await apiStatus(base, key)).toBe(200);
    }
  });
});

// PostgreSQL only: the test holds a lock the bootstrap waits for, and SQLite's driver would wait for it
// synchronously, stopping this whole process (the service runs in it).
describe.skipIf(!POSTGRES_URL)(`requests that arrive while the first start creates the secrets [postgres${POSTGRES_URL ? '' : ': SKIPPED, no SVC_TEST_POSTGRES_URL'}]`, () => {
  it('wait for it: a key given in SVC_API_KEY is never refused by a service that listens', async () => {
    const database = await freshDatabase('postgres');
    const key = 'given_key_0123456789abcdef';
    const config = loadConfig({ DATABASE_URL: database.url, PORT: '0', SMTP_PORT: 'off', SVC_API_KEY: key, SVC_MAIL_WORKERS: '1' });
    const service = await createService(config, { logger: pino({ level: 'silent' }), databaseOptions: { pgSchema: database.pgSchema, poolMax: 4 } });
    const locker = new pg.Client({ connectionString: POSTGRES_URL, options: `-c search_path=${database.pgSchema}` });
    await locker.connect();
    try {
      // the bootstrap's first insert waits for this lock; the API key's setting stays readable (and absent)
      await locker.query('begin');
      await locker.query('lock table admin_users in access exclusive mode');
      const arrived = new Promise<void>((resolve) => service.app.server.once('request', () => resolve()));
      const starting = service.start();
      await new Promise<void>((resolve) => (service.app.server.listening ? resolve() : service.app.server.once('listening', () => resolve())));
      const { port } = service.app.server.address() as { port: number };
      const answer = fetch(`http://127.0.0.1:${port}/api/affiliates`, { headers: { 'x-api-key': key } });
      // Fastify's own 'request' listener ran first, up to its onRequest hooks: the request is inside the
      // service, and without the hold it would read the (absent) key now and be answered 401
      await arrived;
      await locker.query('commit');
      await starting;
      expect((await answer).status).toBe(200);
      expect((await service.bootstrap()).apiKeyCreated).toBe(true);
    } finally {
      await locker.end();
      await service.destroy();
      await database.drop();
    }
  });
});
