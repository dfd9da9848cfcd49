import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { codeOfMail, findVerificationCode, roughTextOfHtml } from '../../src/mail/messages/verification-code.js';

/** [subject, text, expected code]: real-looking mail, with codes in several languages and without. */
const WITH_CODE: [string | null, string | null, string][] = [
  ['Your verification code is 482913', null, '482913'],
  ['482913 is your Instagram code', null, '482913'],
  ['G-738201 is your Google verification code', null, '738201'],
  ['Slack confirmation code: 4H7-K2P', 'Your confirmation code is below — enter it in your open browser window.\n\n4H7-K2P\n\nIf you did not request this, ignore it.', '4H7K2P'],
  [null, 'Hi Anna,\n\nUse the following one-time password to sign in:\n\n  905 114\n\nIt expires in 10 minutes.', '905114'],
  ['Sign in to Acme', 'Your login code: 7731\nThis code expires at 14:05.', '7731'],
  ['Security alert', 'OTP: AB12CD. Do not share it with anyone.', 'AB12CD'],
  ['Your PIN', 'Your new PIN is 5820. You can change it in the app.', '5820'],
  ['Confirm your email', 'Thanks for signing up on 24 May! Enter this code to verify your email address: 613408', '613408'],
  ['Acme: verify your account', 'Verification code\n\n218 377\n\nThe code is valid for 15 minutes.', '218377'],
  ['Your Microsoft account security code', 'Please use the following security code for the Microsoft account ja***@svc.test.\n\nSecurity code: 2894\n\nThanks,\nThe Microsoft account team', '2894'],
  ['[GitHub] Please verify your device', 'Verification code: 80219453\n\nIf you did not attempt to sign in, change your password.', '80219453'],
  ['Ihr Bestätigungscode', 'Hallo,\n\nIhr Bestätigungscode lautet: 739204\n\nDer Code ist 10 Minuten gültig.', '739204'],
  ['Dein Anmeldecode für Shop24', 'Gib diesen Code ein, um dich anzumelden: 4412', '4412'],
  ['Sicherheitscode: 661092', null, '661092'],
  ['Votre code de vérification', 'Bonjour,\n\nVotre code de vérification est : 553 201\n\nCe code expire dans 10 minutes.', '553201'],
  ['Code de confirmation Leboncoin', "Voici votre code : 8D3K9Q\nNe le communiquez à personne.", '8D3K9Q'],
  ['Tu código de verificación', 'Hola,\nTu código de verificación es 447120. Caduca en 5 minutos.', '447120'],
  ['Código de acceso', 'Utiliza el código 9051 para iniciar sesión.', '9051'],
  ['Seu código de verificação', 'Olá! Seu código de verificação é: 302918\nNão compartilhe este código.', '302918'],
  ['Código Nubank', 'Use o código 771244 para confirmar.', '771244'],
  ['Il tuo codice di verifica', 'Ciao,\nil tuo codice di verifica è 650813. Scade tra 10 minuti.', '650813'],
  ['Codice OTP', 'Codice: 9X4TB7', '9X4TB7'],
  ['Код подтверждения', 'Здравствуйте!\nВаш код подтверждения: 481516\nНикому не сообщайте этот код.', '481516'],
  ['Ваш код для входа — 2342', null, '2342'],
  ['【淘宝】验证码', '您的验证码是：382910，5分钟内有效，请勿泄露。', '382910'],
  ['验证码 602233', null, '602233'],
  ['認証コードのお知らせ', '認証コード：719004\n有効期限は10分です。', '719004'],
  ['Your Uber code', 'Your Uber code: 4821. Never share this code.', '4821'],
  ['Your one-time passcode', 'Passcode 91827364 — valid for 30 seconds.', '91827364'],
  ['Two-factor authentication', 'Your 2FA code is 550 119.', '550119'],
  ['Login attempt', 'Someone tried to sign in. If it was you, enter TAN 739115 to confirm.', '739115'],
  ['Verify your email for Notion', 'Your temporary login code: 9Q2-R7X\nOr copy and paste this URL into your browser.', '9Q2R7X'],
  ['Welcome to Acme!', 'Hi there,\n\nThanks for joining. Order history, invoices and more await.\n\nTo finish, enter your verification code 884201 in the app.', '884201'],
  ['Order #100234 – please verify', 'Before we ship order #100234, confirm your phone with code 66231.', '66231'],
  ['Reset your password', 'Use code 3019 to reset your password. It expires in 1 hour.', '3019'],
];

