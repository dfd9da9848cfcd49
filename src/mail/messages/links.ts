/**
 * The links of a message and the one a person would click to confirm (docs/api.md, "Links"): `links` are the
 * distinct http(s) URLs of its HTML links, then of its text, in order, at most MAX_LINKS; `verification_link`
 * is the link whose label (the anchor's text, or the words before a URL in the text), or whose URL, says
 * verify, confirm, activate, magic link, sign in or reset the password, in one of the languages below, and
 * that is not an unsubscribe or preferences link; the best scored of the first MAX_CANDIDATES, else null.
 * "Sign in" and "log in" alone count only for a URL that carries a token (a magic link, not the site's
 * home page in a newsletter's header).
 *
 * Linear in its input whatever it is (test/unit/links.test.ts, "linear time"): the HTML is read in one
 * left-to-right pass by html-tokens.ts scanHtml, an attribute is looked
 * for in at most MAX_TAG characters of its tag, URLs in text are matched by one character class with no
 * nested repetition, and every keyword test reads a window of bounded size. Pure, so it runs in the content
 * pool's workers (content-worker.ts) with the verification code.
 *
 * A link a machine may not follow (safe-url.ts isFollowableUrl: an inward IP literal, localhost, .local,
 * .internal) is neither in `links` nor the verification link (docs/api.md#links): agents reading mail over the API
 * or MCP follow them, and one to 169.254.169.254 would steer them inward.
 */

import { isFollowableUrl } from '../../platform/safe-url.js';
import { decodeEntities, scanHtml, tagAt } from './html-tokens.js';

export const MAX_LINKS = 20;
const MAX_CANDIDATES = 200;
const HTML_SCAN_CHARS = 200_000;
const TEXT_SCAN_CHARS = 100_000;
const MAX_TAG = 4096;
const MAX_URL = 2048;
const LABEL_CHARS = 200;
const CONTEXT_CHARS = 160;

export interface MailLinks {
  readonly links: string[];
  readonly verificationLink: string | null;
}

interface Candidate {
  readonly url: string;
  /** The anchor's own text (HTML) or null (a URL in text). */
  readonly label: string | null;
  /** The text just before the link. */
  readonly context: string;
}

/** Words that say "click to confirm" (lower case; matched inside the label, so stems are enough). */
const CONFIRM_WORDS = [
  'verify', 'verification', 'confirm', 'activate', 'activation', 'validate', 'magic link', 'magic-link', 'reset password', 'reset your password',
  'complete registration', 'complete your registration', 'finish signing up',
  'bestätig', 'verifizier', 'aktivier', 'passwort zurücksetzen', 'registrierung abschließen',
  'confirmer', 'confirmez', 'vérifie', 'activer', 'activez', 'valider', 'validez', 'réinitialiser',
  'confirmar', 'confirma', 'verificar', 'verifica', 'activar', 'activa tu', 'ativar', 'ative', 'restablecer', 'redefinir',
  'conferma', 'attiva', 'reimposta',
  'bevestig', 'verifieer', 'activeer',
  'potwierdź', 'zweryfikuj', 'aktywuj',
  'doğrula', 'onayla', 'etkinleştir',
  'подтверд', 'активир', 'верифиц', 'сбросить пароль', 'восстановить пароль',
  'επιβεβαί', 'ενεργοποί',
  '验证', '確認', '确认', '激活', '驗證', '啟用', '启用', '重置密码', '重設密碼',
  '認証', '有効化', '本登録', '再設定',
  '인증', '확인', '활성화', '재설정',
];

/** "Sign in" words: a link to sign in, which is a verification link only when its URL carries a token. */
const SIGN_IN_WORDS = [
  'sign in', 'sign-in', 'signin', 'log in', 'log-in', 'login',
  'anmelden', 'einloggen', 'se connecter', 'connexion', 'iniciar sesión', 'inicia sesión', 'entrar', 'accedi', 'inloggen', 'zaloguj', 'giriş yap',
  'войти', 'вход', 'σύνδεση', '登录', '登入', '登錄', 'ログイン', '로그인',
];

