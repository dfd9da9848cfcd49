import { availableParallelism } from 'node:os';
import workerpool from 'workerpool';
import { AppError } from '../../platform/errors.js';
import { type ComposeJob, degradedInspected, type HeaderParts, type Inspected, type IntakeJob, type NextStep, type ParsedMime, type SanitizeJob, type Sanitized, STARTED } from './content-jobs.js';
import type { MailHeader } from './mail-source.js';
import type { JsonBody } from '../../platform/http/input-guards.js';

/**
 * The one bounded pool of workers that runs every step reading bytes an outsider chose
 * (docs/architecture.md#outsider-bytes-never-run-on-the-event-loop): MIME parsing, HTML sanitising and text
 * from HTML, code finding, the remote-images rewrite, composing a source. The main thread only moves bytes
 * and rows.
 *
 * - Each job has a time limit that counts from when a worker starts it (queued jobs are not dropped by
 *   a burst), an eighth longer per MiB of input, and a memory limit (the worker's heap). A job over either
 *   ends its worker, which is replaced, and rejects with `ContentJobFailed`; callers decide how the message
 *   degrades (content-pool.test.ts, hostile-content.test.ts).
 * - Workers are child processes, not threads: a worker thread's `resourceLimits` cannot stop a job that
 *   allocates fast enough, and V8 then aborts the whole process (seen with 40 MB of markup and a 32 MiB
 *   limit: the service died). A child process over its heap dies alone.
 * - At most `threads` jobs run and `maxQueue` wait; past that `OverloadedError` (SMTP 451, HTTP 503).
 *
 * Why workerpool: a cancelled task ends its worker and the pool replaces it, its queue and thread
 * count are options, and a worker can tell the pool it began a task (the start of the time limit).
 */

export interface ContentPoolOptions {
  readonly threads: number;
  /** Jobs that may wait for a worker; past it new work is refused as overloaded. */
  readonly maxQueue: number;
  /** A job's time limit for a small input. */
  readonly timeLimitMs: number;
  /**
   * The same for the jobs of a message's first read (sanitising its HTML, showing its remote images);
   * the service sets both from SVC_MAIL_HTML_TIMEOUT_MS. Apart, a test can make reading a message run over
   * its limit while storing it does not, on any CPU (content-pool.test.ts).
   */
  readonly htmlTimeLimitMs: number;
  /** The heap of one worker (`--max-old-space-size`), in MiB; a job that needs more ends its worker. */
  readonly memoryLimitMb: number;
  /** HTML nested deeper than this is dropped before any parser sees it. */
  readonly maxHtmlDepth: number;
  /** A message with more lines starting `--` than this is refused unparsed (100 attachments and their text parts fit). */
  readonly maxBoundaryLines: number;
}

export const DEFAULT_CONTENT_POOL: ContentPoolOptions = Object.freeze({
  threads: Math.max(2, Math.min(4, availableParallelism())),
  maxQueue: 256,
  timeLimitMs: 2000,
  htmlTimeLimitMs: 2000,
  memoryLimitMb: 512,
  maxHtmlDepth: 1000,
  maxBoundaryLines: 1000,
});

/** 503 `overloaded` with Retry-After: the pool's queue is full. Nothing was stored; the client tries again. */
export class OverloadedError extends AppError {
  constructor(retryAfterSeconds = 1) {
    super(503, 'overloaded', 'Too much mail is being processed; retry later', { retry_after: retryAfterSeconds }, { 'retry-after': String(retryAfterSeconds) });
  }
}

/** A job that ran over its time or memory limit, or failed, in a worker. */
export class ContentJobFailed extends Error {
  constructor(
    readonly job: string,
    readonly reason: 'timeout' | 'memory' | 'error',
    cause: unknown,
  ) {
    super(`content job ${job} failed: ${reason}`, { cause });
  }
}

/**
 * The pool could not run a job for reasons of its own, not the input's: its workers die before they begin
 * (a worker script that cannot load, workers killed from outside), or it was closed (shutdown). Not a
 * ContentJobFailed, so no message is refused with a 5xx or stored degraded for it: SMTP answers 451, HTTP
 * 500, nothing is stored (content-pool.test.ts: "a worker killed while idle", "a closed pool").
 */
export class ContentPoolUnavailable extends Error {}

/** The message has more MIME parts than a message of at most 100 attachments needs: refused unread. */
export class TooManyMimeParts extends Error {}

/**
 * The worker script is the compiled `content-worker.js` beside this module. Run from source (vitest),
 * this module is `src/mail/messages/content-pool.ts` and the worker is the build's `dist/mail/messages/content-worker.js`:
 * the test setup builds it first (test/helpers/global-setup.ts).
 */
