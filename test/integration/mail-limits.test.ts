import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachmentStorage } from '../../src/mail/messages/mail-retention.repository.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { bearer, createTestMailbox, type TestMailbox } from '../helpers/mail-fixtures.js';
import { startTestService, TEST_API_KEY, type TestService } from '../helpers/service.js';

const b64 = (b: Buffer | string) => Buffer.from(b).toString('base64');

/** 200,000 nested <div>: sanitize-html's cost grows with depth squared (it froze reads ~20 s on main). */
const nestedHtml = (depth: number) => `${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}`;

/**
 * The slowest /healthz allowed while a big mail is taken in or read. The stalls this guards against were
 * 3.9 s (a 7 MB mail to 100 mailboxes) and 21 s (nested HTML); a quiet machine answers in tens of ms, and
 * a 2-core machine shared with other test runs (CI runs two Node versions) was seen at up to 1 s.
 */
const STALL_LIMIT_MS = 1_500;

/**
 * What a second client sees while `work` runs: /healthz over a real socket, one request after the other.
 * Answers the slowest /healthz and work's own result and duration.
 */
async function healthzDuring<T>(base: string, work: () => Promise<T>): Promise<{ worstMs: number; result: T; workMs: number; probes: number }> {
  let done = false;
  let worstMs = 0;
  let probes = 0;
  const prober = (async () => {
    while (!done) {
      const started = performance.now();
      const res = await fetch(`${base}/healthz`);
      await res.arrayBuffer();
      worstMs = Math.max(worstMs, performance.now() - started);
      probes++;
      await new Promise((r) => setImmediate(r));
    }
  })();
  // Let the prober's first request open its connection before the work starts.
  await new Promise((r) => setTimeout(r, 20));
  const started = performance.now();
  try {
    const result = await work();
    return { worstMs, result, workMs: performance.now() - started, probes };
  } finally {
    done = true;
    await prober;
  }
}

