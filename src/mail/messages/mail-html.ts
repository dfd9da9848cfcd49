import sanitizeHtml from 'sanitize-html';

/**
 * Mail HTML is hostile input, and it should still read like the sender meant (CONTRACT §14). It is
 * sanitised with sanitize-html: the layout stays (tables, inline `style` attributes, `<style>` sheets
 * with their media queries, classes, colours); removed is only what runs or fetches: scripts, event
 * handlers, forms, frames, objects, meta/base/link, javascript:/data: links, and every remote resource
 * (CSS `url()`, `image-set()`, `@import`, so fonts and backgrounds too). Remote images are kept out of
 * `src`: their URL moves to `data-svc-remote-src`, so the message loads nothing from outside until its
 * reader allows it for that message (`remoteImagesShown`). The display route serves the document under
 * a sandboxing CSP, so a sanitiser miss runs nothing and fetches nothing either.
 *
 * It runs once, when a message is stored, in the content pool's workers (content-pool.ts, CONTRACT §16).
 */

/** cid → data: URI of the message's own inline images, so they show without loading anything. */
export type InlineImages = ReadonlyMap<string, string>;

export type MailSanitizer = (html: string, inline?: InlineImages) => string;

/** The attribute a blocked remote image keeps its URL in (http/https only). */
export const REMOTE_IMAGE_ATTRIBUTE = 'data-svc-remote-src';