/** Mail that has numbers but no verification code. */
const WITHOUT_CODE: [string | null, string | null][] = [
  ['Your order #123456 has shipped', 'Tracking number: 1Z999AA10123456784\nExpected delivery 12.05.2026.'],
  ['Invoice INV-2026-0042', 'Amount due: $1,499.00 by 2026-12-01. Thank you for your business.'],
  ['Black Friday: 40% off everything', 'Use promo code SAVE2026 at checkout. Offer ends 29/11/2026.'],
  ['Your tracking code', 'Your tracking code is JJD000390007823451. Track it at the carrier website.'],
  ['Meeting on 14 March 2026', 'Let us meet at 10:30 in room 4021. Call me at +49 30 1234 5678 if late.'],
  ['Happy new year 2027!', 'Thanks for a great 2026. See you in 2027.'],
  ['Receipt from Coffee House', 'Total 4.50 EUR\nCard ending 4242\nTerminal 88817'],
  ['Ihre Bestellung 4711-0815', 'Vielen Dank für Ihre Bestellung. Bestellnummer: 40123987. Rechnungsbetrag 59,90 €.'],
  ['Votre commande n° 558812', 'Merci pour votre commande. Montant : 129,00 €. Livraison prévue le 03/12/2026.'],
  ['Tu pedido 778812 está en camino', 'Número de seguimiento: 9400111899223856. Precio 39,99 €.'],
  ['Seu pedido 99812 foi enviado', 'Código de rastreio: BR123456789BR. Valor R$ 120,00.'],
  ['Il tuo ordine 550913', 'Totale 79,00 €. Consegna prevista il 02.12.2026.'],
  ['Ваш заказ 771234 отправлен', 'Сумма заказа 4990 ₽. Трек-номер 80081234567890.'],
  ['您的订单 20261124 已发货', '订单金额 ¥299。快递单号 SF1234567890。'],
  ['Newsletter: the 2026 product roadmap', 'Version 4.2.1 ships in Q3. 15000 teams already use it.'],
  ['Quarterly report', 'Revenue grew to 120000 USD in 2026, up 12% from 2025.'],
  ['Your flight LH4021', 'Flight LH4021 departs at 07:45 from gate B12. Booking reference: ABC123.'],
  ['Discount code inside', 'Your discount code: WELCOME10. Valid until 31.12.2026.'],
  ['Call us', 'Questions? Call 0800 123 4567 or +1 (555) 010-9999. Our office is at 221B Baker Street.'],
  ['Password changed', 'Your password was changed on 2026-11-23 at 22:14 UTC. If this was not you, contact support.'],
  ['QR code for your ticket', 'Show the QR code at the entrance. Seat 14, row 22.'],
  ['Your ZIP code', 'We updated your ZIP code to 94105.'],
  [null, 'Error code 0x80070005 occurred while installing update KB5021233.'],
  ['Weekly digest', 'You have 12 new messages and 1534 followers. Read more at https://example.com/p/48213.'],
  ['Rabattcode für dich', 'Dein Gutscheincode: HERBST25 – gültig bis 30.11.2026.'],
  ['Hello', null],
  [null, null],
  ['The code review is done', 'I looked at your code. Three comments, nothing blocking.'],
  ['Receipt #20261124-0915', 'Paid $49.99 with Visa ending 1881 on Nov 24, 2026.'],
];

