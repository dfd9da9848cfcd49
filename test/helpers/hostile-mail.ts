import { randomBytes } from 'node:crypto';
import fc from 'fast-check';

/**
 * Mail an outsider chose to hurt svc with (docs/architecture.md#outsider-bytes-never-run-on-the-event-loop):
 * generators for the hostile-content suite (test/integration/hostile-content.test.ts) and the known attacks,
 * each as one message. A mail is given as parts (sent as composed MIME over SMTP and as JSON to POST
 * /api/inbound) or, when the attack is in the MIME structure itself, as its SMTP source only.
 */
export interface HostileAttachment {
  readonly filename: string;
  readonly contentType: string;
  readonly content: Buffer;
}

export interface HostileMail {
  /** Short and specific ("div×3000, unclosed"): failure messages name the case with it. */
  readonly label: string;
  readonly subject: string;
  readonly text: string | null;
  readonly html: string | null;
  readonly attachments: readonly HostileAttachment[];
  /** How the text parts travel over SMTP: as they are (long lines included) or base64. */
  readonly encoding: '8bit' | 'base64';
  /** A MIME-level attack: this is the SMTP source, and there is no /api/inbound form of it. */
  readonly source?: Buffer;
}

export const SENDER = 'attacker@hostile.example';

/** Letters (and the characters HTML cares about) to build long unbroken runs from. */
export const SCRIPTS = {
  latin: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZéüßø',
  cyrillic: 'абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ',
  greek: 'αβγδεζηθικλμνξοπρστυφχψωΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ',
  cjk: '验证码的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生認証コード인증번호',
  arabic: 'ابتثجحخدذرزسشصضطظعغفقكلمنهوي',
  digits: '0123456789',
  lt: '<',
  amp: '&',
  quote: '"',
  apos: "'",
} as const;
export type Script = keyof typeof SCRIPTS;

/** A code word in each script's language, so the code finder looks at what follows. */
const CODE_WORDS = ['Your verification code', 'Ваш код подтверждения', 'Ο κωδικός επαλήθευσης', '您的验证码', 'رمز التحقق', 'Dein Bestätigungscode'];

/** `length` characters of `script` in one run, starting at `offset` in its alphabet. */
export function run(script: Script, length: number, offset = 0): string {
  const chars = [...SCRIPTS[script]];
  let out = '';
  for (let i = 0; i < length; i++) out += chars[(offset + i) % chars.length];
  return out;
}

// ---------- generators: one per family of attack ----------

const TAGS = ['div', 'table', 'td', 'span', 'b', 'blockquote', 'font', 'a', 'ul', 'li', 'p', 'center', 'tr'];

/** Random deep nesting: cycles of tags, closed or left open, with or without attributes and text. */
export const deepNesting: fc.Arbitrary<HostileMail> = fc
  .record({
    tags: fc.array(fc.constantFrom(...TAGS), { minLength: 1, maxLength: 4 }),
    depth: fc.integer({ min: 200, max: 4000 }),
    closed: fc.boolean(),
    attribute: fc.constantFrom('', ' style="color:#123456"', ' class="x"'),
    withText: fc.boolean(),
    encoding: fc.constantFrom('8bit' as const, 'base64' as const),
  })
  .map(({ tags, depth, closed, attribute, withText, encoding }) => {
    const names = Array.from({ length: depth }, (_, i) => tags[i % tags.length]!);
    const html = `${names.map((t) => `<${t}${attribute}>`).join('')}Use 482913 to sign in.${closed ? names.reverse().map((t) => `</${t}>`).join('') : ''}`;
    return {
      label: `${tags.join('/')}×${depth}${attribute ? ' with attributes' : ''}${closed ? '' : ', unclosed'}${withText ? '' : ', HTML only'} (${encoding})`,
      subject: 'Your sign-in code',
      text: withText ? 'Use 482913 to sign in.' : null,
      html,
      attachments: [],
      encoding,
    };
  });

