import { describe, expect, it } from 'vitest';
import { newId, randomToken } from '../../src/platform/ids.js';

describe('ids (src/platform/ids.ts)', () => {
  it('random tokens across several refills of the random pool are all different, in the base32 alphabet, every letter used', () => {
    // 2,000 tokens of 16 draw 32,000 bytes: the 4 KiB pool is refilled 7 times, once mid-token's reach
    const tokens = Array.from({ length: 2000 }, () => randomToken(16));
    expect(new Set(tokens).size).toBe(tokens.length);
    const all = tokens.join('');
    expect(all).toMatch(/^[0-9abcdefghjkmnpqrstvwxyz]+$/);
    expect(new Set(all).size).toBe(32);
    // no byte handed out twice: consecutive tokens never share their first half
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]!.slice(0, 8)).not.toBe(tokens[i - 1]!.slice(0, 8));
  });

  it('a token longer than the pool is refused rather than read past it', () => {
    expect(() => randomToken(4097)).toThrow(RangeError);
    expect(randomToken(4096)).toHaveLength(4096);
  });

  it('ids are prefix, 10 characters of time and 16 random ones, and sort by creation time', () => {
    const a = newId('wd', Date.UTC(2026, 0, 1));
    const b = newId('wd', Date.UTC(2026, 0, 1) + 1);
    expect(a).toMatch(/^wd_[0-9a-z]{26}$/);
    expect(a < b).toBe(true);
  });
});
