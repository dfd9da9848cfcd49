import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { linksOfMail, MAX_LINKS } from '../../src/mail/messages/links.js';

interface Case {
  readonly name: string;
  readonly text?: string;
  readonly html?: string;
  readonly verification: string | null;
  readonly links?: string[];
}

const button = (href: string, label: string) => `<a href="${href}" style="background:#2563eb;color:#fff;padding:12px 20px">${label}</a>`;
const footer =
  '<p style="font-size:11px">You received this because you signed up. <a href="https://mail.acme.example/unsubscribe?u=9f8e7d6c5b4a39281706">Unsubscribe</a> · <a href="https://acme.example/privacy">Privacy</a></p>';
const newsletterLinks = Array.from({ length: 40 }, (_, i) => `<li><a href="https://blog.acme.example/posts/${i + 1}?utm_source=newsletter&amp;utm_medium=email">Story ${i + 1}: what we shipped</a></li>`).join('');

/** Real-world mails, as services send them: the link a person would click to confirm, or none. */
const CASES: Case[] = [
  {
    name: 'sign-up confirmation (HTML button, unsubscribe footer)',
    html: `<html><head><style>a{color:red}</style><title>Confirm</title></head><body><h1>Welcome to Acme!</h1><p>Please confirm your email address to finish creating your account.</p>${button('https://acme.example/account/confirm?token=Zx81Kq0pL3mN5vB7cX9a', 'Confirm email address')}<p>Or paste this link: https://acme.example/account/confirm?token=Zx81Kq0pL3mN5vB7cX9a</p>${footer}</body></html>`,
    verification: 'https://acme.example/account/confirm?token=Zx81Kq0pL3mN5vB7cX9a',
    links: ['https://acme.example/account/confirm?token=Zx81Kq0pL3mN5vB7cX9a', 'https://mail.acme.example/unsubscribe?u=9f8e7d6c5b4a39281706', 'https://acme.example/privacy'],
  },
  {
    name: 'sign-up, text only, link on the line after the words',
    text: 'Hi Sam,\n\nThanks for signing up for Foo. Verify your email address by opening this link:\n\nhttps://app.foo.example/verify/eyJhbGciOiJIUzI1NiJ9.abc\n\nIf you did not sign up, ignore this mail.\nhttps://foo.example/help',
    verification: 'https://app.foo.example/verify/eyJhbGciOiJIUzI1NiJ9.abc',
    links: ['https://app.foo.example/verify/eyJhbGciOiJIUzI1NiJ9.abc', 'https://foo.example/help'],
  },
  {
    name: 'magic link (sign in, token in the URL, tracking redirect)',
    html: `<p>Click the button below to sign in to Notion. This link expires in 10 minutes.</p>${button('https://links.notion.example/ls/click?upn=u001.QmFzZTY0RW5jb2RlZFRva2VuVmFsdWU', 'Sign in to Notion')}<p><a href="https://notion.example">notion.example</a></p>`,
    verification: 'https://links.notion.example/ls/click?upn=u001.QmFzZTY0RW5jb2RlZFRva2VuVmFsdWU',
  },
  {
    name: 'magic link, words "magic link" in text',
    text: 'Here is your magic link: https://slack.example/z-app-1234/magic-login/8a7s6d5f4g3h2j1k0l (valid for 24 hours).',
    verification: 'https://slack.example/z-app-1234/magic-login/8a7s6d5f4g3h2j1k0l',
    links: ['https://slack.example/z-app-1234/magic-login/8a7s6d5f4g3h2j1k0l'],
  },
  {
    name: 'password reset',
    html: `<p>Someone asked to reset the password of your GitHub account.</p>${button('https://github.example/password_reset/4b2c9d8e7f6a5b4c3d2e', 'Reset your password')}<p><a href="https://github.example/settings">Settings</a> · <a href="https://github.example/contact">Contact support</a></p>`,
    verification: 'https://github.example/password_reset/4b2c9d8e7f6a5b4c3d2e',
  },
  {
    name: 'newsletter with 40 links, a "Sign in" link to the home page, and unsubscribe: none',
    html: `<header><a href="https://acme.example/">Acme</a> <a href="https://acme.example/login">Sign in</a></header><ul>${newsletterLinks}</ul>${footer}`,
    verification: null,
  },
  {
    name: 'unsubscribe confirmation is never the one',
    html: `<p>We are sorry to see you go.</p>${button('https://news.example/unsubscribe/confirm?id=7f6e5d4c3b2a19081726', 'Confirm unsubscribe')}`,
    verification: null,
  },
  {
    name: 'order receipt with links: none',
    text: 'Thanks for your order #4821.\nTrack your parcel: https://shop.example/track/4821\nView your invoice: https://shop.example/invoices/4821.pdf',
    verification: null,
  },
  {
    name: 'German: E-Mail-Adresse bestätigen',
    html: `<p>Hallo, bitte bestätige deine E-Mail-Adresse, um dein Konto zu aktivieren.</p>${button('https://konto.beispiel.example/b/Qm9rNzY1NDMyMWFiY2Rl', 'E-Mail-Adresse bestätigen')}<p><a href="https://beispiel.example/datenschutz">Datenschutz</a></p>`,
    verification: 'https://konto.beispiel.example/b/Qm9rNzY1NDMyMWFiY2Rl',
  },
  {
    name: 'French: Confirmer mon adresse (entities in the URL)',
    html: `<p>Bonjour,</p>${button('https://compte.exemple.example/c?id=42&amp;cle=R2x3Y4z5A6b7C8d9E0', 'Confirmer mon adresse e-mail')}<a href="https://exemple.example/aide">Aide</a>`,
    verification: 'https://compte.exemple.example/c?id=42&cle=R2x3Y4z5A6b7C8d9E0',
  },
  {
    name: 'Spanish: Verificar mi cuenta',
    html: `<a href="https://tienda.example/">Tienda</a>${button('https://tienda.example/cuenta/v/9a8b7c6d5e4f3a2b1c0d', 'Verificar mi cuenta')}`,
    verification: 'https://tienda.example/cuenta/v/9a8b7c6d5e4f3a2b1c0d',
  },
  {
    name: 'Russian: Подтвердить адрес',
    html: `<p>Здравствуйте! Чтобы завершить регистрацию, подтвердите адрес электронной почты.</p><a href="https://пример.example/">Главная</a> ${button('https://id.example.ru/k/8c7b6a5d4e3f2a1b0c9d', 'Подтвердить адрес')}`,
    verification: 'https://id.example.ru/k/8c7b6a5d4e3f2a1b0c9d',
  },
  {
    name: 'Chinese: 验证邮箱',
    html: `<p>您好！请点击下面的按钮完成注册。</p>${button('https://passport.example.cn/a/7d6c5b4a3f2e1d0c9b8a', '验证邮箱')}<a href="https://example.cn/help">帮助中心</a>`,
    verification: 'https://passport.example.cn/a/7d6c5b4a3f2e1d0c9b8a',
  },
  {
    name: 'Japanese: メールアドレスを確認',
    text: 'ご登録ありがとうございます。\n以下のリンクからメールアドレスを確認してください。\nhttps://example.jp/r/1a2b3c4d5e6f7g8h9i0j\n\nお問い合わせ: https://example.jp/contact',
    verification: 'https://example.jp/r/1a2b3c4d5e6f7g8h9i0j',
  },
  {
    name: 'Portuguese: Ativar conta',
    html: `${button('https://conta.exemplo.example/ativar?t=ZmFrZXRva2VuMTIzNDU2', 'Ativar conta')}<a href="https://exemplo.example/termos">Termos</a>`,
    verification: 'https://conta.exemplo.example/ativar?t=ZmFrZXRva2VuMTIzNDU2',
  },
  {
    name: 'code-only mail with a help link: none',
    text: 'Your verification code is 482913. Need help? https://support.example/codes',
    verification: null,
  },
  {
    name: 'no links at all',
    text: 'Hello, just saying hi.',
    verification: null,
    links: [],
  },
];

