import sanitizeHtml from 'sanitize-html';

/**
 * Mail HTML is hostile input. It is sanitised with sanitize-html against an allow-list (no scripts,
 * event handlers, forms, frames, objects, meta/base, style sheets, javascript:/data: links) and
 * remote images are dropped, so opening a message loads nothing from outside without consent.
 * The display route additionally serves it under a sandboxing CSP, so a sanitiser miss runs nothing.
 *
 * It runs once, when a message is stored, in worker threads (html-sanitizer-pool.ts). The policy is
 * one self-contained function, `createMailSanitizer`, so the workers run exactly this code: its source
 * is handed to them as text (it references nothing outside itself), which works the same from `src`
 * under vitest and from `dist`.
 */

/** cid → data: URI of the message's own inline images, so they show without loading anything. */
export type InlineImages = ReadonlyMap<string, string>;

export type MailSanitizer = (html: string, inline?: InlineImages) => string;

/** The sanitiser policy, given the sanitize-html function. Must stay self-contained (see above). */
export function createMailSanitizer(lib: typeof sanitizeHtml): MailSanitizer {
  const contentId = (id: string) => id.trim().replace(/^<|>$/g, '').toLowerCase();
  // Style values may not reach out (url(), @import) or run (expression(), behaviours, escapes that hide them).
  const SAFE_STYLE_VALUE = /^(?!.*(?:url\s*\(|expression|javascript|behavior|-moz-binding|@import|\\|\/\*))[-#a-z0-9(),.%\s'"!+]*$/i;
  const STYLE_PROPERTIES = [
    'color',
    'background-color',
    'font',
    'font-family',
    'font-size',
    'font-weight',
    'font-style',
    'text-align',
    'text-decoration',
    'text-transform',
    'line-height',
    'letter-spacing',
    'vertical-align',
    'white-space',
    'margin',
    'margin-top',
    'margin-right',
    'margin-bottom',
    'margin-left',
    'padding',
    'padding-top',
    'padding-right',
    'padding-bottom',
    'padding-left',
    'border',
    'border-top',
    'border-right',
    'border-bottom',
    'border-left',
    'border-color',
    'border-style',
    'border-width',
    'border-collapse',
    'border-radius',
    'width',
    'max-width',
    'min-width',
    'height',
    'max-height',
    'display',
    'text-indent',
  ];
  const allowedStyles = Object.fromEntries(STYLE_PROPERTIES.map((p) => [p, [SAFE_STYLE_VALUE]]));

  const LAYOUT_ATTRS = ['align', 'valign', 'width', 'height', 'bgcolor', 'border', 'cellpadding', 'cellspacing', 'colspan', 'rowspan', 'dir'];

  return (html: string, inline: InlineImages = new Map()): string =>
    lib(html, {
      allowedTags: [
        ...lib.defaults.allowedTags.filter((t) => t !== 'style'),
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
      allowedAttributes: {
        '*': ['style', 'title', 'lang', 'dir', ...LAYOUT_ATTRS],
        a: ['href', 'name', 'target', 'rel', 'title', 'style'],
        img: ['src', 'alt', 'width', 'height', 'title', 'style', 'border', 'align'],
        font: ['color', 'face', 'size'],
        ol: ['start', 'type'],
        td: [...LAYOUT_ATTRS, 'style'],
        th: [...LAYOUT_ATTRS, 'style'],
      },
      allowedStyles: { '*': allowedStyles },
      allowedSchemes: ['http', 'https', 'mailto'],
      // Images only from data: (inline parts); remote ones would tell the sender the mail was read.
      allowedSchemesByTag: { img: ['data'] },
      allowedSchemesAppliedToAttributes: ['href', 'src', 'cite', 'action', 'background', 'poster', 'formaction', 'xlink:href'],
      allowProtocolRelative: false,
      disallowedTagsMode: 'discard',
      nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'title', 'head', 'template', 'xmp', 'iframe', 'noembed', 'noframes', 'object', 'svg', 'math'],
      transformTags: {
        a: (tagName, attribs) => ({ tagName, attribs: { ...attribs, target: '_blank', rel: 'noopener noreferrer nofollow' } }),
        img: (tagName, attribs) => {
          const src = attribs.src?.trim() ?? '';
          if (/^cid:/i.test(src)) {
            const data = inline.get(contentId(src.slice(4)));
            return { tagName, attribs: { ...attribs, src: data ?? '' } };
          }
          if (/^data:/i.test(src) && !/^data:image\/(png|jpe?g|gif|webp|bmp);base64,/i.test(src)) return { tagName, attribs: { ...attribs, src: '' } };
          return { tagName, attribs };
        },
      },
      // An image whose source was removed (remote, unknown cid) is dropped; its alt text stays readable.
      exclusiveFilter: (frame) => frame.tag === 'img' && !frame.attribs.src,
    });
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

/** A complete document for a sandboxed iframe: the sanitised body, no referrer, links open outside. */
export function mailHtmlDocument(sanitized: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="referrer" content="no-referrer"><base target="_blank"></head><body>${sanitized}</body></html>`;
}
