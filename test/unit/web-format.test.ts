import { describe, expect, it } from 'vitest';
import { conversion, perMailbox } from '../../web/src/format.js';

describe('how pages write the summary ratios', () => {
  it('conversion is a share while it is one, and mailboxes per click above it (a cookie may bring several mailboxes from one click)', () => {
    expect(conversion(0.643)).toBe('64.3%');
    expect(conversion(1)).toBe('100.0%');
    expect(conversion(4)).toBe('4.00 per click');
  });

  it('orders per mailbox are a count, never a share above 100 %', () => {
    expect(perMailbox(1.5)).toBe('1.50');
  });
});