describe('links and the verification link: real-world mails', () => {
  it.each(CASES)('$name', (c) => {
    const found = linksOfMail(c.text ?? null, c.html ?? null);
    expect(found.verificationLink).toBe(c.verification);
    if (c.links) expect(found.links).toEqual(c.links);
    if (c.verification) expect(found.links).toContain(c.verification);
  });

  it('lists at most 20 distinct links, in order: the HTML links, then the text', () => {
    const html = Array.from({ length: 30 }, (_, i) => `<a href="https://x.example/${i}">${i}</a><a href="https://x.example/${i}">again</a>`).join('');
    const found = linksOfMail('see https://text.example/first', html);
    expect(found.links).toHaveLength(MAX_LINKS);
    expect(found.links[0]).toBe('https://x.example/0');
    expect(found.links[19]).toBe('https://x.example/19');
    expect(linksOfMail('a https://t.example/1 b', '<a href="https://h.example/1">h</a>').links).toEqual(['https://h.example/1', 'https://t.example/1']);
  });

  it('keeps only http(s) URLs, and trims the punctuation of the sentence', () => {
    const found = linksOfMail('Go to https://a.example/x). Or (https://b.example/y), or https://c.example/wiki/Foo_(bar).', '<a href="javascript:alert(1)">x</a><a href="mailto:a@b.example">m</a><a href="ftp://f.example/">f</a><a href=\'HTTPS://D.example/z\'>d</a>');
    expect(found.links).toEqual(['HTTPS://D.example/z', 'https://a.example/x', 'https://b.example/y', 'https://c.example/wiki/Foo_(bar)']);
  });
});