async function postInbound(base: string, body: unknown): Promise<{ status: number; json: { message?: { id: string }; error?: unknown } }> {
  const res = await fetch(`${base}/api/inbound`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': TEST_API_KEY },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as { message?: { id: string } } };
}

describeEachDatabase('mail limits (README.md#mail-limits)', (dialect) => {
  let t: TestService;
  let base: string;
  let alice: TestMailbox;
  beforeAll(async () => {
    t = await startTestService(dialect);
    base = await t.service.start();
    alice = await createTestMailbox(t, 'alice@svc.test');
  });
  afterAll(() => t.close());

  const read = (m: TestMailbox, id: string) => t.request('GET', `/mailboxes/${m.address}/messages/${id}`, undefined, bearer(m.token));
  const contents = async () => Number((await sql<{ n: number }>`select count(*) as n from message_contents`.execute(t.service.ctx.db)).rows[0]?.n);

  describe('HTML sanitised once, at its first read', () => {
    it('a 1 MB deeply nested HTML mail neither stalls /healthz while stored nor while read; it keeps its text, html_dropped', async () => {
      const html = nestedHtml(200_000);
      expect(html.length).toBeGreaterThan(2_000_000);
      const intake = await healthzDuring(base, () => postInbound(base, { to: alice.address, subject: 'deep', text: 'the text survives', html }));
      expect(intake.result.status).toBe(201);
      expect(intake.worstMs).toBeLessThan(STALL_LIMIT_MS);
      const id = intake.result.json.message!.id;
      const reading = await healthzDuring(base, async () => {
        const started = performance.now();
        const res = await fetch(`${base}/mailboxes/${alice.address}/messages/${id}`, { headers: bearer(alice.token) });
        return { status: res.status, body: (await res.json()) as { message: Record<string, unknown> }, ms: performance.now() - started };
      });
      expect(reading.result.status).toBe(200);
      expect(reading.worstMs).toBeLessThan(STALL_LIMIT_MS);
      // Reading never sanitises: generous for a busy 2-core machine, far below the seconds it took.
      expect(reading.result.ms).toBeLessThan(500);
      expect(reading.result.body.message).toMatchObject({ text: 'the text survives', html: null, html_dropped: true });
    });

    it('HTML below the depth cap but expensive is sanitised off the main thread: /healthz stays fast', async () => {
      // 900 levels, repeated: each block costs ~depth² in sanitize-html, all of it in a worker.
      const html = nestedHtml(900).repeat(80);
      const intake = await healthzDuring(base, () => postInbound(base, { to: alice.address, subject: 'deep-ish', text: 't', html }));
      expect(intake.result.status).toBe(201);
      expect(intake.worstMs).toBeLessThan(STALL_LIMIT_MS);
      const res = await read(alice, intake.result.json.message!.id);
      expect(res.statusCode).toBe(200);
      expect(typeof res.json().message.html_dropped).toBe('boolean');
    });

    it('ordinary HTML is stored as received, then sanitised by its first read and stored so: scripts, handlers and javascript: URLs gone, layout kept, html_dropped false', async () => {
      const html = '<p style="color: red" onclick="x()">Hi <b>there</b><script>alert(1)</script><a href="javascript:alert(1)">x</a></p>';
      const res = await t.api('POST', '/api/inbound', { to: alice.address, html });
      expect(res.statusCode).toBe(201);
      const before = await t.service.ctx.db.selectFrom('message_contents').select(['html', 'html_state']).where('id', '=', res.json().message.id).executeTakeFirstOrThrow();
      expect(before).toEqual({ html, html_state: 'raw' });
      const msg = (await read(alice, res.json().message.id)).json().message;
      expect(msg.html_dropped).toBe(false);
      expect(msg.html).toBe('<p style="color: red">Hi <b>there</b><a target="_blank" rel="noopener noreferrer nofollow">x</a></p>');
      const stored = await t.service.ctx.db.selectFrom('message_contents').select(['html', 'html_state']).where('id', '=', res.json().message.id).executeTakeFirstOrThrow();
      expect(stored).toEqual({ html: msg.html, html_state: 'clean' });
    });

    it('HTML as received is never served: the first read is sanitised whichever view it is (the HTML document, the message)', async () => {
      const html = '<p onclick="x()">Hi<script>alert(1)</script><img src="x" onerror="alert(2)"><a href="javascript:alert(3)">x</a></p>';
      const unsafe = /<script|onclick|onerror|javascript:/i;
      const first = (await t.api('POST', '/api/inbound', { to: alice.address, html })).json().message.id;
      const doc = await t.request('GET', `/mailboxes/${alice.address}/messages/${first}/html`, undefined, bearer(alice.token));
      expect(doc.statusCode).toBe(200);
      expect(doc.body).toContain('Hi');
      expect(doc.body).not.toMatch(unsafe);
      expect((await read(alice, first)).json().message.html).not.toMatch(unsafe);
      const second = (await t.api('POST', '/api/inbound', { to: alice.address, html })).json().message.id;
      const msg = (await read(alice, second)).json().message;
      expect(msg.html).toContain('Hi');
      expect(msg.html).not.toMatch(unsafe);
      const again = await t.request('GET', `/mailboxes/${alice.address}/messages/${second}/html`, undefined, bearer(alice.token));
      expect(again.body).not.toMatch(unsafe);
    });
  });

  describe('attachments stored once per message', () => {
    it('a ~7 MB mail to 100 mailboxes stores its bytes once and /healthz stays fast meanwhile', async () => {
      const boxes = await Promise.all(Array.from({ length: 100 }, (_, i) => createTestMailbox(t, `wide${i}@svc.test`)));
      const before = await attachmentStorage(t.service.ctx.db);
      const content = Buffer.alloc(7 * 1024 * 1024 - 64 * 1024, 7);
      const intake = await healthzDuring(base, () =>
        postInbound(base, { to: boxes.map((b) => b.address).join(', '), subject: 'big', attachments: [{ filename: 'big.bin', content_base64: b64(content) }] }),
      );
      expect(intake.result.status).toBe(201);
      expect(intake.worstMs).toBeLessThan(STALL_LIMIT_MS);
      const after = await attachmentStorage(t.service.ctx.db);
      expect(after.rows - before.rows).toBe(1);
      expect(after.bytes - before.bytes).toBe(content.length);
    });

    it('attachments read back byte for byte whatever their size: empty, one byte, and 2.5 MB (read in 1 MB slices)', async () => {
      const box = await createTestMailbox(t, 'slices@svc.test');
      const big = Buffer.alloc(2.5 * 1024 * 1024);
      for (let i = 0; i < big.length; i++) big[i] = (i * 131 + (i >> 20)) & 0xff;
      const files = [Buffer.alloc(0), Buffer.from([0]), big];
      const res = await t.api('POST', '/api/inbound', { to: box.address, attachments: files.map((f, i) => ({ filename: `f${i}.bin`, content_base64: b64(f) })) });
      expect(res.statusCode).toBe(201);
      const id = res.json().message.id as string;
      const attachments = (await read(box, id)).json().message.attachments as { id: string; size: number }[];
      expect(attachments.map((a) => a.size)).toEqual(files.map((f) => f.length));
      for (const [i, a] of attachments.entries()) {
        const file = await t.request('GET', `/mailboxes/${box.address}/messages/${id}/attachments/${a.id}`, undefined, bearer(box.token));
        expect(file.statusCode).toBe(200);
        expect(file.rawPayload.equals(files[i]!)).toBe(true);
      }
    });

    it('a 1 MB attachment to 50 mailboxes: stored once, read by each, deleting one copy keeps the others, the last takes the bytes', async () => {
      const boxes = await Promise.all(Array.from({ length: 50 }, (_, i) => createTestMailbox(t, `share${i}@svc.test`)));
      const before = await attachmentStorage(t.service.ctx.db);
      const contentsBefore = await contents();
      const bytes = Buffer.alloc(1024 * 1024);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff;
      const res = await t.api('POST', '/api/inbound', { to: boxes.map((b) => b.address).join(','), attachments: [{ filename: 'one.bin', content_base64: b64(bytes) }] });
      expect(res.statusCode).toBe(201);
      const id = res.json().message.id as string;
      expect(await attachmentStorage(t.service.ctx.db)).toEqual({ rows: before.rows + 1, bytes: before.bytes + bytes.length });

      const download = async (m: TestMailbox) => {
        const msg = (await read(m, id)).json().message;
        return t.request('GET', `/mailboxes/${m.address}/messages/${id}/attachments/${msg.attachments[0].id}`, undefined, bearer(m.token));
      };
      for (const m of boxes) {
        const file = await download(m);
        expect(file.statusCode).toBe(200);
        expect(file.rawPayload.equals(bytes)).toBe(true);
      }
      const attId = (await read(boxes[1]!, id)).json().message.attachments[0].id as string;
      expect((await t.request('DELETE', `/mailboxes/${boxes[0]!.address}/messages/${id}`, undefined, bearer(boxes[0]!.token))).statusCode).toBe(200);
      expect((await read(boxes[0]!, id)).statusCode).toBe(404);
      // another mailbox's copy: unchanged, and the first mailbox cannot reach the attachment any more
      expect((await download(boxes[1]!)).rawPayload.equals(bytes)).toBe(true);
      expect((await t.request('GET', `/mailboxes/${boxes[0]!.address}/messages/${id}/attachments/${attId}`, undefined, bearer(boxes[0]!.token))).statusCode).toBe(404);
      expect(await attachmentStorage(t.service.ctx.db)).toEqual({ rows: before.rows + 1, bytes: before.bytes + bytes.length });

      await Promise.all(boxes.slice(1).map((m) => t.request('DELETE', `/mailboxes/${m.address}/messages/${id}`, undefined, bearer(m.token))));
      expect(await attachmentStorage(t.service.ctx.db)).toEqual(before);
      expect(await contents()).toBe(contentsBefore);
    });

    it('retention deletes the shared bytes with the last copy', async () => {
      const boxes = await Promise.all(['ret1', 'ret2', 'ret3'].map((n) => createTestMailbox(t, `${n}@svc.test`)));
      await t.service.ctx.services.mail.purgeExpired();
      const before = await attachmentStorage(t.service.ctx.db);
      const res = await t.api('POST', '/api/inbound', { to: boxes.map((b) => b.address).join(','), attachments: [{ filename: 'r.bin', content_base64: b64('retained') }] });
      const id = res.json().message.id as string;
      expect((await attachmentStorage(t.service.ctx.db)).rows).toBe(before.rows + 1);
      await t.request('DELETE', `/mailboxes/${boxes[0]!.address}/messages/${id}`, undefined, bearer(boxes[0]!.token));
      t.clock.advance(25 * 3_600_000);
      expect(await t.service.ctx.services.mail.purgeExpired()).toBeGreaterThanOrEqual(2);
      expect(await attachmentStorage(t.service.ctx.db)).toEqual({ rows: 0, bytes: 0 });
      expect(await contents()).toBe(0);
    });
  });

  describe('at most 100 attachments per message', () => {
    it('101 attachments: 400 invalid_request naming attachments; 100 are stored', async () => {
      const many = (n: number) => Array.from({ length: n }, (_, i) => ({ filename: `f${i}.txt`, content_base64: b64(`file ${i}`) }));
      const refused = await t.api('POST', '/api/inbound', { to: alice.address, attachments: many(101) });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ success: false, error: { code: 'invalid_request', details: [{ field: 'attachments' }] } });
      const ok = await t.api('POST', '/api/inbound', { to: alice.address, attachments: many(100) });
      expect(ok.statusCode).toBe(201);
      const msg = (await read(alice, ok.json().message.id)).json().message;
      expect(msg.attachments).toHaveLength(100);
      expect(msg.attachments[99].filename).toBe('f99.txt');
    });
  });

  describe('bounded string fields', () => {
    it('a 100 KB from (the old ReDoS) and other over-long fields are 400 naming the field, at once', async () => {
      for (const [field, value] of [
        ['from', `${'<'.repeat(100_000)}x`],
        ['from', `"${' '.repeat(100_000)}<a@b.c`],
        ['from_name', 'n'.repeat(321)],
        ['subject', 's'.repeat(2001)],
      ] as const) {
        const started = performance.now();
        const res = await t.api('POST', '/api/inbound', { to: alice.address, [field]: value });
        expect(performance.now() - started).toBeLessThan(1000);
        expect(res.statusCode, field).toBe(400);
        expect(res.json().error.details[0].field).toBe(field);
      }
      const longName = await t.api('POST', '/api/inbound', { to: alice.address, attachments: [{ filename: 'f'.repeat(256), content_base64: b64('x') }] });
      expect(longName.json().error.details[0].field).toBe('attachments.0.filename');
      const longType = await t.api('POST', '/api/inbound', { to: alice.address, attachments: [{ content_type: 't'.repeat(256), content_base64: b64('x') }] });
      expect(longType.json().error.details[0].field).toBe('attachments.0.content_type');
    });

    it('a NUL in any inbound field is 400, on both databases (never a 451/500 loop)', async () => {
      for (const field of ['subject', 'text', 'html', 'from']) {
        const res = await t.api('POST', '/api/inbound', { to: alice.address, [field]: 'a\u0000b' });
        expect(res.statusCode, field).toBe(400);
        expect(res.json().error.code).toBe('invalid_request');
      }
    });
  });

  describe('mailbox quota', () => {
    it('with mailbox_max_messages=3 the 4th message deletes the oldest of that mailbox only', async () => {
      const admin = await t.admin();
      const q = await createTestMailbox(t, 'quota@svc.test');
      const other = await createTestMailbox(t, 'other@svc.test');
      expect((await admin.call('GET', '/admin/api/settings')).json().settings.mailbox_max_messages).toBe(500);
      expect((await admin.call('PATCH', '/admin/api/settings', { mailbox_max_messages: 3 })).json().settings.mailbox_max_messages).toBe(3);
      try {
        for (const n of [1, 2, 3]) {
          await t.api('POST', '/api/inbound', { to: `${q.address}, ${other.address}`, subject: `m${n}`, attachments: [{ filename: 'a', content_base64: b64(`a${n}`) }] });
        }
        const list = async (m: TestMailbox) =>
          (await t.request('GET', `/mailboxes/${m.address}/messages`, undefined, bearer(m.token))).json().items.map((x: { subject: string }) => x.subject);
        expect(await list(q)).toEqual(['m3', 'm2', 'm1']);
        await t.api('POST', '/api/inbound', { to: q.address, subject: 'm4' });
        expect(await list(q)).toEqual(['m4', 'm3', 'm2']);
        // the other mailbox had its own copies: untouched, and m1's content stays while it is shared
        expect(await list(other)).toEqual(['m3', 'm2', 'm1']);
        await t.api('POST', '/api/inbound', { to: other.address, subject: 'o4' });
        expect(await list(other)).toEqual(['o4', 'm3', 'm2']);
        const orphans = await sql<{ n: number }>`select count(*) as n from message_contents c where not exists (select 1 from messages m where m.id = c.id)`.execute(t.service.ctx.db);
        expect(Number(orphans.rows[0]?.n)).toBe(0);
      } finally {
        await admin.call('PATCH', '/admin/api/settings', { mailbox_max_messages: 500 });
      }
    });

    it('concurrent arrivals never leave more than the quota', async () => {
      const admin = await t.admin();
      const q = await createTestMailbox(t, 'busy@svc.test');
      await admin.call('PATCH', '/admin/api/settings', { mailbox_max_messages: 5 });
      try {
        const results = await Promise.all(Array.from({ length: 30 }, (_, i) => t.api('POST', '/api/inbound', { to: q.address, subject: `c${i}` })));
        expect(results.every((r) => r.statusCode === 201)).toBe(true);
        const n = await t.service.ctx.db.selectFrom('messages').select((eb) => eb.fn.countAll().as('n')).where('mailbox_address', '=', q.address).executeTakeFirstOrThrow();
        expect(Number(n.n)).toBe(5);
      } finally {
        await admin.call('PATCH', '/admin/api/settings', { mailbox_max_messages: 500 });
      }
    });

    it('concurrent arrivals to overlapping full mailboxes are all stored (no deadlock between their trims), shares stay exact', async () => {
      const admin = await t.admin();
      const boxes = await Promise.all(['ov-a', 'ov-b', 'ov-c', 'ov-d', 'ov-e', 'ov-f'].map((n) => createTestMailbox(t, `${n}@svc.test`)));
      await admin.call('PATCH', '/admin/api/settings', { mailbox_max_messages: 2 });
      try {
        // full already, and every old message shared by several mailboxes: each arrival trims shared contents
        for (const n of [1, 2]) expect((await postInbound(base, { to: boxes.map((b) => b.address).join(', '), subject: `old${n}` })).status).toBe(201);
        const results = await Promise.all(
          Array.from({ length: 150 }, (_, i) => {
            const to = boxes.filter((_, j) => (i * 7 + j * 3) % 5 < 2).map((b) => b.address);
            return postInbound(base, { to: (to.length > 0 ? to : [boxes[0]!.address]).join(', '), subject: `ov${i}`, attachments: i % 3 ? [{ content_base64: 'eHl6' }] : [] });
          }),
        );
        expect(results.filter((r) => r.status !== 201).map((r) => r.json)).toEqual([]);
        for (const b of boxes) {
          const n = await t.service.ctx.db.selectFrom('messages').select((eb) => eb.fn.countAll().as('n')).where('mailbox_address', '=', b.address).executeTakeFirstOrThrow();
          expect(Number(n.n)).toBe(2);
        }
        // every content's refs is its number of copies; none is orphaned
        const wrong = await sql<{ n: number }>`select count(*) as n from message_contents c where c.refs <> (select count(*) from messages m where m.id = c.id)`.execute(t.service.ctx.db);
        expect(Number(wrong.rows[0]?.n)).toBe(0);
      } finally {
        await admin.call('PATCH', '/admin/api/settings', { mailbox_max_messages: 500 });
      }
    });

    it('mailbox_max_messages outside 1–10000 or not an integer is 400 naming the field', async () => {
      const admin = await t.admin();
      for (const value of [0, 10_001, 2.5, '10', null]) {
        const res = await admin.call('PATCH', '/admin/api/settings', { mailbox_max_messages: value });
        expect(res.statusCode, String(value)).toBe(400);
        expect(res.json().error.details[0].field).toBe('mailbox_max_messages');
      }
      expect((await admin.call('PATCH', '/admin/api/settings', { mailbox_max_messages: 10_000 })).statusCode).toBe(200);
      expect((await admin.call('PATCH', '/admin/api/settings', { mailbox_max_messages: 500 })).statusCode).toBe(200);
    });
  });
});