function workerScript(): string {
  const here = new URL(import.meta.url);
  if (here.pathname.endsWith('.ts')) return new URL(here.href.replace(/\/src\/mail\/messages\/content-pool\.ts$/, '/dist/mail/messages/content-worker.js')).pathname;
  return new URL('./content-worker.js', here).pathname;
}

const MIB = 1024 * 1024;

interface RunOptions {
  /** Told of each further step of a job of several (NextStep). */
  readonly onStep?: (step: string) => void;
  /** The job's time limit is at least this, whatever the pool's. */
  readonly minLimitMs?: number;
  /** The limit for a small input, when not the pool's timeLimitMs. */
  readonly limitMs?: number;
}

export class ContentPool {
  private readonly pool: ReturnType<typeof workerpool.pool>;
  private closed = false;

  constructor(readonly options: ContentPoolOptions = DEFAULT_CONTENT_POOL) {
    this.pool = workerpool.pool(workerScript(), {
      workerType: 'process',
      minWorkers: 0,
      maxWorkers: Math.max(1, options.threads),
      // A stuck worker never answers the pool's clean-up request: end it soon instead of after 1 s.
      workerTerminateTimeout: 100,
      forkOpts: {
        // Structured clone over the channel: bytes stay bytes (JSON would spell them out).
        serialization: 'advanced',
        execArgv: [`--max-old-space-size=${options.memoryLimitMb}`, `--max-semi-space-size=${Math.min(16, options.memoryLimitMb)}`],
      },
    });
  }

  /** Jobs running and waiting: for /metrics and tests. */
  stats(): { running: number; waiting: number; workers: number } {
    const s = this.pool.stats();
    return { running: s.activeTasks, waiting: s.pendingTasks, workers: s.totalWorkers };
  }

