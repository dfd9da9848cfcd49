import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { createMailSanitizer, type InlineImages } from './mail-html.js';

/** What storing a message keeps of its HTML: the sanitised markup, or nothing when it could not be done in time. */
export type SanitizedHtml = { readonly html: string; readonly dropped: false } | { readonly html: null; readonly dropped: true };

export interface HtmlSanitizerOptions {
  /** Worker threads (at most this many messages are sanitised at once). */
  readonly threads: number;
  /** A message whose HTML takes longer is dropped and its worker replaced (CONTRACT §11). */
  readonly timeLimitMs: number;
  /** HTML nested deeper than this is dropped before any parser sees it (sanitize-html's cost grows with depth squared). */
  readonly maxDepth: number;
}

export const DEFAULT_HTML_SANITIZER: HtmlSanitizerOptions = Object.freeze({ threads: 2, timeLimitMs: 2000, maxDepth: 1000 });

// The worker is a script of its own built from the policy's source text (see mail-html.ts): no file to
// find, so it runs the same from src (vitest) and from dist (npm start).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const sanitize = (${createMailSanitizer.toString()})(require(workerData.sanitizeHtml));
parentPort.on('message', (task) => {
  let html = null;
  let error = null;
  try { html = sanitize(task.html, new Map(task.inline)); } catch (err) { error = String(err && err.message || err); }
  parentPort.postMessage({ id: task.id, html, error });
});
`;

const SANITIZE_HTML_PATH = createRequire(import.meta.url).resolve('sanitize-html');

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
  const token = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)[^<>]*?(\/?)>|<!--|<!\[CDATA\[/g;
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

interface Task {
  readonly id: number;
  readonly html: string;
  readonly inline: [string, string][];
  readonly resolve: (result: SanitizedHtml) => void;
  readonly reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  task?: Task;
  timer?: NodeJS.Timeout;
}

/**
 * Sanitises mail HTML off the main thread, so no message (200,000 nested divs, megabytes of markup)
 * can stall the event loop. Each message gets `timeLimitMs` on a worker; past it the worker is
 * terminated (and replaced when next needed) and the message keeps its text without HTML. Workers
 * start on first use and are unref'd: they never keep the process alive.
 */
export class HtmlSanitizerPool {
  private readonly slots: (Slot | undefined)[];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: HtmlSanitizerOptions = DEFAULT_HTML_SANITIZER) {
    this.slots = new Array(Math.max(1, options.threads)).fill(undefined);
  }

  sanitize(html: string, inline: InlineImages = new Map()): Promise<SanitizedHtml> {
    if (this.closed) return Promise.reject(new Error('the HTML sanitizer is closed'));
    if (nestingDepth(html, this.options.maxDepth) > this.options.maxDepth) return Promise.resolve({ html: null, dropped: true });
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, html, inline: [...inline], resolve, reject });
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error('the HTML sanitizer is closed'));
    await Promise.all(
      this.slots.map(async (slot, i) => {
        if (!slot) return;
        this.slots[i] = undefined;
        if (slot.timer) clearTimeout(slot.timer);
        slot.task?.reject(new Error('the HTML sanitizer is closed'));
        await slot.worker.terminate();
      }),
    );
  }

  private pump(): void {
    for (let i = 0; i < this.slots.length && this.queue.length > 0; i++) {
      let slot = this.slots[i];
      if (slot?.task) continue;
      if (!slot) {
        slot = this.spawn(i);
        this.slots[i] = slot;
      }
      const task = this.queue.shift()!;
      slot.task = task;
      // The limit counts from when a worker takes the message, so a queue of them is not dropped wholesale.
      slot.timer = setTimeout(() => this.timedOut(i, slot), this.options.timeLimitMs);
      slot.worker.postMessage({ id: task.id, html: task.html, inline: task.inline });
    }
  }

  private spawn(index: number): Slot {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { sanitizeHtml: SANITIZE_HTML_PATH } });
    worker.unref();
    const slot: Slot = { worker };
    worker.on('message', (msg: { id: number; html: string | null; error: string | null }) => {
      const task = slot.task;
      if (!task || task.id !== msg.id) return;
      this.finish(slot);
      // A sanitiser exception is the same as no time to do it: the HTML cannot be shown safely.
      task.resolve(msg.html === null ? { html: null, dropped: true } : { html: msg.html, dropped: false });
      this.pump();
    });
    const lost = (err: Error) => {
      if (this.slots[index] === slot) this.slots[index] = undefined;
      const task = slot.task;
      this.finish(slot);
      if (task) task.reject(err);
      if (!this.closed) this.pump();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => {
      if (this.slots[index] === slot) lost(new Error(`HTML sanitizer worker exited with code ${code}`));
    });
    return slot;
  }

  private timedOut(index: number, slot: Slot): void {
    const task = slot.task;
    this.finish(slot);
    // A worker stuck in sanitize-html cannot be interrupted, only replaced.
    if (this.slots[index] === slot) this.slots[index] = undefined;
    void slot.worker.terminate();
    task?.resolve({ html: null, dropped: true });
    if (!this.closed) this.pump();
  }

  private finish(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = undefined;
    slot.task = undefined;
  }
}
