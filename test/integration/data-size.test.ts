import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { keyedDocument, mailboxSearchKey, searchText } from '../../src/mail/messages/search-text.js';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import type { Database } from '../../src/platform/db/schema.js';
import { newId } from '../../src/platform/ids.js';
import { describeEachDatabase, freshDatabase, processDatabaseUrl, type TestDatabase } from '../helpers/databases.js';
import { describeWindows, LoopWatch } from '../helpers/loop-watch.js';
import { freePort, runSvc, type SvcProcess, started } from '../helpers/process.js';
import { sendSmtp } from '../helpers/raw-smtp.js';

/**
 * docs/architecture.md#work-that-grows-with-stored-data: a real svc process
 * (dist/main.js, SMTP on) over SEEDED messages stored straight through the database before it starts: FULL
 * mailboxes at the default quota of 500 (100 of them, 50,000 messages) and OTHER mailboxes with a few each.
 * Every seeded message says "invoice", so a search that matched the whole index before filtering by mailbox
 * paid for all of them. The service's own event-loop delay (prom-client, from /metrics) must stay under 100 ms:
 * (1) one SMTP message to the 100 full mailboxes: each copy stored once, searchable, each mailbox trimmed to 500;
 * (2) 8 searches of one mailbox at once: only that mailbox's messages, newest first.
 * The figures are printed.
 */
/**
 * The bound. Measured on this 2-core machine, 2026-12-01: at load ~3, SMTP to 100 mailboxes 30 ms (SQLite) and
 * 19 ms (PostgreSQL) of event-loop delay, 8 searches 37 and 15 ms; at load 11-18 (other engineers' suites) the
 * SMTP case read 129-360 ms on SQLite and 65-148 ms on PostgreSQL, searches 51-187 ms: what the machine takes
 * from the process then, and SQLite's full-text index writing out its buffered words in one step
 * (docs/architecture.md#work-that-grows-with-stored-data).
 */
const GUARD_MS = 100;
const FULL = 100;
const QUOTA = 500;
const OTHER = 400;
const PER_OTHER = 25;
const KEY = 'datasize_api_key_0123456789abcdef';
const METRICS_TOKEN = 'datasize-metrics-token-0123456789';
const DOMAIN = 'svc.test';
const REQUEST_TIMEOUT_MS = 60_000;
const fullAddress = (i: number) => `full-${String(i).padStart(3, '0')}@${DOMAIN}`;


function openHandle(database: TestDatabase): DatabaseHandle {
  return database.dialect === 'sqlite'
    ? openDatabase({ kind: 'sqlite', path: database.url.slice('sqlite:'.length), url: database.url })
    : openDatabase({ kind: 'postgres', url: database.url }, { pgSchema: database.pgSchema });
}

/** A page of GET /api/mailboxes/{address}/messages. */
interface Listing {
  readonly items: readonly { readonly id: string }[];
  readonly next_cursor: string | null;
}

interface Seeded {
  /** Each full mailbox's message ids, oldest first. */
  readonly ids: Map<string, string[]>;
  readonly total: number;
}

