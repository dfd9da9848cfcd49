/**
 * Finds the verification code of a message (CONTRACT §14): a code word ("code", "OTP", "PIN",
 * "verification", "Bestätigungscode", "código", "код", "验证码", …) with a code next to it: 4–8 digits
 * ("482913", "482 913", "482-913") or 4–10 capitals and digits with at least one of each ("AB12CD").
 * The subject is tried first, then the text (its first few KB: codes sit at the top).
 *
 * What must not pass for a code: order, invoice and tracking numbers, promo and postal codes, dates,
 * prices, years, phone numbers. So a candidate must sit right next to a code word (same sentence),
 * a code word qualified by such a word ("tracking code", "Gutscheincode") does not count, and a
 * candidate glued to other digits, separators or currencies ("12.05.2024", "$1499", "+49 30 1234")
 * is not one. Pure and linear in its input (bounded), so it can run at intake for every message.
 */

const TEXT_SCAN_CHARS = 4000;
const AFTER_WINDOW = 80;
const BEFORE_WINDOW = 40;

// Code words. A word ending in one of the first group ("Bestätigungscode", "Sicherheitscode") counts too.
const CODE_WORD = new RegExp(
  [
    '\\p{L}*(?:code|kode|codes|codigo|código|códigos|codice|codici|código)',
    'otp',
    'pin',
    'tan',
    'passcode',
    'one[- ]time (?:password|passcode)',
    '2fa',
    'verification',
    'verify',
    'einmalpasswort',
    'mot de passe (?:à usage unique|temporaire)',
    'contraseña (?:de un solo uso|temporal)',
    'senha (?:temporária|de uso único)',
    'код\\p{L}*',
    'пароль',
    '验证码',
    '校验码',
    '动态码',
    '确认码',
    '驗證碼',
    '認証コード',
    '確認コード',
    '인증번호',
  ].join('|'),
  'giu',
);

// A code word qualified by one of these is about something else.
const NOT_A_CODE_WORD =
  /^(?:bar|qr|promo|rabatt|gutschein|aktions|post|zip|source|quell|discount|coupon|voucher|gift|referral|country|area|error|status|fehler|product|produkt|tracking|sendungs|dress|de|encode|decode|unicode|geocode|shortcode|barcode|qrcode|zipcode|postcode|promocode|opcode|kodeks)$/i;
