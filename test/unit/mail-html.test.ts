import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { blockedRemoteImages, remoteImagesShown, sanitizeMailHtml } from '../../src/mail/messages/mail-html.js';
import { parseRecipients } from '../../src/mail/messages/recipients.js';
import { decodeBase64Strict } from '../../src/mail/messages/base64.js';

/** Classic XSS and tracking payloads; each must come out with nothing that runs or loads. */
const PAYLOADS = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=https://evil.example/x.js></SCRIPT>',
  '<img src=x onerror=alert(1)>',
  '<img src="data:image/png;base64,AAAA" onerror="alert(1)">',
  '<svg onload=alert(1)><circle r=1></svg>',
  '<svg><script>alert(1)</script></svg>',
  '<a href="javascript:alert(1)">x</a>',
  '<a href="JaVaScRiPt:alert(1)">x</a>',
  '<a href=" javascript:alert(1)">x</a>',
  '<a href="jav&#x09;ascript:alert(1)">x</a>',
  '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>',
  '<a href="java\nscript:alert(1)">x</a>',
  '<a href="vbscript:msgbox(1)">x</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>',
  '<iframe src="https://evil.example"></iframe>',
  '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<math href="javascript:alert(1)">x</math>',
  '<style>@import "https://evil.example/x.css";</style><p>t</p>',
  '<style>body{background:url(https://evil.example/t.png)}</style>',
  '<meta http-equiv="refresh" content="0;url=https://evil.example">',
  '<base href="https://evil.example/">',
  '<form action="https://evil.example"><input name=p><button>go</button></form>',
  '<object data="https://evil.example/x.swf"></object>',
  '<embed src="https://evil.example/x.swf">',
  '<div style="width: expression(alert(1))">x</div>',
  '<div style="background-image: url(javascript:alert(1))">x</div>',
  '<div style="background:url(https://tracker.example/p.gif)">x</div>',
  '<p style="color: red; behavior: url(x.htc)">x</p>',
  '<body onload=alert(1)>x</body>',
  '<details open ontoggle=alert(1)>x</details>',
  '<video><source onerror=alert(1)></video>',
  '<audio src=x onerror=alert(1)>',
  '<img src="https://tracker.example/pixel.gif" width=1 height=1>',
  '<img src="//tracker.example/pixel.gif">',
  '<img srcset="https://tracker.example/a.png 1x">',
  '<table background="https://tracker.example/bg.png"><tr><td>x</td></tr></table>',
  '<link rel=stylesheet href="https://evil.example/x.css">',
  '<a href="https://ok.example" onmouseover="alert(1)">ok</a>',
  '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
  '<textarea><script>alert(1)</script></textarea>',
  '<<script>script>alert(1)<</script>/script>',
  '<a href="javascript&colon;alert(1)">x</a>',
  '<isindex action=javascript:alert(1) type=image>',
  '<marquee onstart=alert(1)>x</marquee>',
  '<template><script>alert(1)</script></template>',
  '<xmp><script>alert(1)</script></xmp>',
];