/** The messages, in statements of 500 rows, each with its content and search row as the intake writes them. */
async function seed(handle: DatabaseHandle): Promise<Seeded> {
  const db = handle.db as Kysely<Database>;
  const now = Date.now();
  const mailboxes = [
    ...Array.from({ length: FULL }, (_, i) => ({ address: fullAddress(i), count: QUOTA })),
    ...Array.from({ length: OTHER }, (_, i) => ({ address: `other-${i}@${DOMAIN}`, count: PER_OTHER })),
  ];
  await db
    .insertInto('mailboxes')
    .values(mailboxes.map((m) => ({ address: m.address, local_part: m.address.split('@')[0]!, domain: DOMAIN, ref_code: null, token_hash: '', created_at: now - 3_600_000 })))
    .execute();
  const ids = new Map<string, string[]>();
  // Interleaved across mailboxes, as mail arrives: a mailbox's copies are spread over the whole index.
  const order: { address: string; n: number }[] = [];
  const most = Math.max(QUOTA, PER_OTHER);
  for (let n = 0; n < most; n++) for (const m of mailboxes) if (n < m.count) order.push({ address: m.address, n });
  let total = 0;
  for (let start = 0; start < order.length; start += 500) {
    const slice = order.slice(start, start + 500);
    const at = now - 1_800_000 + start;
    const rows = slice.map(({ address, n }, k) => {
      const id = newId('msg', at + k);
      if (address.startsWith('full-')) {
        const list = ids.get(address) ?? [];
        list.push(id);
        ids.set(address, list);
      }
      const subject = `Invoice ${n} for ${address}`;
      const text = `Your invoice number ${n} is attached. Payment is due within thirty days; thank you for your order.`;
      return { id, address, subject, text, at: at + k };
    });
    await db.transaction().execute(async (tx) => {
      await tx
        .insertInto('message_contents')
        .values(rows.map((r) => ({ id: r.id, refs: 1, text: r.text, html: null, html_state: 'none' as const, headers: null, msgid: null, source_html: null, links: '[]', verification_link: null })))
        .execute();
      await tx
        .insertInto('messages')
        .values(
          rows.map((r) => ({
            id: r.id,
            mailbox_address: r.address,
            from_address: 'billing@shop.example',
            from_name: 'Shop',
            to_header: r.address,
            subject: r.subject,
            size: r.text.length,
            attachments_count: 0,
            received_at: r.at,
            seen: 0,
            code: null,
          })),
        )
        .execute();
      const seqs = new Map(
        (await tx.selectFrom('messages').select(['id', 'seq']).where('id', 'in', rows.map((r) => r.id)).execute()).map((r) => [r.id, Number(r.seq)]),
      );
      const documents = rows.map((r) => ({ seq: seqs.get(r.id)!, address: r.address, document: `${searchText(r.subject)} ${searchText(r.text)} ${searchText('billing@shop.example Shop')}` }));
      if (handle.dialect === 'sqlite') {
        await sql`insert into message_search (rowid, document) values ${sql.join(documents.map((d) => sql`(${d.seq}, ${keyedDocument(mailboxSearchKey(d.address), d.document)})`))}`.execute(tx);
      } else {
        await sql`insert into message_search (seq, document) values ${sql.join(documents.map((d) => sql`(${d.seq}, to_tsvector('simple', ${d.document}))`))}`.execute(tx);
      }
    });
    total += rows.length;
  }
  return { ids, total };
}

