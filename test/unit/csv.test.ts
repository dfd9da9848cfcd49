import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { csvCell, csvChunks, csvColumns, csvHeader, csvRecord, moneyCell } from '../../src/platform/exports/csv.js';
import { money } from '../../src/platform/http/openapi.js';
import { parseCsv } from '../helpers/csv.js';

describe('CSV columns from a list item schema', () => {
  it('names every field, flattens nested objects as parent_child, and finds money through meta, nullable and optional', () => {
    const item = z
      .strictObject({ id: z.string(), amount: money, rate: z.number(), paid_at: z.string().optional() })
      .extend({
        commission: z.strictObject({ id: z.string(), commission: money.meta({ description: 'x' }), status: z.enum(['a', 'b']) }).nullable(),
        refunded: money.nullable().optional(),
        count: z.number().int(),
        flag: z.boolean(),
      });
    expect(csvColumns(item).map((c) => [c.name, c.kind])).toEqual([
      ['id', 'text'],
      ['amount', 'money'],
      ['rate', 'number'],
      ['paid_at', 'text'],
      ['commission_id', 'text'],
      ['commission_commission', 'money'],
      ['commission_status', 'text'],
      ['refunded', 'money'],
      ['count', 'number'],
      ['flag', 'text'],
    ]);
    expect(() => csvColumns(z.string())).toThrow();
  });
});

describe('CSV cells', () => {
  it('writes money with exactly 2 decimals, negative amounts as numbers', () => {
    expect([5, 0.29, 0.1 + 0.2, 1234567.8, -12.5, -0.01, 0, 1_000_000_000].map(moneyCell)).toEqual([
      '5.00',
      '0.29',
      '0.30',
      '1234567.80',
      '-12.50',
      '-0.01',
      '0.00',
      '1000000000.00',
    ]);
    // a negative number in a number column is a number: never prefixed (it is not text a spreadsheet evaluates)
    expect(csvCell(-12.5, 'money')).toBe('-12.50');
    expect(csvCell(-3, 'number')).toBe('-3');
    expect(csvCell(12.5, 'number')).toBe('12.5');
  });

  it('quotes ", comma, CR and LF (RFC 4180) and prefixes formula starts with a quote mark', () => {
    expect(csvCell('plain', 'text')).toBe('plain');
    expect(csvCell('a,b', 'text')).toBe('"a,b"');
    expect(csvCell('say "hi"', 'text')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines', 'text')).toBe('"two\nlines"');
    expect(csvCell('cr\rhere', 'text')).toBe('"cr\rhere"');
    expect(csvCell('=1+1', 'text')).toBe("'=1+1");
    expect(csvCell('+1', 'text')).toBe("'+1");
    expect(csvCell('-dash', 'text')).toBe("'-dash");
    expect(csvCell('@SUM(A1)', 'text')).toBe("'@SUM(A1)");
    expect(csvCell('\tTab', 'text')).toBe("'\tTab");
    expect(csvCell('\rx', 'text')).toBe(`"'\rx"`);
    expect(csvCell('=HYPERLINK("http://x.test","a")', 'text')).toBe(`"'=HYPERLINK(""http://x.test"",""a"")"`);
    // a text field holding a negative-looking string is text: prefixed
    expect(csvCell('-12.50', 'text')).toBe("'-12.50");
    expect(csvCell('a=b', 'text')).toBe('a=b');
    expect(csvCell(null, 'money')).toBe('');
    expect(csvCell(undefined, 'text')).toBe('');
    expect(csvCell(true, 'text')).toBe('true');
    expect(csvCell('ünïcødé €', 'text')).toBe('ünïcødé €');
  });

  it('makes records a reader parses back to the same values', async () => {
    const columns = csvColumns(z.strictObject({ a: z.string(), b: money, c: z.strictObject({ d: z.string() }).nullable() }));
    expect(csvHeader(columns)).toBe('a,b,c_d\r\n');
    expect(csvRecord(columns, { a: 'x, "y"\r\nz', b: 2, c: null })).toBe('"x, ""y""\r\nz",2.00,\r\n');
    const batches = (async function* () {
      yield [{ a: '1', b: 1, c: { d: '=d' } }];
      yield [];
      yield [{ a: 'two\nlines', b: -1.5, c: null }];
    })();
    let text = '';
    for await (const chunk of csvChunks(columns, batches)) text += chunk;
    expect(parseCsv(text)).toEqual([
      ['a', 'b', 'c_d'],
      ['1', '1.00', "'=d"],
      ['two\nlines', '-1.50', ''],
    ]);
  });
});