// Linear time: hostile input of every shape costs no more than its size.
const PIECES = [
  '<', '>', '<a ', '<a href="', 'href=', '"', "'", ' ', '\n', 'https://', 'http://x.example/', 'a', 'я', '码', '.', ')', '(',
  '</a>', '<style>', '<!--', '<script', 'verify ', 'confirm ', 'unsubscribe ', '&amp;', 'x'.repeat(50), '<a href="https://v.example/verify">Confirm</a>',
];
const LARGE = 64 * 1024;
const hostile = fc
  .array(fc.tuple(fc.constantFrom(...PIECES), fc.integer({ min: 1, max: LARGE })), { minLength: 1, maxLength: 4 })
  .map((runs) => runs.map(([piece, n]) => piece.repeat(Math.ceil(n / piece.length))).join('').slice(0, LARGE));

function cpuMs(f: () => unknown): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i += 1) {
    const start = process.cpuUsage();
    f();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

describe('links: linear time', () => {
  it('reads any hostile 64 KB text or HTML within 50 ms', () => {
    fc.assert(
      fc.property(hostile, (input) => {
        expect(cpuMs(() => linksOfMail(input, null)), 'text').toBeLessThan(50);
        expect(cpuMs(() => linksOfMail(null, input)), 'html').toBeLessThan(50);
      }),
      { numRuns: 60, endOnFailure: true },
    );
  });

  const RUNS: [string, string, number][] = [
    ['unclosed tags', '<', 50_000],
    ['unclosed anchors', '<a ', 20_000],
    ['anchors without a closing tag', '<a href="https://x.example/">', 5_000],
    ['a huge attribute', '<a title="' + 'x', 50_000],
    ['URL characters', 'https://x.example/' + 'a', 20_000],
    ['punctuation after a URL', 'https://x.example/a' + '.', 20_000],
    ['Cyrillic letters', 'я', 20_000],
    ['CJK letters', '码', 20_000],
    ['style sheets never closed', '<style>', 10_000],
  ];
  it.each(RUNS)('%s: four times the input costs less than eight times the time', (_name, piece, n) => {
    const input = (size: number) => piece.repeat(Math.ceil(size / piece.length)).slice(0, size);
    const read = (s: string) => () => {
      linksOfMail(s, null);
      linksOfMail(null, s);
    };
    const small = input(n);
    const large = input(4 * n);
    for (let i = 0; i < 5; i += 1) {
      read(small)();
      read(large)();
    }
    let smallBest = Number.POSITIVE_INFINITY;
    let largeBest = Number.POSITIVE_INFINITY;
    for (let round = 0; round < 5; round += 1) {
      smallBest = Math.min(smallBest, cpuMs(read(small)));
      largeBest = Math.min(largeBest, cpuMs(read(large)));
    }
    expect(largeBest / Math.max(smallBest, 0.05)).toBeLessThan(8);
  });
});
