import { setPriority } from 'node:os';
import { Worker } from 'node:worker_threads';
import PostalMime from 'postal-mime';
import sanitizeHtml from 'sanitize-html';
import workerpool from 'workerpool';
import { type NextStep, STARTED } from './content-jobs.js';
import type { ComposeJob, HeaderParts, Inspected, IntakeJob, ParsedMime, SanitizeJob, Sanitized } from './content-jobs.js';
import { createMailSanitizer, remoteImagesShown } from './mail-html.js';
import { nestingDepth } from './html-nesting.js';
import { composedHeaders, composeSource, toMailHeaders } from './mail-source.js';
import { cleanContent } from './mail-limits.js';
import { dataUri, inlinable } from './stored-html.js';
import { codeOfMail } from './verification-code.js';
import { linksOfMail } from './links.js';
import { searchTextOfMail } from './search-text.js';
import { decodeBase64Strict } from './base64.js';
import { readJsonBody } from '../../platform/http/input-guards.js';

/**
 * The worker of the content pool (content-pool.ts): every step that reads bytes an outsider chose runs
 * here, never on the main thread (docs/architecture.md#outsider-bytes-never-run-on-the-event-loop). Each job
 * is a plain function of cloned data; the pool ends the worker when a job overruns its time or memory limit.
 */

// Workers are batch work and the service's event loop is not: on a machine with few cores, a busy worker
// must not take the CPU from the process that answers requests. Raising one's own niceness needs no privilege.
try {
  setPriority(10);
} catch {
  // Not allowed here (some sandboxes): the worker runs at the service's priority.
}

/**
 * The pool ends a job over its limit by ending this process. When the pool's process is gone without
 * closing the pool (killed, crashed, or ended by main.ts's 15 s shutdown deadline) nobody would, and a
 * hostile job runs on alone: postal-mime needs 11 s for 640 KB of nested message/rfc822 and grows
 * quadratically. A thread of its own sees the parent change even while a job holds this one, and ends
 * the process (content-pool.test.ts: "a worker whose service died").
 */
const parent = process.ppid;
new Worker(`setInterval(() => { if (process.ppid !== ${parent}) process.kill(process.pid, 'SIGKILL'); }, 200);`, { eval: true }).unref();

/** Bytes arrive as Uint8Array (structured clone drops Buffer's prototype). */
const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

const sanitize = createMailSanitizer(sanitizeHtml);

class TooManyParts extends Error {
  override readonly name = 'TooManyParts';
}

/** Lines that begin with `--` (MIME boundaries among them), counted up to `stopAbove` + 1. */
function boundaryLines(raw: Buffer, stopAbove: number): number {
  let n = 0;
  for (let i = raw.indexOf('\n--'); i >= 0; i = raw.indexOf('\n--', i + 3)) if (++n > stopAbove) break;
  return n;
}

async function parsed(raw: Uint8Array, maxBoundaryLines: number): Promise<ParsedMime> {
  const source = asBuffer(raw);
  // A message that cannot hold at most 100 attachments and their text parts is refused unread.
  if (boundaryLines(source, maxBoundaryLines) > maxBoundaryLines) throw new TooManyParts(`too many MIME parts (more than ${maxBoundaryLines} boundary lines)`);
  const parsed = await PostalMime.parse(source);
  const from = parsed.from && 'address' in parsed.from && parsed.from.address ? parsed.from : undefined;
  const attachments = parsed.attachments.map((a) => {
    const content = typeof a.content === 'string' ? new Uint8Array(Buffer.from(a.content, 'base64')) : new Uint8Array(a.content);
    return { filename: a.filename, contentType: a.mimeType, contentId: a.contentId ?? null, content };
  });
  return {
    from: from ? { address: from.address ?? '', name: from.name || null } : null,
    toHeader: (parsed.to ?? []).map((a) => (a.name ? `${a.name} <${a.address ?? ''}>` : (a.address ?? ''))).join(', ') || null,
    subject: parsed.subject ?? null,
    text: parsed.text ?? null,
    html: parsed.html ?? null,
    headers: toMailHeaders(parsed.headers),
    attachments,
  };
}