/** Long unbroken runs in every script (and of `<`, `&`, quotes) in the subject, the text and the HTML. */
export const scriptRuns: fc.Arbitrary<HostileMail> = fc
  .record({
    runs: fc.array(fc.record({ script: fc.constantFrom(...(Object.keys(SCRIPTS) as Script[])), length: fc.integer({ min: 500, max: 20_000 }), offset: fc.nat(40) }), {
      minLength: 1,
      maxLength: 4,
    }),
    codeWord: fc.constantFrom(...CODE_WORDS),
    where: fc.constantFrom('text and html', 'text only', 'html only'),
    encoding: fc.constantFrom('8bit' as const, 'base64' as const),
  })
  .map(({ runs, codeWord, where, encoding }) => {
    const body = runs.map((r) => run(r.script, r.length, r.offset)).join('');
    return {
      label: `runs ${runs.map((r) => `${r.script}×${r.length}`).join('+')} in the ${where} (${encoding})`,
      subject: `${codeWord} ${body.slice(0, 1500)}`,
      text: where === 'html only' ? null : `${codeWord}: ${body}`,
      html: where === 'text only' ? null : `<p>${codeWord}</p><p>${body}</p>`,
      attachments: [],
      encoding,
    };
  });

const CSS_ATTACKS: Record<string, (n: number) => string> = {
  'unterminated url(': (n) => `<style>a{background:url(${'x'.repeat(n)}`,
  '<img without > in <style>': (n) => `<style>${'<img '.repeat(Math.ceil(n / 5))}</style><img src="https://img.example/a.png" alt="a">`,
  'unterminated comment': (n) => `<style>/*${'a'.repeat(n)}`,
  backslashes: (n) => `<style>p{color:${'\\'.repeat(n)}}</style>`,
  '@import runs': (n) => `<style>${'@import '.repeat(Math.ceil(n / 8))}</style>`,
  '<img without > in the body': (n) => `<p>hi</p>${'<img '.repeat(Math.ceil(n / 5))}`,
  'url( in a style attribute': (n) => `<div style="${'url('.repeat(Math.ceil(n / 4))}">x</div>`,
};

/** Pathological CSS: style sheets and style attributes that never end, or end in the worst place. */
export const pathologicalCss: fc.Arbitrary<HostileMail> = fc
  .record({
    attacks: fc.uniqueArray(fc.constantFrom(...Object.keys(CSS_ATTACKS)), { minLength: 1, maxLength: 3 }),
    size: fc.integer({ min: 5_000, max: 100_000 }),
    encoding: fc.constantFrom('8bit' as const, 'base64' as const),
  })
  .map(({ attacks, size, encoding }) => ({
    label: `${attacks.join(' + ')}, ${size} characters each (${encoding})`,
    subject: 'Your weekly newsletter',
    text: 'Newsletter',
    html: `<html><head>${attacks.map((a) => CSS_ATTACKS[a]!(size)).join('')}`,
    attachments: [],
    encoding,
  }));

const ATTRIBUTE_ATTACKS: Record<string, (n: number) => string> = {
  'long href': (n) => `<a href="https://example.com/${'a'.repeat(n)}">link</a>`,
  'long remote src': (n) => `<img src="https://img.example/${'b'.repeat(n)}" alt="x">`,
  'unterminated title': (n) => `<div title="${'c'.repeat(n)}`,
  'many attributes': (n) => `<div ${'data-x=1 '.repeat(Math.ceil(n / 9))}>x</div>`,
  'long style': (n) => `<td style="${'color:red;'.repeat(Math.ceil(n / 10))}">x</td>`,
  'long cid': (n) => `<img src="cid:${'d'.repeat(n)}">`,
  'long alt of <': (n) => `<img src="https://img.example/x.png" alt="${'<'.repeat(n)}">`,
};

/** Huge attribute values and attribute lists. */
export const hugeAttributes: fc.Arbitrary<HostileMail> = fc
  .record({
    attacks: fc.uniqueArray(fc.constantFrom(...Object.keys(ATTRIBUTE_ATTACKS)), { minLength: 1, maxLength: 3 }),
    size: fc.integer({ min: 10_000, max: 300_000 }),
    encoding: fc.constantFrom('8bit' as const, 'base64' as const),
  })
  .map(({ attacks, size, encoding }) => ({
    label: `${attacks.join(' + ')}, ${size} characters each (${encoding})`,
    subject: 'Your account',
    text: null,
    html: `<p>Hello</p>${attacks.map((a) => ATTRIBUTE_ATTACKS[a]!(size)).join('')}`,
    attachments: [],
    encoding,
  }));

