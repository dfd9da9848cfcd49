/** HTML nested deeper than a cap is dropped before any parser sees it (sanitize-html's cost grows with depth squared). */

const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);

/** Elements whose end is implied by a sibling (`<p>a<p>b`, list items, table cells, options): they do not nest. */
const IMPLIED_END = new Set(['p', 'li', 'dt', 'dd', 'tr', 'td', 'th', 'option', 'optgroup', 'thead', 'tbody', 'tfoot', 'colgroup', 'caption', 'rb', 'rt', 'rtc', 'rp']);
/** Elements whose content is text, not markup: what looks like tags inside them is skipped. */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'plaintext']);

/**
 * How deeply the HTML nests, counted in one linear pass without a parser: an opening tag (not void,
 * not self-closed, not one whose end is implied by its next sibling) goes one deeper, a closing tag one
 * back; comments, CDATA sections and the text of script, style and the like are skipped. Unclosed tags
 * of sloppy mail only make it overcount, which errs on the safe side; the limit is far above what real
 * mail nests. (Markup inside a quoted attribute value is still counted: a rare miscount, kept because
 * honouring quotes in one pass would let an unclosed quote make the scan quadratic.)
 */
export function nestingDepth(html: string, stopAbove = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let max = 0;
  let lower: string | undefined;
  // The lookahead keeps a long name from being split back letter by letter (quadratic on `<aaaa…` without `>`).
  const token = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)(?![a-zA-Z0-9-])[^<>]*?(\/?)>|<!--|<!\[CDATA\[/g;
  const skipTo = (end: string, from: number): boolean => {
    lower ??= html.toLowerCase();
    const at = lower.indexOf(end, from);
    if (at < 0) return false;
    token.lastIndex = at + end.length;
    return true;
  };
  for (let m = token.exec(html); m; m = token.exec(html)) {
    if (m[0] === '<!--') {
      if (!skipTo('-->', token.lastIndex)) break;
      continue;
    }
    if (m[0] === '<![CDATA[') {
      if (!skipTo(']]>', token.lastIndex)) break;
      continue;
    }
    const name = m[2]!.toLowerCase();
    if (m[1]) {
      if (!IMPLIED_END.has(name)) depth = Math.max(0, depth - 1);
      continue;
    }
    if (m[3] || VOID_ELEMENTS.has(name) || IMPLIED_END.has(name)) continue;
    if (RAW_TEXT.has(name)) {
      if (!skipTo(`</${name}`, token.lastIndex)) break;
      continue;
    }
    depth++;
    if (depth > max) {
      max = depth;
      if (max > stopAbove) return max;
    }
  }
  return max;
}