/** The attachments' bytes move to the main thread instead of being copied. */
const moved = <T extends object>(result: T, mime: ParsedMime) =>
  new workerpool.Transfer(
    result,
    mime.attachments.map((a) => a.content.buffer as ArrayBuffer),
  );

async function parseMime(raw: Uint8Array, maxBoundaryLines: number) {
  const mime = await parsed(raw, maxBoundaryLines);
  return moved(mime, mime);
}

/**
 * A raw message parsed, then inspected from the fields MailService.deliver stores (cleaned: cleanMail), in one
 * job; the pool gives the second step a time limit of its own (content-pool.ts `receive`).
 */
async function receive(raw: Uint8Array, maxBoundaryLines: number, maxDepth: number) {
  const mime = await parsed(raw, maxBoundaryLines);
  const { subject, text, html } = cleanContent(mime);
  const step: NextStep = { step: 'inspect', inputBytes: (html?.length ?? 0) + (text?.length ?? 0) };
  workerpool.workerEmit(step);
  const inspected = inspect({ subject, text, html, maxDepth, headersOf: null });
  return moved({ parsed: mime, inspected }, mime);
}

/** A message being stored: its code, its headers (mail given as parts), and whether its HTML can be kept. */
function inspect(job: IntakeJob): Inspected {
  return {
    state: job.html === null ? 'none' : nestingDepth(job.html, job.maxDepth) > job.maxDepth ? 'dropped' : 'raw',
    code: codeOfMail(job.subject, job.text, job.html),
    ...linksOfMail(job.text, job.html),
    searchText: searchTextOfMail(job.subject, job.text, job.html),
    headers: job.headersOf ? headers({ ...job.headersOf, subject: job.subject, text: job.text, html: job.html }) : null,
  };
}

function sanitizeJob(job: SanitizeJob): Sanitized {
  if (nestingDepth(job.html, job.maxDepth) > job.maxDepth) return { html: null, state: 'dropped' };
  const inline = new Map<string, string>();
  for (const image of job.inline) if (inlinable(image.contentType, image.content.byteLength)) inline.set(image.contentId, dataUri(image.contentType, image.content));
  try {
    return { html: sanitize(job.html, inline), state: 'clean' };
  } catch {
    // A sanitiser exception is the same as no time to do it: the HTML cannot be shown safely.
    return { html: null, state: 'dropped' };
  }
}

async function compose(job: ComposeJob) {
  const source = await composeSource({ ...job, attachments: job.attachments.map((a) => ({ ...a, content: asBuffer(a.content) })) });
  const bytes = new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  // A pooled small Buffer shares its ArrayBuffer: only a buffer of its own may be transferred.
  return source.byteOffset === 0 && source.byteLength === source.buffer.byteLength ? new workerpool.Transfer(bytes, [bytes.buffer as ArrayBuffer]) : bytes;
}

/** The headers of the source composed from these parts (composing them reads no attachment bytes). */
function headers(job: HeaderParts) {
  return composedHeaders({ ...job, attachments: job.attachments.map((a) => ({ ...a, content: Buffer.alloc(0) })) });
}

/** Each job first tells the pool it began: its time limit counts from here (content-pool.ts). */
function timed<A extends unknown[], R>(job: (...args: A) => R): (...args: A) => R {
  return (...args: A) => {
    workerpool.workerEmit(STARTED);
    return job(...args);
  };
}

/** Attachments given as base64 (POST /api/inbound): each decoded strictly, or null when it is not base64. */
function decodeAttachments(texts: string[]) {
  const decoded = texts.map((text) => {
    const bytes = decodeBase64Strict(text);
    return bytes ? new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null;
  });
  return decoded;
}

workerpool.worker({
  readJson: timed((bytes: Uint8Array) => readJsonBody(asBuffer(bytes).toString('utf8'))),
  decodeAttachments: timed(decodeAttachments),
  parseMime: timed(parseMime),
  receive: timed(receive),
  inspect: timed(inspect),
  sanitize: timed(sanitizeJob),
  compose: timed(compose),
  headers: timed(headers),
  showRemoteImages: timed((html: string) => remoteImagesShown(html)),
});
