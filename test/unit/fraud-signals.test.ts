import { describe, expect, it } from 'vitest';
import { networksOf } from '../../src/loop/fraud/network.js';
import { mailboxKey, payoutKey, refundRate, selfReferral } from '../../src/loop/fraud/signals.js';

// docs/api.md#fraud-review: the signals are pure rules; these hold their edges.

const NONE = new Set<string>();
const fires = (orderEmail: string, affiliateEmail: string, ownDomains: ReadonlySet<string> = NONE) =>
  selfReferral({ orderEmail, affiliateEmail, signedInNetwork: undefined, ownDomains }, 'o-1')?.detail;

describe('self_referral on emails', () => {
  it('compares the mailbox an address reaches: case, trailing dot, +tag, Gmail dots and googlemail, IDN', () => {
    expect(fires('ann@example.com', 'Ann@Example.com')).toBe("Ordered with the affiliate's own email ann@example.com");
    expect(fires('ann+shop@example.com', 'ann@example.com')).toBe("Ordered with the affiliate's own email ann+shop@example.com (the affiliate's is ann@example.com)");
    for (const variant of ['gina+1@gmail.com', 'g.ina@gmail.com', 'gina@googlemail.com', 'G.I.N.A+shop@GoogleMail.com']) {
      expect(fires(variant, 'gina@gmail.com'), variant).toMatch(/^Ordered with the affiliate's own email/);
    }
    expect(fires('mal@corp-mal.example', 'Mal@Corp-Mal.example.')).toMatch(/own email/);
    expect(fires('owner@xn--bcher-kva.example', 'owner@bücher.example')).toMatch(/own email/);
    // dots are only Gmail's to ignore
    expect(fires('a.nn@example.com', 'ann@example.com')).toMatch(/own email domain example\.com$/);
    expect(fires('a.nn@outlook.com', 'ann@outlook.com')).toBeUndefined();
  });

  it('fires on the affiliate\'s own domain and its subdomains, not a public provider\'s or svc\'s own', () => {
    expect(fires('boss@example.com', 'ann@example.com')).toBe("Ordered with boss@example.com, at the affiliate's own email domain example.com");
    expect(fires('bob@mail.corp.example.org', 'bob@corp.example.org')).toMatch(/own email domain corp\.example\.org$/);
    expect(fires('x@notexample.com', 'ann@example.com')).toBeUndefined();
    expect(fires('friend@gmail.com', 'gus@gmail.com')).toBeUndefined();
    expect(fires('friend@proton.me', 'gus@proton.me')).toBeUndefined();
    expect(fires('buyer@svc.test', 'sam@svc.test', new Set(['svc.test']))).toBeUndefined();
    expect(fires('', 'ann@example.com')).toBeUndefined();
  });

  it('keys payout emails the same way and IBANs without spaces', () => {
    expect(payoutKey(' Ann.Pay+x@GMAIL.com ')).toBe(payoutKey('annpay@googlemail.com'));
    expect(payoutKey('DE89 3704 0044 0532 0130 00')).toBe('de89370400440532013000');
    expect(payoutKey('')).toBeNull();
    expect(mailboxKey('no-at-sign')).toBeNull();
  });
});

describe('refund_rate', () => {
  const cents = (c: number) => `${c / 100}`;
  it('needs at least 5 orders and more than 30 % refunded', () => {
    expect(refundRate({ orders: 5, amountCents: 50_000, refundedCents: 15_000 }, 'o', cents)).toBeUndefined();
    expect(refundRate({ orders: 5, amountCents: 50_000, refundedCents: 15_001 }, 'o', cents)?.detail).toBe('30 % refunded over the last 30 days: 150.01 of 500 on 5 orders');
    expect(refundRate({ orders: 4, amountCents: 40_000, refundedCents: 40_000 }, 'o', cents)).toBeUndefined();
  });
});

describe('networksOf', () => {
  it('reads IPv4-mapped addresses in any form as the IPv4 address, IPv6 by /64 and /48', () => {
    for (const a of ['::ffff:198.51.100.7', '::FFFF:198.51.100.7', '0::ffff:198.51.100.7', '::ffff:c633:6407']) {
      expect(networksOf(a), a).toEqual({ exact: '198.51.100.7', wide: '198.51.100.0/24' });
    }
    expect(networksOf('2001:DB8:1:2:3:4:5:6')).toEqual({ exact: '2001:db8:1:2::/64', wide: '2001:db8:1::/48' });
    expect(networksOf('2001:db8::1')).toEqual({ exact: '2001:db8:0:0::/64', wide: '2001:db8:0::/48' });
  });

  it('has no network for loopback, private, link-local, unique-local or ::/64 addresses, nor for what is no address', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.1.1', '100.64.0.1', '::1', '::', 'fe80::1', 'fd00::1', '::ffff:0:1.2.3.4', '::ffff:10.0.0.1', 'not an ip', '']) {
      expect(networksOf(a), a).toBeUndefined();
    }
  });
});