describeEachDatabase('mail HTML time limit', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    // A tiny limit, so that any real HTML runs out of time: the outcome does not depend on the machine's speed.
    t = await startTestService(dialect, { env: { SVC_MAIL_HTML_TIMEOUT_MS: '5' } });
  });
  afterAll(() => t.close());

  it('HTML that cannot be sanitised in time is dropped; the text stays; the next message gets a fresh worker', async () => {
    const m = await createTestMailbox(t, 'slow@svc.test');
    const html = '<p>para <b>bold</b> <i>it</i> <a href="https://x.example/">link</a></p>'.repeat(6000);
    for (const subject of ['first', 'second']) {
      const res = await t.api('POST', '/api/inbound', { to: m.address, subject, text: 'kept', html });
      expect(res.statusCode).toBe(201);
      const msg = (await t.request('GET', `/mailboxes/${m.address}/messages/${res.json().message.id}`, undefined, bearer(m.token))).json().message;
      expect(msg).toMatchObject({ subject, text: 'kept', html: null, html_dropped: true });
      const doc = await t.request('GET', `/mailboxes/${m.address}/messages/${res.json().message.id}/html`, undefined, bearer(m.token));
      expect(doc.statusCode).toBe(200);
      expect(doc.body).not.toContain('para');
    }
  });
});
