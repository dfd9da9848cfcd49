import { describe, expect, it } from 'vitest';
import { minorAmount, minorToCents } from '../../src/loop/integrations/minor-units.js';

describe('minorToCents: a provider\'s minor units as cents, exactly', () => {
  it('two-decimal currencies are cents already', () => {
    expect(minorToCents(4990, 'usd')).toBe(4990);
    expect(minorToCents(1, 'EUR')).toBe(1);
  });
  it('zero-decimal currencies (Stripe\'s list: JPY, KRW, …) count whole units', () => {
    expect(minorToCents(1000, 'jpy')).toBe(100_000);
    expect(minorToCents(1, 'KRW')).toBe(100);
  });
  it('three-decimal currencies: thousandths, exact only in tens', () => {
    expect(minorToCents(12_340, 'KWD')).toBe(1234);
    expect(minorToCents(12_345, 'KWD')).toBeUndefined();
  });
  it('refuses what is not a whole, non-negative, safe amount', () => {
    for (const bad of [-1, 1.5, Number.NaN, 2 ** 53]) expect(minorToCents(bad, 'USD')).toBeUndefined();
    expect(minorToCents(2 ** 50, 'JPY')).toBeUndefined();
  });
  it('minorAmount reads numbers and Paddle\'s digit strings only', () => {
    expect(minorAmount('3500')).toBe(3500);
    expect(minorAmount(3500)).toBe(3500);
    for (const bad of ['35.00', '-1', '', ' 1', 1.5, null, undefined, '1e3']) expect(minorAmount(bad)).toBeUndefined();
  });
});
