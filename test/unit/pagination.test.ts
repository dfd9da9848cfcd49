import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, toPage } from '../../src/platform/db/keyset.js';

describe('cursor pagination', () => {
  it('round-trips a cursor and keeps it opaque (base64url)', () => {
    const c = { createdAt: 1_768_478_400_000, id: 'com_01abc' };
    const raw = encodeCursor(c);
    expect(raw).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(raw)).toEqual(c);
    expect(decodeCursor(undefined)).toBeUndefined();
    expect(decodeCursor('')).toBeUndefined();
  });

  it.each(['!!!', 'bm90IGpzb24', Buffer.from('[1]').toString('base64url'), Buffer.from('["x","y"]').toString('base64url')])(
    'refuses %s with a 400 naming cursor',
    (raw) => {
      expect(() => decodeCursor(raw)).toThrowError(expect.objectContaining({ status: 400, code: 'invalid_request', details: [{ field: 'cursor', message: expect.any(String) }] }));
    },
  );

  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

  it.each([
    ['a float where an integer time belongs', b64(['orders', 1.5, 'o1'])],
    ['a time past 2^53', b64(['orders', 1e300, 'o1'])],
    ['a NUL in the id', b64(['orders', 1, 'o\u0000'])],
    ['an over-long id', b64(['orders', 1, 'x'.repeat(401)])],
    ['another list', b64(['commissions', 1, 'com_1'])],
    ['no list name', b64([1, 'o1'])],
    ['extra elements', b64(['orders', 1, 'o1', 2])],
    ['an object', b64({ createdAt: 1, id: 'o1' })],
    ['standard base64 padding', `${b64(['orders', 1, 'o1'])}==`],
  ])('refuses %s when the list names its cursors', (_what, raw) => {
    expect(() => decodeCursor(raw, 'orders')).toThrowError(expect.objectContaining({ status: 400, code: 'invalid_request' }));
  });

  it('round-trips a named cursor, and a list that names none still reads it', () => {
    const raw = encodeCursor({ createdAt: 5, id: 'o1' }, 'orders');
    expect(decodeCursor(raw, 'orders')).toEqual({ createdAt: 5, id: 'o1' });
    expect(decodeCursor(raw)).toEqual({ createdAt: 5, id: 'o1' });
    expect(() => decodeCursor(raw, 'withdrawals')).toThrowError(expect.objectContaining({ status: 400 }));
  });

  it('cuts the extra row and points the cursor at the last kept one', () => {
    const rows = [1, 2, 3].map((n) => ({ at: n, id: `i${n}` }));
    const page = toPage(rows, 2, (r) => ({ createdAt: r.at, id: r.id }), (r) => r.id);
    expect(page.items).toEqual(['i1', 'i2']);
    expect(decodeCursor(page.next_cursor ?? undefined)).toEqual({ createdAt: 2, id: 'i2' });
    expect(toPage(rows, 3, (r) => ({ createdAt: r.at, id: r.id }), (r) => r.id).next_cursor).toBeNull();
  });
});