describe('findVerificationCode', () => {
  it('has at least 40 cases, both ways', () => {
    expect(WITH_CODE.length + WITHOUT_CODE.length).toBeGreaterThanOrEqual(40);
    expect(WITH_CODE.length).toBeGreaterThanOrEqual(20);
    expect(WITHOUT_CODE.length).toBeGreaterThanOrEqual(20);
  });

  it.each(WITH_CODE)('finds the code in %j / %j', (subject, text, code) => {
    expect(findVerificationCode(subject, text)).toBe(code);
  });

  it.each(WITHOUT_CODE)('finds no code in %j / %j', (subject, text) => {
    expect(findVerificationCode(subject, text)).toBeNull();
  });

  it('stays fast on large text', () => {
    const text = `${'word 12345 code '.repeat(50_000)}`;
    const start = performance.now();
    findVerificationCode('x'.repeat(10_000), text);
    expect(performance.now() - start).toBeLessThan(100);
  });
});

/**
 * The code word in the subject, the code in the text (CONTRACT §16, rule 3 of verification-code.ts):
 * [subject, text, expected code or null]. The negatives have a code word in the subject and an order
 * number, price, date, year, phone number, tracking number or postal code in the text.
 */
const SUBJECT_WORD_TEXT_CODE: [string, string, string | null][] = [
  ['Your verification code', 'Use 482913 to sign in.', '482913'],
  ['Ваш код подтверждения', 'Введите 482913 для входа.', '482913'],
  ['Ihr Bestätigungscode', 'Hallo Jana,\n\nbitte gib 482913 in der App ein, um dich anzumelden.\n\nDein Shop24-Team', '482913'],
  ['Tu código de acceso', 'Hola Lucía:\nIntroduce 730418 para iniciar sesión. Caduca en 10 minutos.', '730418'],
  ['Votre code de connexion', 'Bonjour,\n\nSaisissez 615 204 pour vous connecter.\nCe message expire dans 15 minutes.', '615204'],
  ['Il tuo codice di accesso', 'Inserisci 903417 nell’app per accedere.', '903417'],
  ['Seu código de verificação', 'Olá! Digite 448210 para confirmar seu e-mail.', '448210'],
  ['您的验证码', '请使用 482913 登录。5分钟内有效。', '482913'],
  ['認証コードのお知らせ', 'ログインするには 271845 を入力してください。有効期限は10分です。', '271845'],
  ['[네이버] 인증번호 안내', '로그인하려면 아래 숫자를 입력하세요.\n\n590317\n\n본인이 요청하지 않았다면 무시하세요.', '590317'],
  ['Instagram 인증 코드', '590317을(를) 입력하여 로그인하세요.', '590317'],
  ['Ο κωδικός επαλήθευσης σας', 'Χρησιμοποιήστε το 482913 για να συνδεθείτε.', '482913'],
  ['Slack confirmation code', 'Enter 4H7-K2P in your open browser window.', '4H7K2P'],
  ['Your Acme verification code', 'Hi Sam,\n\nThanks for your order! Use 720551 to sign in and see it.', '720551'],
  ['Your code', 'Use 482913 to sign in. Never share this code with anyone.', '482913'],
  ['Your verification code', 'Your order 558812 has shipped.', null],
  ['Ihr Bestätigungscode', 'Ihre Bestellnummer: 40123987. Rechnungsbetrag 59,90 €.', null],
  ['Код подтверждения', 'Сумма заказа 4990 ₽. Трек-номер 80081234567890.', null],
  ['Ваш код', 'Ваш номер телефона +7 921 555 0199 подтверждён.', null],
  ['Your security code', 'Questions? Call 0800 123 4567 or +1 (555) 010-9999.', null],
  ['Verify your email', 'Thanks for joining Acme on 24 May 2026. Welcome aboard!', null],
  ['Your one-time passcode', 'Happy new year 2027!', null],
  ['Your verification code', 'Total: 1499 CHF, paid with the card ending 4242.', null],
  ['Your verification code', 'Your customer number is 48213920.', null],
  ['Verify your address', 'We will ship to Hauptstraße 5, 10115 Berlin.', null],
  ['Verify your new address', '1600 Amphitheatre Parkway, Mountain View, CA 94043', null],
  ['Votre code de confirmation', 'Livraison au 12 rue de Rivoli, 75001 Paris.', null],
  ['Tu código de verificación', 'Tu pedido 778812 está en camino. Número de seguimiento: 9400111899223856.', null],
  ['Il tuo codice', 'Il tuo ordine 550913 è stato spedito il 02.12.2026.', null],
  ['您的验证码', '您的订单 20261124 已发货。', null],
  ['認証コード', 'ご注文番号 558812 の商品を発送しました。', null],
  ['인증 코드', '주문번호 558812 배송이 시작되었습니다.', null],
  ['Ο κωδικός σας', 'Η παραγγελία 558812 στάλθηκε.', null],
  ['[acme/api] Code review requested', 'Anna requested your review on PR 4821.', null],
  ['Your tracking code', 'Your parcel 48213920 is on its way.', null],
  ['Welcome to Acme', 'Use 482913 to sign in.', null],
];

