import { describe, expect, it } from 'vitest';
import { normalizeDomain } from '../../src/mail/domains/domain-name.js';

describe('normalizeDomain: a mail domain as stored', () => {
  it.each([
    ['  Bücher.Example ', 'xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['MAIL.Test.', 'mail.test'],
    ['localhost', 'localhost'],
    ['a-b.c1.test', 'a-b.c1.test'],
  ])('%j → %j', (input, stored) => {
    expect(normalizeDomain(input)).toBe(stored);
  });

  // `xn--zz` and `xn--a` are not valid punycode: Node.js 22 refuses them, Node.js 24's URL parser passes
  // them through, so the round trip is checked on every line
  it.each(['', ' ', 'a b.test', 'under_score.test', '-dash.test', 'dash-.test', 'x..test', `${'a'.repeat(64)}.test`,
    `${'abcdefghi.'.repeat(26)}test`, '10.0.0.1', '1.2', 'xn--zz.test', 'xn--a.test', 'ok.xn--zz', '[::1]'])('%j is refused', (input) => {
    expect(normalizeDomain(input)).toBeUndefined();
  });
});
