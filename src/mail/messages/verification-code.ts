/**
 * Finds the verification code of a message (docs/api.md#html-and-the-verification-code): a code word ("code",
 * "OTP", "PIN", "verification", "Bestätigungscode", "código", "код", "κωδικός", "验证码", "認証コード", "인증번호", …)
 * and a code: 4–8 digits ("482913", "482 913", "482-913") or 4–10 capitals and digits with at least
 * one of each ("AB12CD"). Where it is looked for, first hit wins:
 *
 * 1. the subject (its first 500 characters): a code word with a code next to it (same sentence);
 * 2. the text (its first 4,000 characters: codes sit at the top), the same way;
 * 3. when the subject has a code word and neither found a code ("Your verification code" /
 *    "Use 482913 to sign in.", "您的验证码" / "请使用 482913 登录。"): the first candidate in the
 *    text's opening (its first 500 characters) that passes every filter below and, because the
 *    evidence is weaker, these too: never a year; not right after another number or a two-capital
 *    token ("0800 123 4567", "CA 94043", "PR 4821"); not before a capitalised word on its line
 *    ("10115 Berlin", "1600 Amphitheatre") or a currency code ("1499 CHF"); not after a word that
 *    says what the number is (total, price, number, card ending, room, PLZ, сумма, 金额, …); not in
 *    a sentence about an order, invoice, delivery or tracking (in every script listed there).
 *    Proved, both ways, by "the code word in the subject, the code in the text" in the unit tests.
 *
 * An HTML-only message is searched in its rough text (roughTextOfHtml).
 *
 * What must not pass for a code: order, invoice and tracking numbers, promo and postal codes, dates,
 * prices, years, phone numbers. So a code word qualified by such a word ("tracking code",
 * "Gutscheincode", "код заказа") does not count, and a candidate glued to other digits, separators
 * or currencies ("12.05.2024", "$1499", "+49 30 1234") is not one.
 *
 * Linear in its input, whatever the input (test/unit/verification-code.test.ts, "linear time"): code
 * words are found in one pass over the letter runs (no pattern that can backtrack across a run, as
 * `\p{L}*code` did, quadratic in a run of Cyrillic or Han), at most MAX_CODE_WORDS of them are tried,
 * every other check reads a window of bounded size around a code word or a candidate, and the HTML is
 * read in one left-to-right pass (html-tokens.ts). Pure, so it can run in a worker
 * (docs/architecture.md#outsider-bytes-never-run-on-the-event-loop).
 */

import { decodeEntities, scanHtml } from './html-tokens.js';

const SUBJECT_SCAN_CHARS = 500;
const TEXT_SCAN_CHARS = 4000;
const HTML_SCAN_CHARS = 50_000;
const OPENING_CHARS = 500;
const AFTER_WINDOW = 80;
const BEFORE_WINDOW = 40;
const QUALIFIER_CHARS = 30;
const SENTENCE_CHARS = 80;
/** Code words tried per subject or text: a code sits next to one of the first; more only cost time ("pin pin pin …"). */
const MAX_CODE_WORDS = 50;

// Code words. A letter run ending in one of CODE_SUFFIXES ("Bestätigungscode", "Sicherheitscode") or
// starting with one of CODE_PREFIXES ("кодом", "κωδικό") counts; so do the whole words and phrases.
// A code word must be a whole word; the CJK ones may sit inside a run of letters (no spaces there).
const CODE_SUFFIXES = ['code', 'kode', 'codigo', 'código', 'codice', 'codici'];
const CODE_PREFIXES = ['код', 'κωδικ', 'κώδικ'];
const CODE_WORDS = new Set(['otp', 'pin', 'tan', 'passcode', 'verification', 'verify', 'einmalpasswort', 'пароль']);
const PHRASE_STARTS = new Set(['one', 'mot', 'contraseña', 'senha']);
const PHRASE = /one[- ]time (?:password|passcode)|mot de passe (?:à usage unique|temporaire)|contraseña (?:de un solo uso|temporal)|senha (?:temporária|de uso único)/iuy;
const CJK_CODE_WORDS = [
  '验证码', '校验码', '动态码', '确认码', '认证码', '安全码', '验证代码', '动态密码',
  '驗證碼', '認證碼', '確認碼', '動態碼', '驗證代碼',
  '認証コード', '確認コード', '認証番号', 'ワンタイムパスワード', 'コード',
  '인증번호', '코드',
];
/** A run with a character from U+3000 on may hold a CJK code word; Latin, Greek and Cyrillic runs have none. */
const MAY_BE_CJK = /[\u3000-\uffff]/;
/** CJK code words by their first UTF-16 unit (a number: no string made per character read), longest first. */
const CJK_BY_FIRST = new Map<number, string[]>();
for (const w of [...CJK_CODE_WORDS].sort((a, b) => b.length - a.length)) CJK_BY_FIRST.set(w.charCodeAt(0), [...(CJK_BY_FIRST.get(w.charCodeAt(0)) ?? []), w]);

