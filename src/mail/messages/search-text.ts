/**
 * What mailbox search indexes and looks for (docs/api.md, "Search"). Both sides go through `searchText`:
 * Unicode NFKC, lower case (by JavaScript, so a database in the C locale still matches Cyrillic or Greek
 * case-insensitively), every character that is not a letter, digit or mark a space, and each Han, kana or
 * CJK character a word of its own (those scripts put no spaces between words), so a query matches a
 * run of them anywhere. Linear: one pass of each replacement, no pattern that can backtrack.
 */

import { createHash } from 'node:crypto';
import { roughTextOfHtml } from './verification-code.js';

/** Of a message's text, this much is indexed (searching is about its words, which come first). */
export const SEARCH_TEXT_CHARS = 32_000;
/** Words of a query beyond this are ignored. */
export const MAX_QUERY_TERMS = 10;

const NOT_A_WORD_CHAR = /[^\p{L}\p{N}\p{M}]+/gu;
const CJK_CHAR = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])/gu;
const SPACES = / {2,}/g;

/** Words of `s`, separated by one space, lower case. */
export function searchText(s: string | null | undefined, maxChars = SEARCH_TEXT_CHARS): string {
  if (!s) return '';
  return s
    .slice(0, maxChars)
    .normalize('NFKC')
    .toLowerCase()
    .replace(NOT_A_WORD_CHAR, ' ')
    .replace(CJK_CHAR, ' $1 ')
    .replace(SPACES, ' ')
    .trim();
}

/**
 * One term of a query: a word matched as a prefix ("conf" finds "confirm"), or a run of CJK characters
 * (and a word glued to it) matched as a phrase: those characters next to one another.
 */
export interface SearchTerm {
  readonly tokens: readonly string[];
  readonly prefix: boolean;
}

/** The terms of a query: every one must match, in any order. Empty: the query has no words. */
export function searchTerms(q: string): SearchTerm[] {
  const terms: SearchTerm[] = [];
  for (const word of q.slice(0, 500).split(/\s+/)) {
    const tokens = searchText(word).split(' ').filter((t) => t.length > 0);
    if (tokens.length === 0) continue;
    terms.push({ tokens, prefix: tokens.length === 1 });
    if (terms.length === MAX_QUERY_TERMS) break;
  }
  return terms;
}

/** What search indexes of a message's content: its subject and its text (an HTML-only message: its HTML's text). */
export function searchTextOfMail(subject: string | null, text: string | null, html: string | null): string {
  const body = text ?? (html ? roughTextOfHtml(html.slice(0, 4 * SEARCH_TEXT_CHARS)) : '');
  return `${searchText(subject)} ${searchText(body)}`.trim();
}

/** The length of a mailbox's search key (mailboxSearchKey): fixed, so a key and the word after it never run together ambiguously. */
export const MAILBOX_KEY_CHARS = 12;

/**
 * SQLite's search index is scoped to the mailbox (docs/architecture.md#work-that-grows-with-stored-data): every
 * word of a copy is indexed glued to its mailbox's key, so a query's terms (and a prefix's expansion) read only
 * that mailbox's entries, whatever svc stores. The key: hex of a hash of the address (letters and digits, one
 * token to SQLite's tokenizer); two mailboxes sharing one only share index entries, the query still filters by
 * address.
 */
export function mailboxSearchKey(address: string): string {
  return createHash('sha256').update(address).digest('hex').slice(0, MAILBOX_KEY_CHARS);
}

/** A search document (words separated by one space, as searchText writes them) with each word glued to `key`. */
export function keyedDocument(key: string, document: string): string {
  const words = document.replace(SPACES, ' ').trim();
  return words === '' ? '' : key + words.replaceAll(' ', ` ${key}`);
}