describe('findVerificationCode: the code word in the subject, the code in the text', () => {
  it('has at least 12 cases, both ways, in several scripts', () => {
    expect(SUBJECT_WORD_TEXT_CODE.filter(([, , code]) => code !== null).length).toBeGreaterThanOrEqual(12);
    expect(SUBJECT_WORD_TEXT_CODE.filter(([, , code]) => code === null).length).toBeGreaterThanOrEqual(12);
  });

  it.each(SUBJECT_WORD_TEXT_CODE)('%j / %j gives %j', (subject, text, code) => {
    expect(findVerificationCode(subject, text)).toBe(code);
  });

  it('looks in the opening of the text only (its first 500 characters)', () => {
    const filler = `${'Thanks for being with us. '.repeat(11)}\n`;
    expect(filler.length).toBeLessThan(480);
    expect(2 * filler.length).toBeGreaterThan(500);
    expect(findVerificationCode('Your verification code', `${filler}Use 482913 to sign in.`)).toBe('482913');
    expect(findVerificationCode('Your verification code', `${filler}${filler}Use 482913 to sign in.`)).toBeNull();
  });

  it('reads an HTML-only message the same way', () => {
    expect(codeOfMail('Your verification code', null, '<html><head><style>p{color:red}</style></head><body><p>Use <b>482913</b> to sign in.</p></body></html>')).toBe('482913');
    expect(codeOfMail('Welcome', null, '<p>Use <b>482913</b> to sign in.</p>')).toBeNull();
  });

  it('does not take a code word qualified by the word after it ("код заказа", "código postal")', () => {
    expect(findVerificationCode(null, 'Код заказа: 558812')).toBeNull();
    expect(findVerificationCode(null, 'Código postal: 28001')).toBeNull();
    expect(findVerificationCode(null, 'Код подтверждения: 558812')).toBe('558812');
  });
});

describe('roughTextOfHtml', () => {
  it('takes tags out, ends lines at block ends, keeps a < that no > follows', () => {
    expect(roughTextOfHtml('<html><head><title>t</title></head><body><p>Your code:</p><div>48 &amp; 12&nbsp;x</div>a < b')).toBe(' Your code:\n 48 & 12 x\na < b');
    expect(roughTextOfHtml('one<br/>two<BR>three<brx>four</h2>five')).toBe('one\ntwo\nthree four\nfive');
  });
});

// Linear time (CONTRACT §16): hostile input in every script must not cost more than its size.
/** Pieces hostile input is made of: long runs of letters in many scripts, digits, separators, tags, code words. */
const PIECES = [
  'a', 'Z', 'я', 'Ж', 'ω', 'Σ', '码', '验', 'コ', 'ー', '한', '드', 'ا', 'क्', 'ก', 'é', 'e\u0301', '😀',
  '1', '0', ' ', '\t', '\n', '-', '.', ':', '/', '#', '€', '<', '>', '&nbsp;', '<br', '</p', '< a',
  'code ', 'Code: ', 'code\n\n', 'pin ', 'PIN 4821 ', '2FA ', '2fa', 'codecode', 'код', 'кодкод', 'κωδικ', 'ΚΩΔΙΚΌΣ ', '验证码', '코드', 'コード',
  'one-time passcode ', 'one one ', 'promo code 1234 ', 'промокод ', 'order ', 'Bestellnummer: 1234 ', '1234 ', '482 913 ', 'A1B2 ', 'a1',
  '12.', '. ', '4821 order. ', 'x1-', '#1234 ',
];
const LARGE = 64 * 1024;

