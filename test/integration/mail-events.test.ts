import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { createTestMailbox, type TestMailbox } from '../helpers/mail-fixtures.js';
import { startTestService, type TestService } from '../helpers/service.js';
import { sseReader } from '../helpers/sse.js';

describeEachDatabase('mail: real-time arrivals over SSE', (dialect) => {
  let t: TestService;
  let sibling: TestService;
  let base: string;
  let carol: TestMailbox;
  beforeAll(async () => {
    t = await startTestService(dialect);
    base = await t.service.start();
    sibling = await t.sibling();
    carol = await createTestMailbox(t, 'carol@svc.test');
    await createTestMailbox(t, 'dave@svc.test');
  });
  afterAll(async () => {
    await sibling.close();
    await t.close();
  });

  it('refuses the stream without the mailbox token', async () => {
    const res = await fetch(`${base}/mailboxes/carol@svc.test/events?token=wrong`);
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
  });

  it('tells a new stream only of mail that arrives after it opened', async () => {
    // while nobody listens (the first stream of this service)
    await t.api('POST', '/api/inbound', { to: 'carol@svc.test', subject: 'before 1' });
    await sibling.api('POST', '/api/inbound', { to: 'carol@svc.test', subject: 'before 2' });
    await t.api('POST', '/api/inbound', { to: 'carol@svc.test', subject: 'before 3' }); // its commit kicks the SQLite poller
    const sse = sseReader((await fetch(`${base}/mailboxes/carol@svc.test/events?token=${encodeURIComponent(carol.token)}`)).body!);
    try {
      const live = (await t.api('POST', '/api/inbound', { to: 'carol@svc.test', subject: 'after' })).json().message.id;
      const first = await sse.next();
      expect(JSON.parse(first.data).subject).toBe('after');
      expect(first.id).toBe(live);
    } finally {
      await sse.cancel();
    }
  });

  it('pushes a message event for mail to this mailbox, from this instance and from another one', async () => {
    const res = await fetch(`${base}/mailboxes/carol@svc.test/events?token=${encodeURIComponent(carol.token)}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const sse = sseReader(res.body!);
    try {
      // Mail for another mailbox is not announced on this stream.
      await t.api('POST', '/api/inbound', { to: 'dave@svc.test', subject: 'not for carol' });
      const local = (await t.api('POST', '/api/inbound', { to: 'Carol <carol@svc.test>', from: 'a@example.org', subject: 'local' })).json();
      const first = await sse.next();
      expect(first.event).toBe('message');
      expect(first.id).toBe(local.message.id);
      expect(JSON.parse(first.data)).toEqual({ id: local.message.id, from: 'a@example.org', subject: 'local', received_at: '2026-01-15T12:00:00.000Z', seen: false, code: null });

      const remote = (await sibling.api('POST', '/api/inbound', { to: 'carol@svc.test', from: 'b@example.org', subject: 'from the sibling', text: 'Your login code: 4821' })).json();
      expect(remote.success).toBe(true);
      const second = await sse.next();
      expect(JSON.parse(second.data)).toEqual({ id: remote.message.id, from: 'b@example.org', subject: 'from the sibling', received_at: '2026-01-15T12:00:00.000Z', seen: false, code: '4821' });
    } finally {
      await sse.cancel();
    }
  });

  it('replays what arrived after Last-Event-ID on reconnect, then goes on live', async () => {
    const url = `${base}/mailboxes/carol@svc.test/events?token=${encodeURIComponent(carol.token)}`;
    const first = sseReader((await fetch(url)).body!);
    const seen = (await t.api('POST', '/api/inbound', { to: 'carol@svc.test', subject: 'seen' })).json().message.id;
    expect((await first.next()).id).toBe(seen);
    await first.cancel();

    // while the client is away: two for carol (one through the other instance), one for dave
    const missed1 = (await t.api('POST', '/api/inbound', { to: 'carol@svc.test', subject: 'missed 1' })).json().message.id;
    await t.api('POST', '/api/inbound', { to: 'dave@svc.test', subject: 'not for carol' });
    const missed2 = (await sibling.api('POST', '/api/inbound', { to: 'carol@svc.test', subject: 'missed 2' })).json().message.id;

    const again = sseReader((await fetch(url, { headers: { 'last-event-id': seen } })).body!);
    try {
      const r1 = await again.next();
      const r2 = await again.next();
      expect([r1.id, r2.id]).toEqual([missed1, missed2]);
      expect(JSON.parse(r2.data)).toMatchObject({ id: missed2, subject: 'missed 2' });
      const live = (await t.api('POST', '/api/inbound', { to: 'carol@svc.test', subject: 'live' })).json().message.id;
      expect((await again.next()).id).toBe(live);
    } finally {
      await again.cancel();
    }

    // an id that is not (or no longer) in the mailbox replays nothing; live events still come
    const unknown = sseReader((await fetch(url, { headers: { 'last-event-id': 'msg_gone' } })).body!);
    try {
      const live = (await t.api('POST', '/api/inbound', { to: 'carol@svc.test', subject: 'after unknown' })).json().message.id;
      expect((await unknown.next()).id).toBe(live);
    } finally {
      await unknown.cancel();
    }
  });

  it('accepts the token as a Bearer header too', async () => {
    const res = await fetch(`${base}/mailboxes/carol@svc.test/events`, { headers: { authorization: `Bearer ${carol.token}` } });
    expect(res.status).toBe(200);
    const sse = sseReader(res.body!);
    try {
      const sent = (await t.api('POST', '/api/inbound', { to: 'carol@svc.test', subject: 'header' })).json();
      expect(JSON.parse((await sse.next()).data)).toMatchObject({ id: sent.message.id, subject: 'header' });
    } finally {
      await sse.cancel();
    }
  });
});
