import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { csvCell, csvChunks, csvColumns, csvHeader, csvRecord, moneyCell } from '../../src/platform/exports/csv.js';
import { money } from '../../src/platform/http/openapi.js';
import { parseCsv } from '../helpers/csv.js';
import { neutraliseCell, startsLikeFormula, stripInvisible } from '../../src/platform/plain-text.js';

describe('CSV columns from a list item schema', () => {
  it('names every field, flattens nested objects as parent_child, and finds money through meta, nullable and optional', () => {
    const item = z
      .strictObject({ id: z.string(), amount: money, rate: z.number(), paid_at: z.string().optional() })
      .extend({
        commission: z.strictObject({ id: z.string(), commission: money.meta({ description: 'x' }), status: z.enum(['a', 'b']) }).nullable(),
        refunded: money.nullable().optional(),
        count: z.number().int(),
        flag: z.boolean(),
        name: z.string().nullable(),
        affiliate: z.strictObject({ display_name: z.string(), named: z.string() }),
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
      ['name', 'name'],
      ['affiliate_display_name', 'name'],
      ['affiliate_named', 'text'],
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

  // docs/api.md#csv-exports: one rule for every CSV svc writes (plain-text.ts).
  const FORMULA_CHARACTERS = ['=', '+', '-', '@', '\t', '\r', '\uff1d', '\uff0b', '\uff0d', '\uff20', '\ufe66', '\ufe62', '\ufe63', '\u2212'];
  for (const c of FORMULA_CHARACTERS) {
    it(`neutralises a cell starting with U+${c.codePointAt(0)!.toString(16).padStart(4, '0')}, also after leading spaces`, () => {
      expect(startsLikeFormula(`${c}1+1`)).toBe(true);
      expect(neutraliseCell(`${c}1+1`)).toBe(`'${c}1+1`);
      expect(neutraliseCell(`   ${c}cmd`)).toBe(`'   ${c}cmd`);
      expect(neutraliseCell(`\u00a0\u3000${c}cmd`)).toBe(`'\u00a0\u3000${c}cmd`);
      // in the middle it is text
      expect(neutraliseCell(`a${c}b`)).toBe(`a${c}b`);
      expect(parseCsv(`${csvCell(`  ${c}HYPERLINK("http://x.test")`, 'text')}\r\n`)[0]![0]!.startsWith("'")).toBe(true);
    });
  }

  it('strips control and zero-width characters: from names wholly (a line break becomes a space), from other text all but line breaks and tabs', () => {
    const hostile = 'Ja\u202ene\u200b \u200c\u200dDoe\u2060\ufeff\u0000\u0007\u001b[31m\u007f\u2066x\u2069\u00ad';
    expect(stripInvisible(hostile)).toBe('Jane Doe[31mx');
    expect(stripInvisible('line\none\ttab\r\n\u0085\u2028end')).toBe('line one tab end');
    expect(csvCell(hostile, 'name')).toBe('Jane Doe[31mx');
    expect(csvCell('two\nlines\u200b', 'name')).toBe('two lines');
    expect(csvCell('two\nlines\u200b', 'text')).toBe('"two\nlines"');
    // the formula start hidden behind invisible characters is still found
    expect(csvCell('\u200b\u202e=1+1', 'text')).toBe("'=1+1");
    expect(csvCell(' \u2060@SUM(A1)', 'name')).toBe("' @SUM(A1)");
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
