import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeEntities, type HtmlScan, scanHtml } from '../../src/mail/messages/html-tokens.js';

/** What a scan hands over, as `text:` and `tag:` pieces, in order. */
function tokens(html: string, scan: HtmlScan): { pieces: string[]; end: string } {
  const pieces: string[] = [];
  const end = scanHtml(html, scan, {
    text: (s, from, to) => pieces.push(`text:${s.slice(from, to)}`),
    tag: (s, lt, gt) => pieces.push(`tag:${s.slice(lt, gt + 1)}`),
  });
  return { pieces, end };
}

const VISIBLE: HtmlScan = { maxChars: 1000, skipHidden: true, readTail: true };

describe('scanHtml: the one HTML tokenizer of links and codes', () => {
  it('hands over text and tags in order, and passes over comments, style sheets, scripts and the head', () => {
    // A skipped element ends at its end tag's name: the `>` after it is read as text, as both scanners always did.
    const html = '<head><title>t</title></head><p>Hi <b>you</b></p><!-- x --><style>a{}</style><script>1<2</script>end';
    expect(tokens(html, VISIBLE)).toEqual({
      pieces: ['text:>', 'tag:<p>', 'text:Hi ', 'tag:<b>', 'text:you', 'tag:</b>', 'tag:</p>', 'text:>', 'text:>end'],
      end: 'end',
    });
    expect(tokens('<header>h</header>', VISIBLE).pieces).toEqual(['tag:<header>', 'text:h', 'tag:</header>']);
  });

  it('reads a `<` with no `>` after it, and what follows, as text', () => {
    expect(tokens('a <b>c < d', VISIBLE).pieces).toEqual(['text:a ', 'tag:<b>', 'text:c ', 'text:< d']);
  });

  it('ends inside a skipped element that never ends, and reads the tail only when asked', () => {
    expect(tokens('a<style>b', VISIBLE)).toEqual({ pieces: ['text:a'], end: 'unclosed' });
    expect(tokens('<p>tail', { ...VISIBLE, readTail: false }).pieces).toEqual(['tag:<p>']);
    expect(tokens('<style>a</style>', { ...VISIBLE, skipHidden: false }).pieces).toEqual(['tag:<style>', 'text:a', 'tag:</style>']);
  });

  it('reads at most maxChars characters, and stops when its reader is done', () => {
    expect(tokens('<p>abcdef', { ...VISIBLE, maxChars: 6 }).pieces).toEqual(['tag:<p>', 'text:abc']);
    const seen: string[] = [];
    scanHtml('<a><b><c>', VISIBLE, { text: () => {}, tag: (s, lt, gt) => seen.push(s.slice(lt, gt + 1)), done: () => seen.length >= 2 });
    expect(seen).toEqual(['<a>', '<b>']);
  });

  it('reads 4 MB of hostile HTML in one pass', () => {
    for (const piece of ['<', '<a ', '<!--', '<style>', 'x>', '<b>']) {
      const html = piece.repeat(Math.ceil(4_000_000 / piece.length));
      const start = process.cpuUsage();
      scanHtml(html, { maxChars: Number.POSITIVE_INFINITY, skipHidden: true, readTail: true }, { text: () => {}, tag: () => {} });
      const used = process.cpuUsage(start);
      expect((used.user + used.system) / 1000, piece).toBeLessThan(1000);
    }
  });
});

describe('decodeEntities: the one entity decoder', () => {
  it('decodes the no-break space and the ampersand in text, the ampersand in every spelling in a URL', () => {
    expect(decodeEntities('a&nbsp;b&#160;c&AMP;d&amp;nbsp;&#38;&lt;', 'text')).toBe('a b c&d&nbsp;&#38;&lt;');
    expect(decodeEntities('https://x.example/?a=1&amp;b=2&#038;c=3&#x26;d=4&nbsp;', 'url')).toBe('https://x.example/?a=1&b=2&c=3&d=4&nbsp;');
  });

  it('is the only one: links.ts and verification-code.ts scan no tags and decode no entity of their own', () => {
    for (const file of ['links.ts', 'verification-code.ts']) {
      const source = readFileSync(join(import.meta.dirname, '../../src/mail/messages', file), 'utf8');
      expect(source, file).not.toMatch(/indexOf\('[<>]'|&amp;|&nbsp;|&#/);
    }
  });
});