/** Words in a URL's path or query that name a confirmation. */
const URL_WORDS = ['verify', 'verification', 'confirm', 'activate', 'activation', 'validate', 'magic', 'reset', 'password', 'bestaetig', 'bestatig', 'confirmar', 'verificar'];

/** Not a confirmation, whatever else it says: leaving a list, preferences, legal pages, the web view. */
const NEVER_WORDS = [
  'unsubscribe', 'opt-out', 'optout', 'opt out', 'preferences', 'manage subscription', 'privacy', 'terms of', 'view in browser', 'view online', 'web version',
  'abmelden', 'abbestellen', 'datenschutz', 'désinscri', 'desinscri', 'désabonner', 'darse de baja', 'cancelar suscripción', 'annulla iscrizione', 'disiscriviti',
  'uitschrijven', 'отписаться', 'отписки', '退订', '取消订阅', '配信停止', '수신거부', '구독 취소',
];
const NEVER_URL_WORDS = ['unsubscribe', 'optout', 'opt-out', 'preferences', 'privacy', 'list-manage.com/profile'];

/** A path segment or query value of 16+ URL-safe characters: a token. */
function carriesToken(url: string): boolean {
  let run = 0;
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return false;
  for (let i = start; i < url.length; i += 1) {
    const c = url.charCodeAt(i);
    const safe = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 45 || c === 95 || c === 46;
    run = safe ? run + 1 : 0;
    if (run >= 16) return true;
  }
  return false;
}

const hasAny = (haystack: string, words: readonly string[]) => words.some((w) => haystack.includes(w));

/** How much a candidate looks like the confirmation link; 0 or less: not one. */
function score(c: Candidate): number {
  const label = (c.label ?? '').toLowerCase();
  const context = c.context.toLowerCase();
  const url = c.url.toLowerCase();
  const afterHost = url.slice(url.indexOf('/', url.indexOf('//') + 2) + 1 || url.length);
  if (hasAny(label, NEVER_WORDS) || hasAny(afterHost, NEVER_URL_WORDS)) return 0;
  // A URL in text: the words before it are its label ("Confirm your address:" and the URL).
  const ownLabel = c.label === null ? context : label;
  let s = 0;
  if (hasAny(ownLabel, CONFIRM_WORDS)) s += 3;
  else if (hasAny(ownLabel, SIGN_IN_WORDS) && carriesToken(c.url)) s += 3;
  if (hasAny(afterHost, URL_WORDS)) s += 2;
  if (c.label !== null && hasAny(context, CONFIRM_WORDS)) s += 1;
  // The label or the URL must say it; words near a link alone do not make it one.
  return s >= 2 ? s : 0;
}

const HTTP_SCHEME = /^https?:\/\//i;

/** An http(s) URL as written in an attribute or text (its ampersands decoded: decodeEntities), or null. */
function httpUrl(raw: string): string | null {
  const url = decodeEntities(raw.trim(), 'url');
  if (url.length > MAX_URL || url.length < 10) return null;
  const scheme = HTTP_SCHEME.exec(url);
  if (!scheme) return null;
  // A host after the scheme, and no white space or control character inside.
  const rest = url.slice(scheme[0].length);
  if (rest.length === 0 || rest[0] === '/') return null;
  for (let i = 0; i < url.length; i += 1) if (url.charCodeAt(i) <= 32) return null;
  return url;
}

/** The `href` of an anchor's opening tag (at most MAX_TAG characters of it), or null. */
function hrefOf(tag: string): string | null {
  const m = /\shref\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i.exec(tag.slice(0, MAX_TAG));
  return m ? (m[1] ?? m[2] ?? m[3] ?? null) : null;
}

/** The text of a label or its context: entities decoded, white space folded. */
const decodeText = (s: string) => decodeEntities(s, 'text').replace(/\s+/g, ' ');

const LINK_SCAN = { maxChars: HTML_SCAN_CHARS, skipHidden: true, readTail: false } as const;

