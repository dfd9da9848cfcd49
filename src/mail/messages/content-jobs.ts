import type { HtmlState } from '../../platform/db/schema.js';
import type { MailHeader, SourceParts } from './mail-source.js';

/**
 * The shapes that cross between the main thread and the content pool's workers (content-worker.ts).
 * Bytes cross as Uint8Array: a structured clone keeps no Buffer prototype.
 */

/** What MIME parsing of a raw message answers (its attachments' bytes are moved, not copied). */
export interface ParsedMime {
  readonly from: { readonly address: string; readonly name: string | null } | null;
  readonly toHeader: string | null;
  readonly subject: string | null;
  readonly text: string | null;
  readonly html: string | null;
  readonly headers: MailHeader[];
  readonly attachments: { filename: string | null; contentType: string | null; contentId: string | null; content: Uint8Array }[];
}

/** A message's own image by content id, for `cid:` references in its HTML. */
export interface InlineImage {
  readonly contentId: string;
  readonly contentType: string;
  readonly content: Uint8Array;
}

/** The parts of a message without attachment bytes: enough to compose its headers. */
export type HeaderParts = Omit<SourceParts, 'attachments'> & {
  readonly attachments: readonly { filename: string; contentType: string; contentId: string | null }[];
};

/** Sanitising a message's HTML, the first time it is read (MailReader), its `cid:` images inlined. */
export interface SanitizeJob {
  readonly html: string;
  readonly inline: readonly InlineImage[];
  /** HTML nested deeper than this is dropped before any parser sees it (sanitize-html's cost grows with depth squared). */
  readonly maxDepth: number;
}

export interface Sanitized {
  readonly html: string | null;
  readonly state: Extract<HtmlState, 'clean' | 'dropped'>;
}

/**
 * Storing a message: what is known before anyone reads it. Its code is found and, for mail given as parts,
 * the headers of its source composed (from these same subject, text and HTML); its HTML is only measured
 * (nested deeper than `maxDepth`: dropped) and stored as received (`raw`), to be sanitised the first time it
 * is read (`SanitizeJob`), since most temporary mail is read once or never.
 */
export interface IntakeJob {
  readonly subject: string | null;
  readonly text: string | null;
  readonly html: string | null;
  readonly maxDepth: number;
  readonly headersOf: Omit<HeaderParts, 'subject' | 'text' | 'html'> | null;
}

export interface Inspected {
  readonly state: Extract<HtmlState, 'raw' | 'none' | 'dropped'>;
  readonly code: string | null;
  /** The message's links and the one that confirms (links.ts), found with the code. */
  readonly links: string[];
  readonly verificationLink: string | null;
  /** Its subject and text as search indexes them (search-text.ts); null when the job could not run. */
  readonly searchText: string | null;
  readonly headers: MailHeader[] | null;
}

/** Composing the raw source of a message given as parts. */
export type ComposeJob = Omit<SourceParts, 'attachments'> & {
  readonly attachments: readonly { filename: string; contentType: string; contentId: string | null; content: Uint8Array }[];
};

/** What a worker emits as it begins a job. */
export const STARTED = 'started';

/**
 * What a worker emits as a job of two steps begins its second: the second step gets a time limit of its own,
 * for its own input, as if it were a job of its own (a raw message is parsed, then inspected, in one job).
 */
export interface NextStep {
  readonly step: string;
  readonly inputBytes: number;
}

/** A message whose inspection at intake overran its limits is stored degraded (docs/architecture.md): text kept, HTML dropped, no code. */
export function degradedInspected(html: string | null): Inspected {
  return { state: html === null ? 'none' : 'dropped', code: null, links: [], verificationLink: null, searchText: null, headers: null };
}
