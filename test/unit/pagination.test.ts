import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, toPage } from '../../src/http/pagination.js';

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

  it('cuts the extra row and points the cursor at the last kept one', () => {
    const rows = [1, 2, 3].map((n) => ({ at: n, id: `i${n}` }));
    const page = toPage(rows, 2, (r) => ({ createdAt: r.at, id: r.id }), (r) => r.id);
    expect(page.items).toEqual(['i1', 'i2']);
    expect(decodeCursor(page.next_cursor ?? undefined)).toEqual({ createdAt: 2, id: 'i2' });
    expect(toPage(rows, 3, (r) => ({ createdAt: r.at, id: r.id }), (r) => r.id).next_cursor).toBeNull();
  });
});