const MIME_ATTACKS: Record<string, (n: number) => { label: string; source: Buffer }> = {
  'nested message/rfc822 without boundaries': (n) => {
    const levels = 50 + (n % 3000);
    return { label: `${levels} nested message/rfc822 parts without boundaries`, source: nestedRfc822(levels) };
  },
  'thousands of parts': (n) => {
    const parts = 200 + (n % 3000);
    const body = Array.from({ length: parts }, (_, i) => `--b\r\nContent-Type: text/plain\r\n\r\npart ${i}\r\n`).join('');
    return { label: `${parts} text parts`, source: mime(['Content-Type: multipart/mixed; boundary="b"'], `${body}--b--\r\n`) };
  },
  'huge header': (n) => {
    const bytes = 10_000 + ((n * 37) % 500_000);
    return { label: `a ${bytes}-byte header line`, source: mime([`X-Long: ${'h'.repeat(bytes)}`, 'Content-Type: text/plain'], 'hello\r\n') };
  },
  'huge folded header': (n) => {
    const lines = 1000 + (n % 20_000);
    return { label: `a header folded over ${lines} lines`, source: mime([`Subject: code${'\r\n x'.repeat(lines)}`, 'Content-Type: text/plain'], 'hello\r\n') };
  },
  'many headers': (n) => {
    const count = 1000 + (n % 20_000);
    return { label: `${count} headers`, source: mime([...Array.from({ length: count }, (_, i) => `X-H${i}: v`), 'Content-Type: text/plain'], 'hello\r\n') };
  },
  'long base64 line': (n) => {
    const bytes = 75_000 + ((n * 101) % 750_000);
    const content = Buffer.alloc(bytes).fill('svc-hostile').toString('base64');
    return {
      label: `an attachment of ${bytes} bytes as one base64 line`,
      source: mime(
        ['Content-Type: multipart/mixed; boundary="b"'],
        `--b\r\nContent-Type: text/plain\r\n\r\nsee attachment\r\n--b\r\nContent-Type: application/octet-stream; name="blob.bin"\r\nContent-Disposition: attachment; filename="blob.bin"\r\nContent-Transfer-Encoding: base64\r\n\r\n${content}\r\n--b--\r\n`,
      ),
    };
  },
  'deep multipart nesting': (n) => {
    const depth = 20 + (n % 500);
    let body = 'Content-Type: text/plain\r\n\r\ninnermost\r\n';
    for (let i = depth; i > 0; i--) body = `Content-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n${body}--b${i}--\r\n`;
    return { label: `${depth} multipart levels, each with its boundary`, source: mime([], body, true) };
  },
};

/** Pathological MIME structure (SMTP only): no boundaries, thousands of parts, huge headers, long base64 lines. */
export const pathologicalMime: fc.Arbitrary<HostileMail> = fc.record({ attack: fc.constantFrom(...Object.keys(MIME_ATTACKS)), n: fc.nat(1_000_000) }).map(({ attack, n }) => {
  const { label, source } = MIME_ATTACKS[attack]!(n);
  return { label, subject: '', text: null, html: null, attachments: [], encoding: '8bit', source };
});

// ---------- the known attacks, one message each ----------

/** (a) HTML only, 50,000 `<`. */
export function manyLessThan(): HostileMail {
  return { label: '50,000 <, HTML only', subject: 'Your sign-in code', text: null, html: '<'.repeat(50_000), attachments: [], encoding: '8bit' };
}

/** (b) about 625 KB: `levels` message/rfc822 parts, each the whole body of the one before, no boundary anywhere. */
export function nestedRfc822(levels = 20_000): Buffer {
  return mime([], `${'Content-Type: message/rfc822\r\n\r\n'.repeat(levels)}Subject: innermost\r\n\r\nhello\r\n`, true);
}

/** (c) a style sheet of `bytes` of `<img ` without `>`, and one remote image the reader may allow. */
export function styleOfImgs(bytes = 200_000): HostileMail {
  return {
    label: `<style> of ${bytes} bytes of "<img " without ">"`,
    subject: 'Your newsletter',
    text: 'Newsletter',
    html: `<html><head><style>${'<img '.repeat(Math.ceil(bytes / 5))}</style></head><body><p>Hello</p><img src="https://img.example/a.png" alt="a"></body></html>`,
    attachments: [],
    encoding: '8bit',
  };
}

/** (d) one unbroken run of `chars` letters of a script as the whole text, a code word of that script in the subject. */
export function unbrokenRun(script: 'cyrillic' | 'greek' | 'cjk', chars = 4096): HostileMail {
  const subject = { cyrillic: 'Ваш код подтверждения', greek: 'Ο κωδικός επαλήθευσης', cjk: '您的验证码' }[script];
  return { label: `${chars} characters of one unbroken ${script} run`, subject, text: run(script, chars), html: null, attachments: [], encoding: '8bit' };
}

