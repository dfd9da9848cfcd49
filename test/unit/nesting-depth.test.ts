import { describe, expect, it } from 'vitest';
import { nestingDepth } from '../../src/mail/messages/html-nesting.js';

const times = (s: string, n: number) => s.repeat(n);

describe('nestingDepth (the cheap cap before the sanitiser)', () => {
  it('counts real nesting, with void and self-closed tags and closing tags', () => {
    expect(nestingDepth('<div><span>a</span><br><img src=x/><hr/></div>')).toBe(2);
    expect(nestingDepth(`${times('<div>', 1001)}x${times('</div>', 1001)}`)).toBe(1001);
    expect(nestingDepth(times('<div>', 5000), 1000)).toBe(1001); // stops counting past the cap
  });

  it('does not count siblings whose end is implied, as browsers parse them (mail converted from text, long lists, tables)', () => {
    expect(nestingDepth(times('<p>para', 1001))).toBe(0);
    expect(nestingDepth(`<ul>${times('<li>item', 1001)}</ul>`)).toBe(1);
    expect(nestingDepth(`<table>${times('<tr><td>c', 1001)}</table>`)).toBe(1);
    expect(nestingDepth(`<select>${times('<option>o', 1001)}</select>`)).toBe(1);
    expect(nestingDepth(`<div>${times('<p>a</p>', 50)}</div>`)).toBe(1);
  });

  it('skips comments, CDATA and the text of script and style', () => {
    expect(nestingDepth(`<p>hi</p><!--${times('<div>', 1001)}--><div>x</div>`)).toBe(1);
    expect(nestingDepth(`<script>var s = "${times('<div>', 1001)}";</script><b>x</b>`)).toBe(1);
    expect(nestingDepth(`<STYLE>${times('<div>', 1001)}</STYLE>`)).toBe(0);
    expect(nestingDepth(`<![CDATA[${times('<div>', 1001)}]]><i>x</i>`)).toBe(1);
    // an unterminated comment hides the rest, as it does in a browser
    expect(nestingDepth(`<div><!--${times('<div>', 1001)}`)).toBe(1);
  });

  it('stays linear on hostile input (1 MB of opening tags, unterminated comments and scripts)', () => {
    const started = performance.now();
    nestingDepth(times('<a <!-- <script <div ', 50_000));
    nestingDepth(times('<p', 200_000));
    nestingDepth(times('<script>', 100_000));
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
