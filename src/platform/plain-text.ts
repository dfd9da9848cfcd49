/**
 * Text that people and providers read from svc's files (docs/api.md#csv-exports,
 * docs/api.md#payouts): what is stripped from names and cells, and what a spreadsheet would take for
 * the start of a formula. Proved by test/unit/csv.test.ts.
 */

/**
 * Characters that change how text shows without being seen: controls (C0, DEL, C1), format characters (the bidi
 * embeddings, overrides and isolates U+202A-U+202E and U+2066-U+2069, zero-width space and joiners U+200B-U+200D,
 * the word joiner U+2060, the byte order mark U+FEFF, the soft hyphen, ...) and the line and paragraph separators.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\u2028\u2029]/gu;

/** The same but TAB, LF and CR: a note in a CSV cell may have lines (the cell is quoted). */
const INVISIBLE_BUT_LINES = /(?![\t\n\r])[\p{Cc}\p{Cf}\u2028\u2029]/gu;

/** Line and tab characters, and the next-line and line/paragraph separators: each run of them ends a word. */
const LINE_BREAKS = /[\t\n\v\f\r\u0085\u2028\u2029]+/g;

/**
 * A name (an affiliate's, an account holder's): one line of what can be seen. A line break becomes a space, so
 * "Ann\nYour payout…" reads as the two words it showed as, not "AnnYour payout…" (mail-recipient-cap.test.ts).
 */
export function stripInvisible(text: string): string {
  return text.replace(LINE_BREAKS, ' ').replace(INVISIBLE, '');
}

/** Free text kept with its lines and tabs, the rest of stripInvisible's characters removed. */
export function stripInvisibleButLines(text: string): string {
  return text.replace(INVISIBLE_BUT_LINES, '');
}

/**
 * What a spreadsheet reads as a formula when a cell begins with it, after any leading spaces: `=`, `+`, `-`, `@`,
 * TAB and CR, their full-width forms (＝ ＋ － ＠, which spreadsheets in CJK locales fold to ASCII), their small
 * forms (﹦ ﹢ ﹣) and the minus sign U+2212.
 */
const FORMULA_START = /^[ \u00a0\u3000]*[=+\-@\t\r\uff1d\uff0b\uff0d\uff20\ufe66\ufe62\ufe63\u2212]/;

export function startsLikeFormula(text: string): boolean {
  return FORMULA_START.test(text);
}

/** A text cell as a spreadsheet must show it: invisible characters stripped, and a formula start made text by a leading `'`. */
export function neutraliseCell(text: string): string {
  const visible = stripInvisibleButLines(text);
  return startsLikeFormula(visible) ? `'${visible}` : visible;
}