describeEachDatabase('data size: with 60,000 stored messages a real svc process keeps its event loop under 100 ms for one message to 100 mailboxes and for 8 searches at once (docs/architecture.md#work-that-grows-with-stored-data)', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let svc: SvcProcess | undefined;
  let base: string;
  let smtpPort: number;
  let watch: LoopWatch | undefined;
  let seeded: Seeded;
  const killOnExit = () => svc?.child.kill('SIGKILL');

  beforeAll(async () => {
    database = await freshDatabase(dialect);
    handle = openHandle(database);
    await migrateToLatest(handle);
    const seedStart = performance.now();
    seeded = await seed(handle);
    console.log(`[${dialect}] seeded ${seeded.total} messages in ${FULL + OTHER} mailboxes in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
    smtpPort = await freePort();
    svc = runSvc({
      DATABASE_URL: processDatabaseUrl(database),
      PORT: '0',
      SMTP_PORT: String(smtpPort),
      SMTP_HOST: '127.0.0.1',
      SVC_API_KEY: KEY,
      SVC_ADMIN_PASSWORD: 'datasize-admin-password',
      SVC_METRICS_TOKEN: METRICS_TOKEN,
      SVC_MAIL_DOMAINS: DOMAIN,
    });
    process.once('exit', killOnExit);
    base = await started(svc);
    watch = new LoopWatch(base, METRICS_TOKEN);
    await watch.loopLagMs();
  }, 300_000);

  afterAll(async () => {
    await watch?.stop();
    await svc?.stop();
    process.off('exit', killOnExit);
    await handle?.destroy();
    await database?.drop();
  });

  async function getJson(path: string): Promise<{ status: number; body: Listing }> {
    const res = await fetch(`${base}${path}`, { headers: { 'x-api-key': KEY }, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    return { status: res.status, body: (await res.json()) as Listing };
  }
  const messagesOf = (address: string, query: string) => `/api/mailboxes/${encodeURIComponent(address)}/messages?${query}`;

  it('one SMTP message to 100 full mailboxes: every copy stored once and searchable, each mailbox trimmed to its quota, the event loop under 100 ms', async () => {
    const recipients = Array.from({ length: FULL }, (_, i) => fullAddress(i));
    // About 32 KB of text: each copy's search row is as large as the intake indexes (SEARCH_TEXT_CHARS).
    const words = Array.from({ length: 4000 }, (_, i) => `word${i % 700}`).join(' ');
    const source = Buffer.from(
      `From: Sender <sender@elsewhere.example>\r\nTo: list@${DOMAIN}\r\nSubject: Quarterly zebraquartz report\r\n\r\nzebraquartz ${words}\r\n`,
    );
    const { result: reply, window } = await watch!.watch(`[${dialect}] SMTP to ${FULL} mailboxes`, () =>
      sendSmtp(smtpPort, { from: 'sender@elsewhere.example', to: recipients }, source),
    );
    console.log(describeWindows([window]));
    expect(reply.code, reply.text).toBe(250);
    expect(window.loopMs, describeWindows([window])).toBeLessThan(GUARD_MS);

    const db = handle.db;
    const copies = await db.selectFrom('messages').select(['id', 'mailbox_address']).where('subject', '=', 'Quarterly zebraquartz report').execute();
    expect(copies.map((c) => c.mailbox_address).sort()).toEqual([...recipients].sort());
    expect(new Set(copies.map((c) => c.id)).size).toBe(1);
    const id = copies[0]!.id;
    const counts = await db
      .selectFrom('messages')
      .select((eb) => ['mailbox_address', eb.fn.countAll<number>().as('n')])
      .where('mailbox_address', 'in', recipients)
      .groupBy('mailbox_address')
      .execute();
    expect(counts.map((c) => Number(c.n))).toEqual(recipients.map(() => QUOTA));
    for (const address of recipients) {
      const [oldest, secondOldest] = seeded.ids.get(address)!;
      const kept = await db.selectFrom('messages').select('id').where('mailbox_address', '=', address).where('id', 'in', [oldest!, secondOldest!]).execute();
      expect(kept.map((k) => k.id)).toEqual([secondOldest]);
      const found = await getJson(messagesOf(address, 'q=zebraquartz'));
      expect(found.status).toBe(200);
      expect(found.body.items.map((m) => m.id)).toEqual([id]);
    }
  }, 300_000);

  it('8 searches of one mailbox at once: only its messages, newest first, the event loop under 100 ms', async () => {
    const address = fullAddress(42);
    // After the first test the mailbox holds its 499 newest seeded messages and the SMTP one (no "invoice").
    const expected = [...seeded.ids.get(address)!].reverse().slice(0, 50);
    const queries = ['q=invoice&limit=50', 'q=inv&limit=50', 'q=invoice%20thirty&limit=50', 'q=payment%20due&limit=50'];
    const { result: answers, window } = await watch!.watch(`[${dialect}] 8 searches of one mailbox`, () =>
      Promise.all(Array.from({ length: 8 }, (_, i) => getJson(messagesOf(address, queries[i % queries.length]!)))),
    );
    console.log(describeWindows([window]));
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body.items.map((m) => m.id)).toEqual(expected);
      expect(answer.body.next_cursor).not.toBeNull();
    }
    expect(window.loopMs, describeWindows([window])).toBeLessThan(GUARD_MS);
    // A word of another mailbox only: nothing here.
    const other = await getJson(messagesOf(address, `q=${encodeURIComponent(fullAddress(7).split('@')[0]!)}`));
    expect(other.status).toBe(200);
    expect(other.body.items).toEqual([]);
  }, 120_000);
});