/** The sanitiser policy, given the sanitize-html function. */
export function createMailSanitizer(lib: typeof sanitizeHtml): MailSanitizer {
  const REMOTE = 'data-svc-remote-src';
  const contentId = (id: string) => id.trim().replace(/^<|>$/g, '').toLowerCase();

  /**
   * CSS that can neither fetch nor run: comments and escapes (which could spell `url(`) go, every
   * function that loads something becomes the inert `blocked(` (the browser drops the declaration),
   * `@import` rules go, old script hooks are renamed. Linear in the input.
   */
  const cleanCss = (css: string): string => {
    let out = '';
    let at = 0;
    for (;;) {
      const open = css.indexOf('/*', at);
      if (open < 0) {
        out += css.slice(at);
        break;
      }
      out += `${css.slice(at, open)} `;
      const close = css.indexOf('*/', open + 2);
      if (close < 0) break;
      at = close + 2;
    }
    return out
      .replace(/\\[0-9a-f]{1,6}[ \t\n]?|\\[\s\S]?/gi, '')
      .replace(/@import\b[^;{}]*;?/gi, '')
      // `background: url(x) #0057ff` keeps its colour as `background: none #0057ff`.
      .replace(/url\s*\(\s*(?:"[^"\n]*"|'[^'\n]*'|[^)"'\n]*)\s*\)/gi, 'none')
      .replace(/(?:url|image|image-set|-webkit-image-set|cross-fade|-webkit-cross-fade|element|-moz-element|expression|paint|src)\s*\(/gi, 'blocked(')
      .replace(/(?:javascript|vbscript|livescript)\s*:/gi, 'blocked:')
      .replace(/(?:behavior|-moz-binding)\s*:/gi, 'x-blocked:');
  };

  const withCleanStyle = (attribs: Record<string, string>): Record<string, string> => {
    if (attribs.style === undefined) return attribs;
    const style = cleanCss(attribs.style).trim();
    const { style: _drop, ...rest } = attribs;
    return style ? { ...rest, style } : rest;
  };

  const LAYOUT_ATTRS = ['align', 'valign', 'width', 'height', 'bgcolor', 'border', 'cellpadding', 'cellspacing', 'colspan', 'rowspan', 'dir'];

  /**
   * Each inline image is written out in full once; repeats of an image (a spacer used forty times) share this
   * many characters of data: URI. Without a bound a message multiplied its own bytes: one 512 KB image and 120
   * `<img src="cid:…">` (720 KB of SMTP) stored 84 MB of HTML that every read sent and serialised whole
   * (mail-html.test.ts: "inlines each image in full once").
   */
  const INLINE_REPEATS = 1024 * 1024;

  const sanitize = (html: string, inline: InlineImages = new Map()): string => {
    const shown = new Set<string>();
    let repeats = INLINE_REPEATS;
    const inlined = (id: string): string | undefined => {
      const data = inline.get(id);
      if (data === undefined) return undefined;
      if (!shown.has(id)) {
        shown.add(id);
        return data;
      }
      if (data.length > repeats) return undefined;
      repeats -= data.length;
      return data;
    };
    return lib(html, {
      allowedTags: [
        ...lib.defaults.allowedTags,
        'style',
        'img',
        'font',
        'center',
        'span',
        'div',
        'u',
        's',
        'strike',
        'small',
        'big',
      ],
      // <style> is allowed on purpose: its text is made inert below (cleanCss) and it is confined to the sandboxed frame.
      allowVulnerableTags: true,
      allowedAttributes: {
        '*': ['style', 'class', 'id', 'title', 'lang', 'dir', 'role', 'aria-label', 'aria-hidden', ...LAYOUT_ATTRS],
        a: ['href', 'name', 'target', 'rel', 'title', 'style', 'class'],
        img: ['src', REMOTE, 'alt', 'width', 'height', 'title', 'style', 'border', 'align', 'class'],
        font: ['color', 'face', 'size'],
        ol: ['start', 'type'],
        style: ['media', 'type'],
        td: [...LAYOUT_ATTRS, 'style', 'class'],
        th: [...LAYOUT_ATTRS, 'style', 'class'],
      },
      // Style values are cleaned by cleanCss (transformTags), not parsed against a property list.
      parseStyleAttributes: false,
      allowedSchemes: ['http', 'https', 'mailto', 'tel'],
      // Images only from data: (inline parts); remote ones would tell the sender the mail was read.
      allowedSchemesByTag: { img: ['data'] },
      allowedSchemesAppliedToAttributes: ['href', 'src', 'cite', 'action', 'background', 'poster', 'formaction', 'xlink:href'],
      allowProtocolRelative: false,
      disallowedTagsMode: 'discard',
      nonTextTags: ['script', 'textarea', 'option', 'noscript', 'title', 'template', 'xmp', 'iframe', 'noembed', 'noframes', 'object', 'svg', 'math'],
      transformTags: {
        '*': (tagName, attribs) => ({ tagName, attribs: withCleanStyle(attribs) }),
        // The sender's page background and font live on <body>; a <div> keeps them inside the frame's own body.
        // (A <body> without attributes is dropped like any tag not allowed, its content kept.)
        body: (tagName, attribs) => {
          const clean = withCleanStyle(attribs);
          return { tagName: Object.keys(clean).length > 0 ? 'div' : tagName, attribs: clean };
        },
        a: (tagName, attribs) => ({ tagName, attribs: { ...withCleanStyle(attribs), target: '_blank', rel: 'noopener noreferrer nofollow' } }),
        img: (tagName, attribs) => {
          const { [REMOTE]: _forged, ...own } = withCleanStyle(attribs);
          const src = own.src?.trim() ?? '';
          if (/^cid:/i.test(src)) {
            const data = inlined(contentId(src.slice(4)));
            return { tagName, attribs: { ...own, src: data ?? '' } };
          }
          if (/^data:/i.test(src)) return { tagName, attribs: /^data:image\/(png|jpe?g|gif|webp|bmp);base64,/i.test(src) ? own : { ...own, src: '' } };
          // A remote image: kept, without a source, until its reader allows remote images for this message.
          const remote = /^https?:\/\//i.test(src) ? src : /^\/\/[^/]/.test(src) ? `https:${src}` : '';
          const { src: _src, ...rest } = own;
          return { tagName, attribs: remote && !/[\s"'<>\\]/.test(remote) ? { ...rest, [REMOTE]: remote } : { ...rest, src: '' } };
        },
      },
      // An image without a source (unknown cid, bad data:) is dropped; its alt text stays readable.
      exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src && !frame.attribs[REMOTE],
    });
  };

  // Style sheets pass sanitize-html as raw text (it cannot filter them): each one is made inert here.
  // The output closes every element it opens, so each <style> has its </style>.
  return (html: string, inline: InlineImages = new Map()): string =>
    sanitize(html, inline).replace(/(<style\b[^>]*>)([\s\S]*?)(<\/style>)/gi, (_m, open: string, css: string, close: string) => `${open}${cleanCss(css)}${close}`);
}

const inProcess = createMailSanitizer(sanitizeHtml);

/** Sanitises on the calling thread: for tests and small fragments only; intake uses the worker pool. */
export function sanitizeMailHtml(html: string, inline: InlineImages = new Map()): string {
  return inProcess(html, inline);
}

export function normalizeContentId(id: string): string {
  return id.trim().replace(/^<|>$/g, '').toLowerCase();
}

/** The policy of the display document: nothing runs, nothing loads except inline styles and data: images. */
export const MAIL_HTML_CSP = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:";
/** The same, for a message whose reader allowed its remote images: images (only) may load from http(s). */
export const MAIL_HTML_CSP_REMOTE_IMAGES = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data: https: http:";

/** How many remote images the stored HTML holds back. */
export function blockedRemoteImages(sanitized: string | null): number {
  if (!sanitized) return 0;
  let n = 0;
  for (let at = sanitized.indexOf(` ${REMOTE_IMAGE_ATTRIBUTE}="`); at >= 0; at = sanitized.indexOf(` ${REMOTE_IMAGE_ATTRIBUTE}="`, at + 1)) n++;
  return n;
}

/**
 * The stored HTML with its remote images given their sources back, for a reader who allowed them for
 * this message. Safe on sanitiser output only: there every attribute value is quoted with `"`, `<`
 * and `>` escaped, so an `<img` tag ends at the next `>` and ` data-svc-remote-src="` in it starts that
 * attribute (the sanitiser set it, http(s) only). One pass from left to right, so its work grows with the
 * HTML's size and nothing else: the text of a `<style>` (the only raw text the sanitiser keeps) is
 * skipped whole, whatever it holds (mail-html.test.ts: "linear on hostile style sheets").
 */
export function remoteImagesShown(sanitized: string): string {
  // The sanitiser writes tag names in lower case.
  const attribute = ` ${REMOTE_IMAGE_ATTRIBUTE}="`;
  let out = '';
  let copied = 0;
  let at = sanitized.indexOf('<');
  while (at >= 0) {
    if (sanitized.startsWith('<style', at)) {
      const end = sanitized.indexOf('</style', at + 6);
      if (end < 0) break;
      at = sanitized.indexOf('<', end + 7);
      continue;
    }
    const close = sanitized.indexOf('>', at);
    if (close < 0) break;
    if (sanitized.startsWith('<img', at) && /[\s/>]/.test(sanitized[at + 4] ?? '')) {
      const tag = sanitized.slice(at, close);
      const found = tag.indexOf(attribute);
      if (found >= 0) {
        out += `${sanitized.slice(copied, at + found)} src="`;
        copied = at + found + attribute.length;
      }
    }
    at = sanitized.indexOf('<', close);
  }
  return out + sanitized.slice(copied);
}

/** A complete document for a sandboxed iframe: the sanitised body, no referrer, links open outside. */
export function mailHtmlDocument(sanitized: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><meta name="viewport" content="width=device-width, initial-scale=1"><base target="_blank"></head><body>${sanitized}</body></html>`;
}