  /** Parses a raw RFC 822 message. Over its limits: ContentJobFailed; too many parts: TooManyMimeParts. */
  async parseMime(raw: Buffer): Promise<ParsedMime> {
    try {
      return await this.run<ParsedMime>('parseMime', [new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength), this.options.maxBoundaryLines], raw.length);
    } catch (err) {
      throwIfTooManyParts(err);
      throw err;
    }
  }

  /**
   * Parses a raw message (SMTP) and inspects it for storing in one job, as `parseMime` then `inspect` would
   * (one crossing instead of two; each step has its own time limit). A parse over its limits or too many
   * parts fail as `parseMime` does; an inspection over its limits answers the parse (run again) with the
   * message degraded.
   */
  async receive(raw: Buffer): Promise<{ parsed: ParsedMime; inspected: Inspected }> {
    const steps: string[] = [];
    try {
      return await this.run<{ parsed: ParsedMime; inspected: Inspected }>(
        'receive',
        [new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength), this.options.maxBoundaryLines, this.options.maxHtmlDepth],
        raw.length,
        { onStep: (step) => steps.push(step) },
      );
    } catch (err) {
      throwIfTooManyParts(err);
      if (!(err instanceof ContentJobFailed) || !steps.includes('inspect')) throw err;
      // Parsing fit its limits; the HTML or text did not: parse again alone and keep the message degraded.
      const parsed = await this.parseMime(raw);
      return { parsed, inspected: degradedInspected(parsed.html) };
    }
  }

  /** Reads a large JSON request body (a message given as parts): its UTF-8 decoding and parsing are the bytes' first reading. */
  readJson(bytes: Buffer): Promise<JsonBody> {
    // Linear work on a body already within its size limit: the time limit is only a backstop, whatever SVC_MAIL_HTML_TIMEOUT_MS says.
    const bytesIn = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    return this.run<JsonBody>('readJson', [bytesIn], bytes.length, { minLimitMs: DEFAULT_CONTENT_POOL.timeLimitMs });
  }

  /** Decodes the base64 attachments of POST /api/inbound (strict: null for one that is not base64). */
  async decodeAttachments(texts: readonly string[]): Promise<(Buffer | null)[]> {
    const decoded = await this.run<(Uint8Array | null)[]>('decodeAttachments', [texts], texts.reduce((n, t) => n + t.length, 0));
    return decoded.map((bytes) => (bytes ? Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null));
  }

  /** Finds the code of a message being stored, measures its HTML and (given as parts) composes its headers. */
  inspect(job: Omit<IntakeJob, 'maxDepth'>): Promise<Inspected> {
    const size = (job.html?.length ?? 0) + (job.text?.length ?? 0);
    return this.run<Inspected>('inspect', [{ ...job, maxDepth: this.options.maxHtmlDepth }], size);
  }

  /** Sanitises a message's HTML (the first time it is read), its `cid:` images inlined. */
  sanitize(job: Omit<SanitizeJob, 'maxDepth'>): Promise<Sanitized> {
    const size = job.html.length + job.inline.reduce((n, i) => n + i.content.byteLength, 0);
    return this.run<Sanitized>('sanitize', [{ ...job, maxDepth: this.options.maxHtmlDepth }], size, { limitMs: this.options.htmlTimeLimitMs });
  }

  /** Stored (sanitised) HTML with its remote images given their sources back. */
  showRemoteImages(html: string): Promise<string> {
    return this.run<string>('showRemoteImages', [html], html.length, { limitMs: this.options.htmlTimeLimitMs });
  }

  /** The raw source of a message given as parts. */
  async compose(job: ComposeJob): Promise<Buffer> {
    const size = (job.html?.length ?? 0) + (job.text?.length ?? 0) + job.attachments.reduce((n, a) => n + a.content.byteLength, 0);
    const bytes = await this.run<Uint8Array>('compose', [job], size * 2);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** The headers `compose` would write (a message stored without them). */
  headers(parts: HeaderParts): Promise<MailHeader[]> {
    return this.run<MailHeader[]>('headers', [parts], (parts.subject?.length ?? 0) + (parts.to?.length ?? 0));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.pool.terminate(true);
  }

  private async run<T>(job: string, params: unknown[], inputBytes: number, options: RunOptions = {}): Promise<T> {
    if (this.closed) throw new ContentPoolUnavailable('the content pool is closed');
    const { activeTasks, pendingTasks } = this.pool.stats();
    if (pendingTasks >= this.options.maxQueue && activeTasks >= this.options.threads) throw new OverloadedError();
    // A worker that died while idle (killed from outside) is only found out by the next job sent to it, and
    // a worker killed from outside mid-job says nothing about the job: neither may cost a message its HTML
    // or its delivery. Such a job runs again on a fresh worker: while it never began, once per worker the
    // pool may hold (each dead one fails at once); once more if it had begun. A job that fails the same
    // way twice after beginning is its input's fault (ContentJobFailed); one that never begins, the pool's.
    let crashedAfterStart = 0;
    for (let attempt = 0; ; attempt++) {
      const outcome = await this.attempt<T>(job, params, inputBytes, options);
      if (outcome.ok) return outcome.value;
      const { err, started, overran } = outcome;
      if (this.closed) throw new ContentPoolUnavailable('the content pool was closed while the job ran', { cause: err });
      const crashed = !overran && err instanceof workerpool.TerminateError && failureReason(err) !== 'memory';
      if (crashed && !started && attempt < this.options.threads + 1) {
        // The pool removes the dead worker a few promise turns after the rejection: let it, so the next try gets another.
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      if (crashed && !started) throw new ContentPoolUnavailable(`content job ${job}: its workers die before they begin`, { cause: err });
      if (crashed && crashedAfterStart++ === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      throw new ContentJobFailed(job, overran ? 'timeout' : failureReason(err), err);
    }
  }

  private async attempt<T>(
    job: string,
    params: unknown[],
    inputBytes: number,
    { onStep, minLimitMs = 0, limitMs = this.options.timeLimitMs }: RunOptions,
  ): Promise<{ ok: true; value: T } | { ok: false; err: unknown; started: boolean; overran: boolean }> {
    let timer: NodeJS.Timeout | undefined;
    let overran = false;
    let started = false;
    // Parsing 9 MB of MIME honestly takes longer than 10 KB: the limit grows by an eighth of itself per MiB.
    const limitFor = (bytes: number) => Math.max(minLimitMs, Math.ceil(limitMs * (1 + bytes / MIB / 8)));
    const startTimer = (bytes: number) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        overran = true;
        task.cancel();
      }, limitFor(bytes));
    };
    // The limit counts from when the worker starts the job (it says so first, content-worker.ts), so neither
    // the queue nor loading a fresh worker's modules (about half a second) eats into it. Cancelling ends the worker.
    const task = this.pool.exec(job, params, {
      on: (event: unknown) => {
        if (event === STARTED && !started) {
          started = true;
          startTimer(inputBytes);
        } else if (started && typeof event === 'object' && event !== null && 'step' in event) {
          const next = event as NextStep;
          onStep?.(next.step);
          startTimer(next.inputBytes);
        }
      },
    });
    try {
      return { ok: true, value: (await task) as T };
    } catch (err) {
      return { ok: false, err, started, overran };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The worker's TooManyParts (content-worker.ts) as the error callers know: the message is refused unread. */
function throwIfTooManyParts(err: unknown): void {
  const cause = (err as { cause?: { name?: string; message?: string } }).cause;
  if (cause?.name === 'TooManyParts') throw new TooManyMimeParts(cause.message);
}

function failureReason(err: unknown): 'memory' | 'error' {
  // V8 aborts a process out of heap (SIGABRT after "JavaScript heap out of memory"); workerpool reports the exit.
  return /SIGABRT|heap out of memory/i.test(String((err as Error)?.message ?? '')) ? 'memory' : 'error';
}