/** What must never survive: tags that run or load, event handlers, script URLs, remote sources, CSS that runs or loads. */
function executableParts(html: string): string[] {
  const found: string[] = [];
  const checks: [string, RegExp][] = [
    ['script tag', /<\s*script/i],
    ['active tag', /<\s*(iframe|object|embed|form|input|button|meta|base|link|svg|math|isindex|frame|frameset|applet|template|textarea)\b/i],
    ['event handler', /<[^>]*\son[a-z]+\s*=/i],
    ['script URL', /(javascript|vbscript|livescript)\s*:/i],
    ['data: link', /href\s*=\s*["']?\s*data:/i],
    ['remote source', /\s(src|srcset|background|poster|data)\s*=\s*["']?\s*(https?:|\/\/)/i],
    ['css expression', /expression\s*\(/i],
    ['css url', /url\s*\(/i],
    ['css import', /@import/i],
    ['svg data image', /data:image\/svg/i],
  ];
  for (const [name, re] of checks) if (re.test(html)) found.push(name);
  return found;
}

describe('mail HTML sanitiser', () => {
  it.each(PAYLOADS)('leaves nothing executable or remote in %s', (payload) => {
    const out = sanitizeMailHtml(payload);
    expect(executableParts(out), out).toEqual([]);
  });

  it('has a corpus of at least 25 payloads', () => {
    expect(PAYLOADS.length).toBeGreaterThanOrEqual(25);
  });

  it('keeps ordinary mail formatting, safe styles and links', () => {
    const out = sanitizeMailHtml(
      '<table width="100%" cellpadding="4"><tr><td style="color: #333; font-size: 14px" align="center"><a href="https://shop.example/x?a=1&amp;b=2">Shop</a> <font color="red">sale</font></td></tr></table>',
    );
    expect(out).toBe(
      '<table width="100%" cellpadding="4"><tr><td align="center" style="color: #333; font-size: 14px"><a href="https://shop.example/x?a=1&amp;b=2" target="_blank" rel="noopener noreferrer nofollow">Shop</a> <font color="red">sale</font></td></tr></table>',
    );
  });

  it('shows inline cid images from the message as data: URIs and drops unknown ones', () => {
    const inline = new Map([['logo@x', 'data:image/png;base64,iVBORw0KGgo=']]);
    expect(sanitizeMailHtml('<img src="cid:logo@x" alt="logo"><img src="cid:other" alt="o">', inline)).toBe(
      '<img src="data:image/png;base64,iVBORw0KGgo=" alt="logo" />',
    );
  });

  it('inlines each image in full once and its repeats within 1 MiB, so a message cannot multiply its own bytes', () => {
    const photo = `data:image/png;base64,${'A'.repeat(700_000)}`;
    const spacer = 'data:image/gif;base64,R0lGODlhAQABAAAAACw=';
    const inline = new Map([
      ['photo', photo],
      ['spacer', spacer],
    ]);
    const out = sanitizeMailHtml(`${'<img src="cid:spacer">'.repeat(40)}${'<img src="cid:photo" alt="p">'.repeat(120)}`, inline);
    // Every spacer, the photo once and once more (1.4 MB, not the 84 MB of 120 copies).
    expect(out.split(spacer).length - 1).toBe(40);
    expect(out.split(photo).length - 1).toBe(2);
    expect(out.length).toBeLessThan(2 * photo.length + 40 * (spacer.length + 20) + 1000);
  });
});

const layout = (name: string) => readFileSync(new URL(`../fixtures/mail-layouts/${name}.html`, import.meta.url), 'utf8');
const LAYOUTS = ['newsletter-button', 'receipt-table', 'coloured-cells', 'responsive-columns', 'verification-code'];

describe('mail HTML fidelity (CONTRACT §14)', () => {
  it.each(LAYOUTS)('keeps the layout of %s and nothing that runs or fetches', (name) => {
    const out = sanitizeMailHtml(layout(name), new Map([['logo@acme', 'data:image/png;base64,iVBORw0KGgo=']]));
    expect(executableParts(out), out).toEqual([]);
    expect(out).not.toMatch(/<(script|form|input|button|iframe|link|meta|title)\b/i);
    // remote addresses are left only where a reader's consent can give them back: blocked images
    expect(out.replace(/ data-svc-remote-src="[^"]*"/g, '')).not.toMatch(/https?:\/\/(fonts|ads|img|track|t)\./);
  });

  it('keeps style sheets with their media queries, classes and the button colours', () => {
    const out = sanitizeMailHtml(layout('newsletter-button'));
    expect(out).toContain('.btn { display: inline-block; background-color: #1a56db; color: #ffffff !important;');
    expect(out).toContain('@media only screen and (max-width: 620px)');
    expect(out).toContain('<a class="btn" id="cta" href="https://app.northwind.example/start?utm_source=email"');
    expect(out).toContain('style="background-color:#1a56db;color:#ffffff;padding:14px 28px;border-radius:6px;display:inline-block"');
    // the hero keeps its colour without its remote picture; the sender's body background survives as a div
    expect(out).toContain('.hero { background: #0b1f44 none no-repeat center / cover;');
    expect(out).toContain('<div style="margin:0;background-color:#f2f4f8">');
    expect(out).not.toContain('@import');
    expect(out).not.toContain('pwned');
  });

  it('keeps coloured cells with dark text, and fonts without their remote files', () => {
    const cells = sanitizeMailHtml(layout('coloured-cells'));
    expect(cells).toContain('<td id="warn" bgcolor="#fde68a" style="background-color:#fde68a;color:#1f2937">');
    expect(cells).toContain('<td id="dark" style="background:#111827;color:#f9fafb">');
    expect(cells).toContain('<font color="#fbbf24">');
    const columns = sanitizeMailHtml(layout('responsive-columns'));
    expect(columns).toContain('src: none format("woff2")');
    expect(columns).toContain('@media screen and (max-width: 480px)');
    expect(columns).toContain('<style media="screen">');
  });

  it('holds remote images back in data-svc-remote-src, counts them, and gives them back only when asked', () => {
    const out = sanitizeMailHtml(layout('responsive-columns'));
    expect(blockedRemoteImages(out)).toBe(2);
    expect(out).toContain('<img width="240" alt="Leather boots" data-svc-remote-src="https://img.example-cdn.com/p/boots.jpg" />');
    expect(out).not.toMatch(/\ssrc=/);
    const shown = remoteImagesShown(out);
    expect(shown).toContain('<img width="240" alt="Leather boots" src="https://img.example-cdn.com/p/boots.jpg" />');
    expect(blockedRemoteImages(shown)).toBe(0);
    // the tracking pixel is a remote image like any other: blocked until allowed
    expect(blockedRemoteImages(sanitizeMailHtml(layout('newsletter-button')))).toBe(2);
  });

  it('never lets a forged or non-http remote source through', () => {
    const out = sanitizeMailHtml(
      '<img data-svc-remote-src="javascript:alert(1)" alt="a"><img src="ftp://x.example/a.png" alt="b"><p data-svc-remote-src="https://x">p</p><p title=\' data-svc-remote-src="javascript:x\'>q</p>',
    );
    expect(out).toBe('<p>p</p><p title=" data-svc-remote-src=&quot;javascript:x">q</p>');
    expect(remoteImagesShown(out)).toBe(out);
    expect(blockedRemoteImages(out)).toBe(0);
  });

  it('makes CSS inert: escapes, comments, image-set and expression cannot fetch or run', () => {
    const out = sanitizeMailHtml(
      '<style>.a{background:u\\72l(https://e.example/x.png)} .b{background-image:image-set("https://e.example/y.png" 1x)} .c{width:expression(alert(1))} /* x */ .d{color:red}</style><p style="background:URL( \'https://e.example/z.png\' ) red">x</p>',
    );
    expect(out).not.toMatch(/url\s*\(|image-set\s*\(|expression\s*\(/i);
    expect(out).toContain('.d{color:red}');
    expect(out).toContain('style="background:none red"');
  });
});

describe('recipient parsing', () => {
  it('takes bare, named, quoted and listed addresses, trimmed, lower-cased and unique', () => {
    expect(parseRecipients(' A@X.test , "Doe, Jane" <jane@x.test>; Bob <BOB@x.test>, a@x.test, nonsense, <>')).toEqual(['a@x.test', 'jane@x.test', 'bob@x.test']);
  });
});

describe('strict base64', () => {
  it('accepts padded and line-wrapped base64 and refuses everything else', () => {
    expect(decodeBase64Strict('aGVs\r\nbG8=')?.toString()).toBe('hello');
    expect(decodeBase64Strict('')?.length).toBe(0);
    for (const bad of ['aGVsbG8', 'aGVsbG8==', 'a-_b', '@@@@', 'aGVs=G8=']) expect(decodeBase64Strict(bad)).toBeUndefined();
  });
});
