import { describe, expect, it } from 'vitest';
import { sanitizeMailHtml } from '../../src/mail/mail-html.js';
import { parseRecipients } from '../../src/mail/recipients.js';
import { decodeBase64Strict } from '../../src/mail/base64.js';

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
    ['active tag', /<\s*(iframe|object|embed|form|input|button|meta|base|link|style|svg|math|isindex|frame|frameset|applet|template|textarea)\b/i],
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
      '<table width="100%" cellpadding="4"><tr><td style="color:#333;font-size:14px" align="center"><a href="https://shop.example/x?a=1&amp;b=2" target="_blank" rel="noopener noreferrer nofollow">Shop</a> <font color="red">sale</font></td></tr></table>',
    );
  });

  it('shows inline cid images from the message as data: URIs and drops unknown ones', () => {
    const inline = new Map([['logo@x', 'data:image/png;base64,iVBORw0KGgo=']]);
    expect(sanitizeMailHtml('<img src="cid:logo@x" alt="logo"><img src="cid:other" alt="o">', inline)).toBe(
      '<img src="data:image/png;base64,iVBORw0KGgo=" alt="logo" />',
    );
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