/** (e) a mail of about `bytes` over SMTP: a newsletter with a PDF-sized attachment. */
export function bigMail(bytes = 8 * 1024 * 1024): HostileMail {
  const content = randomBytes(Math.floor((bytes * 3) / 4) - 16 * 1024);
  return {
    label: `a ${(bytes / 1024 / 1024).toFixed(0)} MB mail`,
    subject: 'Your invoice, code 482913',
    text: 'Your invoice is attached. Use 482913 to sign in.',
    html: `<p>Your invoice is attached.</p>${'<p>Thanks for your order.</p>'.repeat(200)}`,
    attachments: [{ filename: 'invoice.pdf', contentType: 'application/pdf', content }],
    encoding: 'base64',
  };
}

// ---------- MIME and JSON forms ----------

/** A header block and body; with `bodyHasHeaders` the body starts with its own Content-Type line. */
function mime(headers: readonly string[], body: string, bodyHasHeaders = false): Buffer {
  const head = [`From: Attacker <${SENDER}>`, 'To: <to@svc.test>', 'Subject: hostile', 'MIME-Version: 1.0', ...headers].join('\r\n');
  return Buffer.from(`${head}\r\n${bodyHasHeaders ? '' : '\r\n'}${body}`, 'utf8');
}

function encodedWord(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value) && value.length < 900) return value;
  const chars = [...value];
  const words: string[] = [];
  for (let i = 0; i < chars.length; i += 30) words.push(`=?UTF-8?B?${Buffer.from(chars.slice(i, i + 30).join(''), 'utf8').toString('base64')}?=`);
  return words.join('\r\n ');
}

function wrapped(b64: string): string {
  return b64.replace(/.{1,76}/g, '$&\r\n');
}

function textPart(type: string, value: string, encoding: HostileMail['encoding']): string {
  const body = encoding === 'base64' ? wrapped(Buffer.from(value, 'utf8').toString('base64')) : `${value.replace(/\r?\n/g, '\r\n')}\r\n`;
  return `Content-Type: ${type}; charset=utf-8\r\nContent-Transfer-Encoding: ${encoding}\r\n\r\n${body}`;
}

/** The SMTP source of a mail: its own when it is a MIME attack, else composed from its parts. */
export function smtpSourceOf(mail: HostileMail, to: string): Buffer {
  if (mail.source) return Buffer.from(mail.source.toString('utf8').replace('To: <to@svc.test>', `To: <${to}>`), 'utf8');
  const parts: string[] = [];
  if (mail.text !== null) parts.push(textPart('text/plain', mail.text, mail.encoding));
  if (mail.html !== null) parts.push(textPart('text/html', mail.html, mail.encoding));
  let body = parts.length === 1 ? parts[0]! : `Content-Type: multipart/alternative; boundary="=_alt"\r\n\r\n${parts.map((p) => `--=_alt\r\n${p}`).join('')}--=_alt--\r\n`;
  if (mail.attachments.length > 0) {
    const files = mail.attachments.map(
      (a) =>
        `--=_mixed\r\nContent-Type: ${a.contentType}; name="${a.filename}"\r\nContent-Disposition: attachment; filename="${a.filename}"\r\nContent-Transfer-Encoding: base64\r\n\r\n${wrapped(a.content.toString('base64'))}`,
    );
    body = `Content-Type: multipart/mixed; boundary="=_mixed"\r\n\r\n--=_mixed\r\n${body}${files.join('')}--=_mixed--\r\n`;
  }
  const head = [`From: Attacker <${SENDER}>`, `To: <${to}>`, `Subject: ${encodedWord(mail.subject)}`, 'MIME-Version: 1.0'].join('\r\n');
  return Buffer.from(`${head}\r\n${body}`, 'utf8');
}

/** The POST /api/inbound form of a mail; null for a MIME attack, which has none. */
export function inboundOf(mail: HostileMail, to: string): Record<string, unknown> | null {
  if (mail.source) return null;
  return {
    to,
    from: SENDER,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    attachments: mail.attachments.map((a) => ({ filename: a.filename, content_type: a.contentType, content_base64: a.content.toString('base64') })),
  };
}