const NEGATIVE_BEFORE =
  /(?:tracking|promo|promotional|discount|coupon|voucher|gift|referral|postal|zip|country|area|error|status|order|invoice|product|item|sku|reference|booking|bar|qr|source|dress|rabatt|gutschein|bestell|rechnung|sendungs|commande|facture|réduction|promoción|descuento|pedido|cupón|cupom|desconto|sconto|ordine|промо|заказ|скидк|优惠|订单|折扣|快递|运单)\p{L}*[\s-]*(?:number|nummer|numéro|número|numero|номер|#|no\.?|nr\.?)?[\s:#-]*$/iu;
// The word right before the candidate must not say that it is an amount, an order or a date.
const NEGATIVE_LEAD = /(?:order|invoice|tracking|ticket|case|account|phone|tel|fax|call|room|flight|nr\.?|no\.?|#|€|\$|£|¥|usd|eur|gbp|rub|₽|до|from|until|since|on|am|le|el|il|de)\s*[:#]?\s*$/iu;

// A candidate: digits (optionally split in two groups) or capitals and digits; not glued to other
// letters, digits, separators, currencies or percent signs.
const CANDIDATE =
  /(?<![A-Za-z0-9.,/+\-$€£¥#@_])(?:G-)?(\d{3}[ -]\d{3}|[A-Z0-9]{3}-[A-Z0-9]{3}|\d{4,8}|[A-Z0-9]{4,10})(?![A-Za-z0-9_@]|[.,/-]\d|\s?(?:%|€|\$|£|¥|₽|元|руб|usd|eur|gbp|kg|km|mb|gb|px)|\s\d)/giu;

const KEYWORD_ONLY = /^(?:\d?FA|OTP|PIN|TAN|CODE)$/i;
const YEAR = /^(?:19|20)\d\d$/;

function pick(window: string, last: boolean): string | null {
  let found: string | null = null;
  CANDIDATE.lastIndex = 0;
  for (let m = CANDIDATE.exec(window); m; m = CANDIDATE.exec(window)) {
    const raw = m[1]!;
    const value = raw.replace(/[ -]/g, '');
    const digits = /^\d+$/.test(value);
    if (!digits) {
      // Capitals and digits: both present, and written in capitals in the mail.
      if (raw !== raw.toUpperCase() || !/\d/.test(value) || !/[A-Z]/.test(value) || KEYWORD_ONLY.test(value)) continue;
    }
    if (NEGATIVE_LEAD.test(window.slice(Math.max(0, m.index - 12), m.index))) continue;
    if (digits && YEAR.test(value) && !/[:：]\s*$/.test(window.slice(0, m.index))) continue;
    found = value;
    if (!last) return found;
  }
  return found;
}

/** The part of `text` after a code word, up to the end of its sentence (a line break may come first: "code:\n\n123456"). */
function afterWindow(text: string, from: number): string {
  let window = text.slice(from, from + AFTER_WINDOW);
  const sentence = window.search(/[.!?。！？](?=[ \t]+\S)/u);
  if (sentence >= 0) window = window.slice(0, sentence);
  // The code may stand alone in the next paragraph; the one after that is about something else.
  return window.split(/\n[ \t]*\n/).slice(0, 2).join('\n');
}

/** The part of `text` before a code word, back to the start of its line or sentence ("482913 is your code"). */
function beforeWindow(text: string, to: number): string {
  const window = text.slice(Math.max(0, to - BEFORE_WINDOW), to);
  const cut = Math.max(window.lastIndexOf('\n'), window.search(/[.!?。](?=\s)[^.!?。]*$/u));
  return cut >= 0 ? window.slice(cut + 1) : window;
}

function findIn(text: string): string | null {
  CODE_WORD.lastIndex = 0;
  const words: { index: number; end: number }[] = [];
  for (let m = CODE_WORD.exec(text); m; m = CODE_WORD.exec(text)) {
    const word = m[0];
    const start = m.index;
    const end = start + word.length;
    // A whole word only: not inside another word ("opinion", "captain"), and not "barcode", "tracking code".
    const prev = text[start - 1] ?? '';
    const next = text[end] ?? '';
    const cjk = /[\p{Script=Han}\p{Script=Hangul}\p{Script=Katakana}]/u.test(word);
    if (!cjk && (/[\p{L}\d]/u.test(prev) || /[\p{L}\d]/u.test(next))) continue;
    const lower = word.toLowerCase();
    const prefix = lower.replace(/(?:codes?|kode|códigos?|codigo|codice|codici)$/u, '');
    if (prefix !== lower && prefix.length > 0 && NOT_A_CODE_WORD.test(prefix)) continue;
    if (NOT_A_CODE_WORD.test(lower)) continue;
    if (NEGATIVE_BEFORE.test(text.slice(Math.max(0, start - 30), start))) continue;
    words.push({ index: start, end });
  }
  for (const w of words) {
    const after = pick(afterWindow(text, w.end), false);
    if (after) return after;
  }
  for (const w of words) {
    const before = beforeWindow(text, w.index);
    if (NEGATIVE_BEFORE.test(before) || /(?:order|invoice|tracking|bestell|commande|pedido|ordine|заказ|订单)/iu.test(before)) continue;
    const found = pick(before, true);
    if (found) return found;
  }
  return null;
}

/** The verification code of a message, or null. */
export function findVerificationCode(subject: string | null, text: string | null): string | null {
  return (subject ? findIn(subject.slice(0, 500)) : null) ?? (text ? findIn(text.slice(0, TEXT_SCAN_CHARS)) : null);
}

/** Text of an HTML-only message, roughly (tags out, head and style sheets out), for finding its code. */
export function roughTextOfHtml(html: string): string {
  let s = html.slice(0, 50_000);
  const lower = s.toLowerCase();
  const headEnd = lower.indexOf('</head>');
  if (headEnd >= 0) s = s.slice(headEnd + 7);
  return s
    .replace(/<(?:br|\/p|\/div|\/tr|\/h\d|\/li)\b[^>]*>/gi, '\n')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&nbsp;|&#160;/gi, ' ')
    .replace(/&amp;/gi, '&')
    .replace(/[ \t]+/g, ' ');
}

/** The code of a message as stored at intake: from its subject, its text, or else its HTML's text. */
export function codeOfMail(subject: string | null, text: string | null, html: string | null): string | null {
  return findVerificationCode(subject, text) ?? (!text && html ? findVerificationCode(null, roughTextOfHtml(html)) : null);
}