/** A string of up to `max` characters: a few pieces, each repeated many times. */
const hostile = (max: number) =>
  fc
    .array(fc.tuple(fc.constantFrom(...PIECES), fc.integer({ min: 1, max })), { minLength: 1, maxLength: 4 })
    .map((runs) => runs.map(([piece, n]) => piece.repeat(Math.ceil(n / piece.length))).join('').slice(0, max));

/**
 * CPU milliseconds of `f`, the best of `times` runs. CPU time, not wall time: on a loaded machine the
 * process waits for a core, which is not work done; the best run is the one least disturbed.
 */
function bestOf(times: number, f: () => unknown): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < times; i += 1) {
    const start = process.cpuUsage();
    f();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

/** Every way the module reads outside input. */
const READERS: [string, (s: string) => unknown][] = [
  ['subject and text', (s) => findVerificationCode(s, s)],
  ['text after a subject with a code word', (s) => findVerificationCode('Your verification code', s)],
  ['HTML-only message', (s) => codeOfMail('Ваш код', null, s)],
  ['rough text of HTML', (s) => roughTextOfHtml(s)],
];

describe('verification code: linear time', () => {
  it('reads any hostile 64 KB input within 50 ms', () => {
    fc.assert(
      fc.property(fc.oneof({ weight: 4, arbitrary: hostile(LARGE) }, { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 2000 }).map((s) => s.repeat(Math.ceil(LARGE / Math.max(1, s.length))).slice(0, LARGE)) }), (input) => {
        for (const [name, read] of READERS) expect(bestOf(3, () => read(input)), name).toBeLessThan(50);
      }),
      { numRuns: 60, endOnFailure: true },
    );
  });

  // A run of one script is the old worst case (a pattern that backtracked across the run); the
  // sizes stay under what is read (4,000 characters of text, 50,000 of HTML), so the work grows.
  const RUNS: [string, string, number][] = [
    ['Cyrillic letters', 'я', 1000],
    ['Greek letters', 'ω', 1000],
    ['CJK letters', '码', 1000],
    ['Latin letters', 'x', 1000],
    ['Hangul code words', '코드', 1000],
    ['digits', '7', 1000],
    ['spaces', ' ', 1000],
    ['code words with numbers', 'code 1 ', 1000],
    ['unclosed tags', '<', 12_500],
  ];

  it.each(RUNS)('%s: four times the input costs less than eight times the time', (_name, piece, n) => {
    const input = (size: number) => piece.repeat(Math.ceil(size / piece.length)).slice(0, size);
    const small = input(n);
    const large = input(4 * n);
    const readAll = (s: string, reps: number) => () => {
      for (let i = 0; i < reps; i += 1) for (const [, read] of READERS) read(s);
    };
    // Warm the compiler up on both sizes (for at most a second), then repeat enough that the small
    // input takes 5 ms, and take the best of rounds that alternate sizes, so load hits both alike.
    const warm = performance.now();
    for (let i = 0; i < 20 && performance.now() - warm < 1000; i += 1) {
      readAll(small, 1)();
      readAll(large, 1)();
    }
    let reps = 1;
    while (bestOf(1, readAll(small, reps)) < 5 && reps < 1 << 14) reps *= 2;
    let smallBest = Number.POSITIVE_INFINITY;
    let largeBest = Number.POSITIVE_INFINITY;
    for (let round = 0; round < 5; round += 1) {
      smallBest = Math.min(smallBest, bestOf(1, readAll(small, reps)));
      largeBest = Math.min(largeBest, bestOf(1, readAll(large, reps)));
    }
    expect(largeBest / smallBest).toBeLessThan(8);
  });
});