// A code word qualified by one of these is about something else.
const NOT_A_CODE_WORD =
  /^(?:bar|qr|promo|rabatt|gutschein|aktions|post|zip|source|quell|discount|coupon|voucher|gift|referral|country|area|error|status|fehler|product|produkt|tracking|sendungs|dress|de|encode|decode|unicode|geocode|shortcode|barcode|qrcode|zipcode|postcode|promocode|opcode|kodeks)$/i;
const NEGATIVE_BEFORE =
  /(?:tracking|promo|promotional|discount|coupon|voucher|gift|referral|postal|zip|country|area|error|status|order|invoice|product|item|sku|reference|booking|bar|qr|source|dress|rabatt|gutschein|bestell|rechnung|sendungs|commande|facture|réduction|promoción|descuento|pedido|cupón|cupom|desconto|sconto|ordine|промо|заказ|скидк|почтов|трек|штрих|ταχυδρομικ|εκπτωτικ|κουπόν|παραγγελ|优惠|订单|折扣|快递|运单|邮政|推荐|クーポン|割引|注文|郵便|追跡|バー|ソース|プロモーション|쿠폰|할인|프로모션|주문|우편|배송|소스|바(?=[\s-]*$))\p{L}*[\s-]*(?:number|nummer|numéro|número|numero|номер|#|no\.?|nr\.?)?[\s:#-]*$/iu;
// "code review", "код заказа" (order code), "código postal": the word after says what the code is.
const NEGATIVE_AFTER =
  /^[ \t-]*(?:review|of conduct|editor|snippet|postal|promo|de descuento|de réduction|ошибк|заказ|товар|купон|скидк|стран|регион|город)/iu;
// The word right before the candidate must not say that it is an amount, an order or a date.
const NEGATIVE_LEAD = /(?:order|invoice|tracking|ticket|case|account|phone|tel|fax|call|room|flight|nr\.?|no\.?|#|€|\$|£|¥|usd|eur|gbp|rub|₽|до|from|until|since|on|am|le|el|il|de)\s*[:#]?\s*$/iu;

// A candidate: digits (optionally split in two groups) or capitals and digits; not glued to other
// letters, digits, separators, currencies or percent signs.
const CANDIDATE =
  /(?<![A-Za-z0-9.,/+\-$€£¥#@_])(?:G-)?(\d{3}[ -]\d{3}|[A-Z0-9]{3}-[A-Z0-9]{3}|\d{4,8}|[A-Z0-9]{4,10})(?![A-Za-z0-9_@]|[.,/-]\d|\s?(?:%|€|\$|£|¥|₽|元|руб|usd|eur|gbp|kg|km|mb|gb|px)|\s\d)/giu;

const KEYWORD_ONLY = /^(?:\d?FA|OTP|PIN|TAN|CODE)$/i;
const YEAR = /^(?:19|20)\d\d$/;
const LETTER_OR_DIGIT = /[\p{L}\p{M}\d]/u;

// The opening's stricter filters (rule 3 above).
/** Part of a grouped number ("0800 123 4567") or after a two-capital token ("CA 94043", "PR 4821"). */
const OPENING_GROUPED_BEFORE = /(?:\d[ \t]|(?<!\p{L})\p{Lu}{2}[ \t]+)$/u;
/** A word saying what the number is, right before it (", is" and punctuation allowed in between). */
const OPENING_LEAD =
  /(?:(?<!\p{L})(?:total|amount|price|sum|balance|betrag|summe|preis|gesamt|montant|prix|solde|precio|importe|saldo|valor|totale|prezzo|importo|сумма|цена|итого|баланс|стоимост|ποσό|τιμή|σύνολο|number|nummer|numéro|número|numero|номер|αριθμός|id|user|customer|member|client|kunde|ref|version|room|seat|gate|row|floor|zimmer|ending|endet|terminant|terminada|plz|zip|индекс)|金额|价格|合计|余额|编号|金額|価格|合計|番号|郵便|邮编|합계|금액|가격|번호|우편)\p{L}*[^\p{L}\d\n]{0,4}(?:(?:is|ist|est|es|è|é|—)[^\p{L}\d\n]{0,2})?$/iu;
/** A capitalised word on the same line ("10115 Berlin"), or a currency code or sign after it. */
const OPENING_AFTER = /^(?:[ \t]+\p{Lu}\p{Ll}|\s?(?:[A-Z]{3}(?![A-Za-z])|rub|руб|zł|kr|₩|₹|円|元))/u;
/** A sentence about an order, an invoice, a delivery or tracking. */
const ORDER_CONTEXT =
  /(?<!\p{L})(?:order(?![ \t]+to(?!\p{L}))|invoice|receipt|tracking|shipment|shipped|delivery|parcel|bestell|rechnung|sendung|lieferung|commande|facture|livraison|colis|pedido|factura|envío|seguimiento|ordine|fattura|spedizione|consegna|encomenda|заказ|сч[её]т|доставк|посылк|отправлен|трек|παραγγελ|τιμολόγ|αποστολ)|订单|发票|發票|快递|运单|物流|注文|請求|配送|発送|주문|배송|영수증|송장/iu;
/** Where a sentence ends: a full stop with space after it, a CJK full stop, a line break. */
const SENTENCE_END = /[.!?](?=\s)|[。！？\n]/gu;

interface Span {
  index: number;
  end: number;
}

function letterOrDigit(ch: string | undefined): boolean {
  return ch !== undefined && LETTER_OR_DIGIT.test(ch);
}

/** Whether a whole run of letters (lower case) is a code word by itself. */
function isCodeWord(lower: string): boolean {
  return CODE_WORDS.has(lower) || CODE_PREFIXES.some((p) => lower.startsWith(p)) || CODE_SUFFIXES.some((s) => lower.endsWith(s));
}

/** A code word qualified by a word before or after it ("tracking code", "Gutscheincode", "code review"). */
function qualified(text: string, word: Span): boolean {
  const lower = text.slice(word.index, word.end).toLowerCase();
  const suffix = CODE_SUFFIXES.find((s) => lower.endsWith(s));
  const prefix = suffix ? lower.slice(0, lower.length - suffix.length) : '';
  if (prefix.length > 0 && NOT_A_CODE_WORD.test(prefix)) return true;
  if (NOT_A_CODE_WORD.test(lower)) return true;
  if (NEGATIVE_BEFORE.test(text.slice(Math.max(0, word.index - QUALIFIER_CHARS), word.index))) return true;
  return NEGATIVE_AFTER.test(text.slice(word.end, word.end + QUALIFIER_CHARS));
}

/** Adds the CJK code words inside one run of letters, in order, not overlapping, up to the limit. One pass over the run. */
function addCjkCodeWords(text: string, run: string, offset: number, found: Span[]): void {
  for (let i = 0; i < run.length && found.length < MAX_CODE_WORDS; ) {
    const word = CJK_BY_FIRST.get(run.charCodeAt(i))?.find((w) => run.startsWith(w, i));
    if (!word) {
      i += 1;
      continue;
    }
    const span = { index: offset + i, end: offset + i + word.length };
    if (!qualified(text, span)) found.push(span);
    i += word.length;
  }
}

/**
 * The first MAX_CODE_WORDS code words of `text`, in order, qualified ones left out. One pass over its runs of letters: each
 * run is a word (checked whole), the start of a phrase (one sticky match of bounded length), or searched
 * for CJK code words (one pass over the run).
 */
function codeWordsIn(text: string): Span[] {
  const found: Span[] = [];
  const runs = /[\p{L}\p{M}]+/gu;
  for (let m = runs.exec(text); m && found.length < MAX_CODE_WORDS; m = runs.exec(text)) {
    const start = m.index;
    const end = start + m[0].length;
    const lower = m[0].toLowerCase();
    let word: Span | null = null;
    if (isCodeWord(lower)) word = { index: start, end };
    else if (lower === 'fa' && text[start - 1] === '2') word = { index: start - 1, end };
    else if (PHRASE_STARTS.has(lower)) {
      PHRASE.lastIndex = start;
      const phrase = PHRASE.exec(text);
      if (phrase) {
        word = { index: start, end: start + phrase[0].length };
        runs.lastIndex = word.end;
      }
    }
    if (word) {
      // A whole word only: not inside another word or number ("opinion", "captain", "123code").
      if (!letterOrDigit(text[word.index - 1]) && !letterOrDigit(text[word.end]) && !qualified(text, word)) found.push(word);
      continue;
    }
    if (MAY_BE_CJK.test(m[0])) addCjkCodeWords(text, m[0], start, found);
  }
  return found;
}

/** The value of a candidate if it may be a code (capitals written as capitals, no amount or order before it). */
function codeValue(window: string, m: RegExpExecArray): string | null {
  const raw = m[1]!;
  const value = raw.replace(/[ -]/g, '');
  if (!/^\d+$/.test(value)) {
    // Capitals and digits: both present, and written in capitals in the mail.
    if (raw !== raw.toUpperCase() || !/\d/.test(value) || !/[A-Z]/.test(value) || KEYWORD_ONLY.test(value)) return null;
  }
  if (NEGATIVE_LEAD.test(window.slice(Math.max(0, m.index - 12), m.index))) return null;
  return value;
}

/** The first (or last) candidate in a window next to a code word. */
function pick(window: string, last: boolean): string | null {
  let found: string | null = null;
  CANDIDATE.lastIndex = 0;
  for (let m = CANDIDATE.exec(window); m; m = CANDIDATE.exec(window)) {
    const value = codeValue(window, m);
    if (value === null) continue;
    if (YEAR.test(value) && !/[:：]\s*$/.test(window.slice(0, m.index))) continue;
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

/** A code next to one of the code words of `text`: after one first, then before one. */
function findNear(text: string, words: readonly Span[]): string | null {
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

/** The sentence around text[start, end), at most SENTENCE_CHARS either side. */
function sentenceAround(text: string, start: number, end: number): string {
  const from = Math.max(0, start - SENTENCE_CHARS);
  const before = text.slice(from, start);
  let cut = 0;
  SENTENCE_END.lastIndex = 0;
  for (let m = SENTENCE_END.exec(before); m; m = SENTENCE_END.exec(before)) cut = m.index + 1;
  const after = text.slice(end, end + SENTENCE_CHARS);
  SENTENCE_END.lastIndex = 0;
  const stop = SENTENCE_END.exec(after);
  return before.slice(cut) + text.slice(start, end) + (stop ? after.slice(0, stop.index) : after);
}

/** Rule 3: the first candidate in the text's opening that passes every filter, the stricter ones too. */
function firstInOpening(text: string): string | null {
  const opening = text.slice(0, OPENING_CHARS);
  CANDIDATE.lastIndex = 0;
  for (let m = CANDIDATE.exec(opening); m; m = CANDIDATE.exec(opening)) {
    const end = m.index + m[0].length;
    const value = codeValue(opening, m);
    if (value === null || YEAR.test(value)) continue;
    const before = opening.slice(Math.max(0, m.index - QUALIFIER_CHARS), m.index);
    if (NEGATIVE_BEFORE.test(before) || OPENING_GROUPED_BEFORE.test(before) || OPENING_LEAD.test(before)) continue;
    if (OPENING_AFTER.test(text.slice(end, end + 8))) continue;
    if (ORDER_CONTEXT.test(sentenceAround(text, m.index, end))) continue;
    return value;
  }
  return null;
}

/** The verification code of a message, or null. */
export function findVerificationCode(subject: string | null, text: string | null): string | null {
  const head = subject ? subject.slice(0, SUBJECT_SCAN_CHARS) : '';
  const body = text ? text.slice(0, TEXT_SCAN_CHARS) : '';
  const subjectWords = codeWordsIn(head);
  return findNear(head, subjectWords) ?? findNear(body, codeWordsIn(body)) ?? (subjectWords.length > 0 ? firstInOpening(body) : null);
}

/** A tag that ends a line of text: `<br>`, `</p>`, `</div>`, `</tr>`, `</h1>`…, `</li>`. */
const LINE_BREAK_TAG = /^(?:br|\/p|\/div|\/tr|\/h\d|\/li)(?![A-Za-z0-9_])/i;
const ROUGH_SCAN = { maxChars: Infinity, skipHidden: false, readTail: true } as const;

/**
 * Text of an HTML-only message, roughly (tags out, head and style sheets out), for finding its code.
 * One left-to-right pass of html-tokens.ts scanHtml over its first HTML_SCAN_CHARS characters after the head.
 */
export function roughTextOfHtml(html: string): string {
  let s = html.slice(0, HTML_SCAN_CHARS);
  const headEnd = s.search(/<\/head>/i);
  if (headEnd >= 0) s = s.slice(headEnd + 7);
  const parts: string[] = [];
  scanHtml(s, ROUGH_SCAN, {
    text: (t, from, to) => parts.push(t.slice(from, to)),
    tag: (t, lt, gt) => parts.push(LINE_BREAK_TAG.test(t.slice(lt + 1, Math.min(gt, lt + 6))) ? '\n' : ' '),
  });
  return decodeEntities(parts.join(''), 'text').replace(/[ \t]+/g, ' ');
}

/** The code of a message as stored at intake: from its subject, its text, or else its HTML's text. */
export function codeOfMail(subject: string | null, text: string | null, html: string | null): string | null {
  const found = findVerificationCode(subject, text);
  if (found !== null || text || !html) return found;
  return findVerificationCode(subject, roughTextOfHtml(html));
}
