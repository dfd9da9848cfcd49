/**
 * The one HTML tokenizer and entity decoder for reading outsider mail as text: the links (links.ts) and the
 * rough text the verification code and search are found in (verification-code.ts roughTextOfHtml) both read
 * HTML through `scanHtml`, and decode entities through `decodeEntities`.
 *
 * Bounded in size and time, whatever the input (test/unit/links.test.ts and verification-code.test.ts,
 * "linear time"): at most `maxChars` characters are read, in one left-to-right pass from `<` to `>`; a `<`
 * with no `>` after it makes the rest text (there is no `>` after any later `<` either); a skipped element
 * (comment, style sheet, script, head) is searched forward to its end once, and a missing end stops the scan.
 * No pattern here can backtrack across the input. Pure and import-free, so it runs in the content pool's
 * workers (docs/architecture.md#outsider-bytes-never-run-on-the-event-loop).
 */

/** What the scan hands to its reader, in document order. */
export interface HtmlReader {
  /** Text between tags: `s.slice(from, to)`, never empty. */
  text(s: string, from: number, to: number): void;
  /** A tag: `s[lt]` is `<` and `s[gt]` its `>`. */
  tag(s: string, lt: number, gt: number): void;
  /** Read before each tag: true stops the scan there (a reader that has all it needs). */
  done?(): boolean;
}

export interface HtmlScan {
  /** How much of the input is read at the most. */
  readonly maxChars: number;
  /** Pass over comments, style sheets, scripts and the head (they hold no visible text or links). */
  readonly skipHidden: boolean;
  /** Hand over the text after the last tag too (links do not: an anchor no later tag closes has no label). */
  readonly readTail: boolean;
}

/** How a scan ended: at the end of its input (or when the reader was done), or inside a skipped element that never ends. */
export type HtmlScanEnd = 'end' | 'unclosed';

/** Whether `s` at `i` opens (or closes, with `/`) the named tag: the name is followed by no letter or digit. */
export function tagAt(s: string, i: number, name: string): boolean {
  if (s.slice(i, i + name.length).toLowerCase() !== name) return false;
  const next = s.charCodeAt(i + name.length);
  return !((next >= 48 && next <= 57) || (next >= 65 && next <= 90) || (next >= 97 && next <= 122));
}

const COMMENT_END = /-->/g;
const HIDDEN: [string, RegExp][] = [
  ['style', /<\/style/gi],
  ['script', /<\/script/gi],
  ['head', /<\/head/gi],
];

/** Reads `html` (its first `maxChars` characters) once, handing text and tags to `reader`. */
export function scanHtml(html: string, scan: HtmlScan, reader: HtmlReader): HtmlScanEnd {
  const s = html.length > scan.maxChars ? html.slice(0, scan.maxChars) : html;
  let at = 0;
  while (at < s.length && !(reader.done?.() ?? false)) {
    const lt = s.indexOf('<', at);
    if (lt < 0) {
      if (scan.readTail) reader.text(s, at, s.length);
      break;
    }
    if (lt > at) reader.text(s, at, lt);
    const skipTo = scan.skipHidden ? (s.startsWith('<!--', lt) ? COMMENT_END : HIDDEN.find(([name]) => tagAt(s, lt + 1, name))?.[1]) : undefined;
    if (skipTo) {
      // Searched forward from here only, and passed over: every character is read once.
      skipTo.lastIndex = lt + 1;
      if (!skipTo.test(s)) return 'unclosed';
      at = skipTo.lastIndex;
      continue;
    }
    const gt = s.indexOf('>', lt + 1);
    // No `>` after this `<`: none after any later one either, so the rest is text.
    if (gt < 0) {
      reader.text(s, lt, s.length);
      break;
    }
    reader.tag(s, lt, gt);
    at = gt + 1;
  }
  return 'end';
}

const TEXT_ENTITIES = /&nbsp;|&#160;|&amp;/gi;
const URL_ENTITIES = /&amp;|&#0*38;|&#x0*26;/gi;

/**
 * The entities that matter in mail read as text, decoded; the rest stay as written. In text: the no-break
 * space (a space) and `&amp;`; in a URL written in an attribute: the ampersand in any of its spellings (a
 * space is never part of a URL, so `&nbsp;` stays and is not a URL's).
 */
export function decodeEntities(s: string, where: 'text' | 'url'): string {
  if (!s.includes('&')) return s;
  if (where === 'url') return s.replace(URL_ENTITIES, '&');
  return s.replace(TEXT_ENTITIES, (entity) => (entity.length === 5 ? '&' : ' '));
}