/** The anchors of an HTML document, in order: URL, own text, and the text before them. One pass (html-tokens.ts). */
function htmlCandidates(html: string, out: Candidate[]): void {
  let recent = '';
  let open: { url: string | null; context: string; label: string } | null = null;
  const closeAnchor = () => {
    if (open?.url) out.push({ url: open.url, label: decodeText(open.label).trim(), context: decodeText(open.context) });
    open = null;
  };
  const addText = (piece: string) => {
    recent = (recent + piece).slice(-CONTEXT_CHARS);
    if (open && open.label.length < LABEL_CHARS) open.label = (open.label + piece).slice(0, LABEL_CHARS);
  };
  const end = scanHtml(html, LINK_SCAN, {
    text: (s, from, to) => addText(s.slice(from, to)),
    tag: (s, lt, gt) => {
      if (tagAt(s, lt + 1, 'a')) {
        closeAnchor();
        const href = hrefOf(s.slice(lt + 2, Math.min(gt, lt + 2 + MAX_TAG)));
        open = { url: href === null ? null : httpUrl(href), context: recent, label: '' };
      } else if (tagAt(s, lt + 1, '/a')) closeAnchor();
      else addText(' ');
    },
    done: () => out.length >= MAX_CANDIDATES,
  });
  // A style sheet, script or comment that never ends hides the anchor before it too.
  if (end === 'end') closeAnchor();
}

/** Characters that end a URL in text. */
const URL_IN_TEXT = /https?:\/\/[^\s<>"'`{}|\\^[\]]+/gi;

/** Punctuation at a URL's end that belongs to the sentence (a full stop after it, or the parenthesis around it). */
function trimTrailing(url: string): string {
  let end = url.length;
  for (;;) {
    const c = url[end - 1];
    if (c === '.' || c === ',' || c === ';' || c === ':' || c === '!' || c === '?' || c === '*' || c === '_') end -= 1;
    else if (c === ')' && !url.slice(0, end).includes('(')) end -= 1;
    else break;
  }
  return url.slice(0, end);
}

const SENTENCE_ENDS = new Set(['.', '!', '?', '。', '！', '？']);

/** The last sentence of a (short) text: what was said just before a URL ("…code is 482913. Need help?" and then a help link). */
function lastSentence(s: string): string {
  const trimmed = s.trimEnd();
  for (let i = trimmed.length - 2; i >= 0; i -= 1) {
    if (!SENTENCE_ENDS.has(trimmed[i]!)) continue;
    const next = trimmed[i + 1]!;
    if (next === ' ' || next === '\n' || next === '\t' || trimmed[i]! > '\u3000') return trimmed.slice(i + 1);
  }
  return trimmed;
}

/** The URLs of a text, in order, each with the words before it (its line and the line before). */
function textCandidates(text: string, out: Candidate[]): void {
  const s = text.slice(0, TEXT_SCAN_CHARS);
  URL_IN_TEXT.lastIndex = 0;
  for (let m = URL_IN_TEXT.exec(s); m && out.length < MAX_CANDIDATES; m = URL_IN_TEXT.exec(s)) {
    const url = httpUrl(trimTrailing(m[0]));
    if (url === null) continue;
    const before = s.slice(Math.max(0, m.index - CONTEXT_CHARS), m.index);
    // The sentence or lines just before the URL; an earlier URL ends it (it had its own words).
    const previousUrl = before.lastIndexOf('http');
    out.push({ url, label: null, context: lastSentence(decodeText(previousUrl >= 0 ? before.slice(previousUrl).replace(/^\S*/, '') : before)) });
  }
}

/** The links of a message and its verification link. */
export function linksOfMail(text: string | null, html: string | null): MailLinks {
  const candidates: Candidate[] = [];
  if (html) htmlCandidates(html, candidates);
  if (text && candidates.length < MAX_CANDIDATES) textCandidates(text, candidates);
  const links: string[] = [];
  const seen = new Set<string>();
  let best: { url: string; score: number } | null = null;
  const followable = new Map<string, boolean>();
  for (const c of candidates) {
    let ok = followable.get(c.url);
    if (ok === undefined) {
      ok = isFollowableUrl(c.url);
      followable.set(c.url, ok);
    }
    if (!ok) continue;
    if (!seen.has(c.url)) {
      seen.add(c.url);
      if (links.length < MAX_LINKS) links.push(c.url);
    }
    const s = score(c);
    if (s > 0 && (best === null || s > best.score)) best = { url: c.url, score: s };
  }
  return { links, verificationLink: best?.url ?? null };
}
