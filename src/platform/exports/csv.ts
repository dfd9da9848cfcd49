import type { z } from 'zod';
import { money } from '../http/openapi.js';
import { type Currency, minorText, USD } from '../money.js';
import { neutraliseCell, stripInvisible } from '../plain-text.js';

/**
 * CSV (RFC 4180, docs/api.md#csv-exports) for the list exports. The columns are read off the list route's item
 * schema, the same declaration that types and documents the JSON list, so a field added to the items
 * appears in the CSV without touching this file. Nested objects are flattened as `parent_child`.
 *
 * Cells: money fields (declared with `money`, also through `.meta()`, `.nullable()`, `.optional()`)
 * always have the currency's decimals, 2 for USD ("-12.50" for a clawback); other numbers as JSON writes them; null or absent
 * values (a null nested object, an unpaid order's paid_at) are empty. Only text cells are guarded
 * against formula injection (textCell, plain-text.ts neutraliseCell: invisible characters stripped, one starting,
 * after spaces, with `=`, `+`, `-`, `@`, tab or CR or a full-width form of them gets a leading `'`), the one rule
 * of every CSV svc writes, payout files included.
 * Numbers are never prefixed: they are written by this module from JSON numbers, so they hold only
 * digits, a point and a leading minus, and a spreadsheet must read "-12.50" as the number it is.
 */

/** `name`: a text column holding a name (`name`, `*_name`, `account_holder`): every control and invisible character stripped, line breaks too. */
export type CellKind = 'money' | 'number' | 'text' | 'name';

export interface CsvColumn {
  /** The header: the JSON path joined with `_` (commission_pending). */
  readonly name: string;
  readonly path: readonly string[];
  readonly kind: CellKind;
}

/** Wrappers that leave the value's own type unchanged (null and absent values become empty cells). */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional', 'catch']);

interface Def {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly out?: z.ZodType;
  readonly shape?: Record<string, z.ZodType>;
}

function defOf(schema: z.ZodType): Def {
  return schema._zod.def as unknown as Def;
}

function unwrap(schema: z.ZodType): z.ZodType {
  let s = schema;
  for (;;) {
    const def = defOf(s);
    if (WRAPPERS.has(def.type) && def.innerType) s = def.innerType;
    else if (def.type === 'pipe' && def.out) s = def.out;
    else return s;
  }
}

/** Declared with `money` (http/openapi.ts), directly or as a clone made by `.meta()`/`.describe()`. */
function isMoney(schema: z.ZodType): boolean {
  for (let s: z.ZodType | undefined = schema; s; s = s._zod.parent as z.ZodType | undefined) if (s === money) return true;
  return false;
}

/** The columns of a list item schema (an object), in declaration order, nested objects flattened. */
export function csvColumns(item: z.ZodType): CsvColumn[] {
  const root = unwrap(item);
  if (defOf(root).type !== 'object') throw new Error('a CSV export needs an object item schema');
  const columns: CsvColumn[] = [];
  const walk = (schema: z.ZodType, path: string[]) => {
    const s = unwrap(schema);
    const def = defOf(s);
    if (def.type === 'object' && def.shape) {
      for (const [key, child] of Object.entries(def.shape)) walk(child, [...path, key]);
      return;
    }
    const key = path[path.length - 1] ?? '';
    const text: CellKind = key === 'name' || key.endsWith('_name') || key === 'account_holder' ? 'name' : 'text';
    const kind: CellKind = def.type === 'number' || def.type === 'int' ? (isMoney(s) ? 'money' : 'number') : text;
    columns.push({ name: path.join('_'), path, kind });
  };
  walk(root, []);
  return columns;
}

/**
 * Money with exactly the currency's decimals through integer minor units (docs/api.md#payouts: no float digits;
 * USD 0.29 is "0.29", -5 is "-5.00"; JPY 1234 is "1234"; KWD 1.125 is "1.125").
 */
export function currencyCell(value: number, cur: Currency): string {
  return minorText(Math.round(value * 10 ** cur.digits), cur);
}

/** currencyCell in USD (2 decimals). */
export function moneyCell(value: number): string {
  return currencyCell(value, USD);
}

/** Quotes a field that holds `"`, `,`, CR or LF (RFC 4180 §2.6–2.7). */
export function quoteField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A text cell of any CSV svc writes: neutralised (plain-text.ts), then quoted when needed. */
export function textCell(text: string): string {
  return quoteField(neutraliseCell(text));
}

/** One cell, quoted when needed. */
export function csvCell(value: unknown, kind: CellKind, cur: Currency = USD): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return '';
    return kind === 'money' ? currencyCell(value, cur) : String(value);
  }
  const text = typeof value === 'string' ? value : typeof value === 'boolean' ? String(value) : JSON.stringify(value);
  return textCell(kind === 'name' ? stripInvisible(text) : text);
}

function valueAt(item: unknown, path: readonly string[]): unknown {
  let v: unknown = item;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

export function csvHeader(columns: readonly CsvColumn[]): string {
  return `${columns.map((c) => quoteField(c.name)).join(',')}\r\n`;
}

/** One record, CRLF-terminated. */
export function csvRecord(columns: readonly CsvColumn[], item: unknown, cur: Currency = USD): string {
  let line = '';
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i] as CsvColumn;
    if (i > 0) line += ',';
    line += csvCell(valueAt(item, c.path), c.kind, cur);
  }
  return `${line}\r\n`;
}

/** The header, then one chunk per batch of items: pulled by the HTTP stream, so at most a batch is held. */
export async function* csvChunks(columns: readonly CsvColumn[], batches: AsyncIterable<readonly unknown[]>, cur: Currency = USD): AsyncGenerator<string> {
  yield csvHeader(columns);
  for await (const batch of batches) {
    let chunk = '';
    for (const item of batch) chunk += csvRecord(columns, item, cur);
    if (chunk) yield chunk;
  }
}
