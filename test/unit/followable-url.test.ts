import { describe, expect, it } from 'vitest';
import { isFollowableUrl } from '../../src/platform/safe-url.js';
import { linksOfMail } from '../../src/mail/messages/links.js';

/** docs/api.md#links: the host classifier, in every spelling a browser accepts. */
describe('isFollowableUrl', () => {
  const inward = [
    // IPv4 literals of inward ranges, dotted and in the other forms the WHATWG parser accepts
    'http://169.254.169.254/latest/meta-data/',
    'http://2852039166/',
    'http://0xA9FEA9FE/',
    'http://0xa9.0xfe.0xa9.0xfe/',
    'http://0251.0376.0251.0376/',
    'http://169.254.43518/',
    'http://127.1/',
    'http://127.0.0.1:8080/x',
    'http://0/',
    'http://0.0.0.0/',
    'http://10.0.0.5/verify',
    'http://10.1/',
    'http://172.16.0.1/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://224.0.0.1/',
    'http://255.255.255.255/',
    'http://%31%32%37.0.0.1/',
    'http://１２７.０.０.１/',
    'http://169.254.169.254./',
    // userinfo is not the host
    'http://good.com@127.0.0.1/',
    'http://good.com:pw@169.254.169.254/',
    // IPv6 literals
    'http://[::1]/',
    'http://[::]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[fe80::1]/',
    'http://[fc00::1]/',
    'http://[fd12:3456::1]/',
    'http://[::ffff:169.254.169.254]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[2001:db8::1]/',
    // names that mean something only inside a network
    'http://localhost/',
    'http://LOCALHOST/',
    'http://localhost./',
    'https://LocalHost:3000/confirm',
    'http://app.localhost/',
    'http://printer.local/',
    'http://Printer.LOCAL./',
    'http://metadata.internal/',
    'http://x.internal/verify?token=abcdefghijklmnopqrst',
    'http://%6c%6f%63%61%6c%68%6f%73%74/',
    // not something a machine follows at all
    'ftp://example.com/',
    'not a url',
    'http://exa mple.com/',
  ];
  for (const url of inward) it(`refuses ${url}`, () => expect(isFollowableUrl(url)).toBe(false));

  const outward = [
    'https://acme.example/confirm?token=Zx81Kq0pL3mN5vB7cX9a',
    'http://93.184.216.34/',
    'http://1572395042/',
    'http://8.8.8.8./',
    'http://[2606:4700:4700::1111]/',
    'http://[::ffff:8.8.8.8]/',
    'https://localhost.example.com/',
    'https://internal.example.com/',
    'https://mylocal/',
    'https://EXAMPLE.COM/Verify',
    'https://127.0.0.1.nip.io/',
  ];
  for (const url of outward) it(`keeps ${url}`, () => expect(isFollowableUrl(url)).toBe(true));
});

describe('linksOfMail leaves out links a machine may not follow', () => {
  it('neither in links nor as the verification link, from HTML or text', () => {
    const html = [
      '<a href="http://169.254.169.254/latest/meta-data/iam/verify">Verify your email</a>',
      '<a href="http://2852039166/confirm">Confirm</a>',
      '<a href="http://[::ffff:169.254.169.254]/confirm">Confirm</a>',
      '<a href="http://x.internal/confirm">Confirm</a>',
      '<a href="https://acme.example/help">Help</a>',
    ].join(' ');
    const text = 'Confirm your email: http://127.1/verify/abcdefghijklmnopqrst\nOr: http://localhost./activate/abcdefghijklmnop';
    expect(linksOfMail(text, html)).toEqual({ links: ['https://acme.example/help'], verificationLink: null });
  });

  it('the outward confirmation link is still found among inward ones', () => {
    const html = '<a href="http://10.0.0.1/confirm?t=abcdefghijklmnopqrst">Confirm</a> <a href="https://acme.example/confirm?t=abcdefghijklmnopqrst">Confirm</a>';
    expect(linksOfMail(null, html)).toEqual({ links: ['https://acme.example/confirm?t=abcdefghijklmnopqrst'], verificationLink: 'https://acme.example/confirm?t=abcdefghijklmnopqrst' });
  });
});
