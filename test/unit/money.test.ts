import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { commissionCents, fromCents, toCents, toRateBp } from '../../src/platform/money.js';

describe('money', () => {
  it.each([
    [10, 1000],
    [0.1, 10],
    [19.99, 1999],
    [1000000000, 100000000000],
    [0.07, 7],
    [1.005, undefined],
    [10.123, undefined],
    // large amounts keep the two-place rule exactly (a relative tolerance once let these through)
    [123456789.123, undefined],
    [10000000.005, undefined],
    [999999999.999, undefined],
    [1000000000.004, undefined],
    [999999999.99, 99999999999],
    [0.30000000000000004, undefined],
    ['10', undefined],
    [Number.NaN, undefined],
    [Number.POSITIVE_INFINITY, undefined],
  ])('toCents(%s) = %s', (input, expected) => {
    expect(toCents(input)).toBe(expected);
  });

  it('refuses every amount with a third decimal place, whatever its size', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 999_999_999_999 }), (mills) => {
        fc.pre(mills % 10 !== 0);
        expect(toCents(Number(`${Math.floor(mills / 1000)}.${String(mills % 1000).padStart(3, '0')}`))).toBeUndefined();
      }),
    );
  });

  it('round-trips every two-decimal amount exactly', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000_000_000 }), (cents) => {
        expect(toCents(fromCents(cents))).toBe(cents);
      }),
    );
  });

  it('rounds commissions half-up to the cent', () => {
    expect(commissionCents(1999, 1000)).toBe(200); // 19.99 × 10% = 1.999 -> 2.00
    expect(commissionCents(105, 1000)).toBe(11); // 1.05 × 10% = 0.105 -> 0.11
    expect(commissionCents(104, 1000)).toBe(10); // 0.104 -> 0.10
    expect(commissionCents(1, 5000)).toBe(1); // 0.005 -> 0.01
    expect(commissionCents(1, 4999)).toBe(0);
    expect(commissionCents(100000000000, 10000)).toBe(100000000000);
    expect(commissionCents(33333, 1250)).toBe(4167); // 333.33 × 12.5% = 41.66625 -> 41.67
  });

  it('matches exact rational arithmetic for random inputs', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000_000_000 }), fc.integer({ min: 0, max: 10000 }), (amount, bp) => {
        const exact = BigInt(amount) * BigInt(bp); // in 1/10000 cents
        const expected = (exact * 2n + 10000n) / 20000n; // floor(x + 0.5)
        expect(commissionCents(amount, bp)).toBe(Number(expected));
      }),
    );
  });

  it('validates rates', () => {
    expect(toRateBp(12.5)).toBe(1250);
    expect(toRateBp(0)).toBe(0);
    expect(toRateBp(100)).toBe(10000);
    expect(toRateBp(100.01)).toBeUndefined();
    expect(toRateBp(-1)).toBeUndefined();
    expect(toRateBp(1.234)).toBeUndefined();
  });
});
