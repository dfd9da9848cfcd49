import { describe, expect, it } from 'vitest';
import { findVerificationCode } from '../../src/mail/verification-code.js';

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
