import { randomBytes } from 'node:crypto';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { jsonWithText } from '../../src/platform/http/json-text-stream.js';

describe('jsonWithText: a JSON object whose last field is a long text, streamed a slice at a time', () => {
  it.each([
    ['empty', Buffer.alloc(0)],
    ['ASCII with CRLF, quotes and backslashes', Buffer.from('Subject: "hi"\r\n\r\nC:\\path\t\u0001\n'.repeat(50_000))],
    // multi-byte sequences and astral characters cut at every slice boundary somewhere
    ['UTF-8 of every width across slice boundaries', Buffer.from('aé€😀'.repeat(300_000))],
    ['invalid UTF-8 (random bytes)', randomBytes(700_000)],
  ])('%s: the same text as JSON.stringify of the whole', async (_name, bytes) => {
    const head = { '@context': '/contexts/Source', id: 'm1', downloadUrl: '/messages/m1/download' };
    const streamed = await text(jsonWithText(head, 'data', bytes));
    expect(streamed).toBe(JSON.stringify({ ...head, data: bytes.toString('utf8') }));
  });

  it('an empty head gives an object with the one field', async () => {
    expect(await text(jsonWithText({}, 'data', Buffer.from('x')))).toBe('{"data":"x"}');
  });
});
