import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Bytes escaped per turn of the event loop: about 1 ms of JSON escaping. */
const SLICE_BYTES = 256 * 1024;

/**
 * `JSON.stringify({...head, [field]: bytes as UTF-8 text})` as a stream, escaped a slice at a time with
 * a turn of the event loop between slices, so a message source of megabytes never holds the event loop
 * for one long `JSON.stringify` (docs/architecture.md, "Outsider bytes never run on the event loop").
 * Escaping slice by slice gives the same text: the decoder never splits a UTF-8 sequence, and JSON
 * escapes each character on its own. Tested by test/unit/json-text-stream.test.ts.
 */
export function jsonWithText(head: Record<string, unknown>, field: string, bytes: Buffer): Readable {
  const open = JSON.stringify(head);
  const prefix = `${open.length > 2 ? `${open.slice(0, -1)},` : '{'}${JSON.stringify(field)}:"`;
  async function* parts(): AsyncGenerator<string> {
    yield prefix;
    const decoder = new StringDecoder('utf8');
    for (let at = 0; at < bytes.length; at += SLICE_BYTES) {
      if (at > 0) await nextTurn();
      yield escaped(decoder.write(bytes.subarray(at, at + SLICE_BYTES)));
    }
    yield `${escaped(decoder.end())}"}`;
  }
  return Readable.from(parts(), { objectMode: false });
}

function escaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}
