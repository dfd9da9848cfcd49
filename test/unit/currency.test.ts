import { describe, expect, it } from 'vitest';
import { currencyCell } from '../../src/platform/exports/csv.js';
import { currencyOf, fromMinor, minorText, rescaleMinor, toMinor, USD } from '../../src/platform/money.js';
import { payableStoredDetails, payoutDetailsField, sepaText } from '../../src/loop/payouts/payout-details.js';
import { paypalCsv, wiseCsv } from '../../src/loop/payouts/payout-files.js';
import type { PayoutBatch, Withdrawal } from '../../src/platform/db/schema.js';

const JPY = currencyOf('JPY');
const KWD = currencyOf('KWD');

describe('currency (docs/api.md#payouts)', () => {
  it('takes the minor unit from the platform ISO 4217 data, and knows no made-up code', () => {
    expect([JPY, currencyOf('USD'), KWD, currencyOf('EUR')]).toEqual([
      { code: 'JPY', digits: 0 },
      { code: 'USD', digits: 2 },
      { code: 'KWD', digits: 3 },
      { code: 'EUR', digits: 2 },
    ]);
    for (const bad of ['XYZ', 'usd', 'US', 'USDX', '']) expect(currencyOf(bad)).toBeUndefined();
  });

  it('parses money with at most the currency decimals, exactly', () => {
    if (!JPY || !KWD) throw new Error('no JPY/KWD');
    expect(toMinor(1.5, JPY)).toBeUndefined();
    expect(toMinor(1234, JPY)).toBe(1234);
    expect(toMinor(1.125, KWD)).toBe(1125);
    expect(toMinor(1.1255, KWD)).toBeUndefined();
    expect(toMinor(0.29, USD)).toBe(29);
    expect(toMinor(123456789.123, USD)).toBeUndefined();
    expect(fromMinor(1125, KWD)).toBe(1.125);
    expect([minorText(1234, JPY), minorText(1125, KWD), minorText(-1250, USD), minorText(5, KWD)]).toEqual(['1234', '1.125', '-12.50', '0.005']);
    expect([currencyCell(1234, JPY), currencyCell(1.125, KWD), currencyCell(0.29, USD)]).toEqual(['1234', '1.125', '0.29']);
  });

  it('rescales a configured amount to another currency only when it stays exact', () => {
    if (!JPY || !KWD) throw new Error('no JPY/KWD');
    expect(rescaleMinor(500, USD, JPY)).toBe(5);
    expect(rescaleMinor(550, USD, JPY)).toBeUndefined();
    expect(rescaleMinor(500, USD, KWD)).toBe(5000);
    expect(rescaleMinor(1000, KWD, JPY)).toBe(1);
    expect(rescaleMinor(1125, KWD, JPY)).toBeUndefined();
  });

  it('writes SEPA text in the SEPA character set', () => {
    expect(sepaText('Zoë Müller-Łukasz & Søn <GmbH>', 70)).toBe('Zoe Muller-Lukasz Son GmbH');
    expect(sepaText('Straße 12/3, "Ätna"', 70)).toBe('Strasse 12/3, Atna');
    // control and invisible characters are dropped, not turned into spaces inside a name
    expect(sepaText('Jo\u200bhn\u202e D\u0007oe\ufeff', 70)).toBe('John Doe');
    expect(sepaText('日本', 70)).toBe('NOTPROVIDED');
    expect(sepaText('x'.repeat(80), 70)).toHaveLength(70);
  });

  it('refuses a SEPA name that would reach the bank as NOTPROVIDED; Wise takes any script', () => {
    const sepa = (account_holder: string) => payoutDetailsField.safeParse({ method: 'sepa', iban: 'DE89370400440532013000', account_holder });
    const refusal = sepa('张伟');
    expect(refusal.success).toBe(false);
    expect(refusal.error?.issues[0]?.path).toEqual(['account_holder']);
    expect(refusal.error?.issues[0]?.message).toMatch(/Latin letters or digits/);
    expect(sepa('Zoë Müller').success).toBe(true);
    expect(sepa('张伟 Zhang Wei').success).toBe(true);
    expect(payoutDetailsField.safeParse({ method: 'wise', email: 'w@example.com', account_holder: '张伟' }).success).toBe(true);
  });

  it('reads stored payout details as payable or not, the same verdict however often a text is asked for', () => {
    const valid = JSON.stringify({ method: 'sepa', iban: 'DE89370400440532013000', account_holder: 'Zoë Müller' });
    const badIban = JSON.stringify({ method: 'sepa', iban: 'DE89370400440532013001', account_holder: 'Zoë Müller' });
    for (let i = 0; i < 3; i++) {
      expect(payableStoredDetails(valid)).toEqual({ method: 'sepa', iban: 'DE89370400440532013000', account_holder: 'Zoë Müller' });
      expect(payableStoredDetails(badIban)).toBeNull();
    }
    // free text of older versions is an `other` note; no details at all are not payable
    expect(payableStoredDetails('IBAN DE89 3704 0044 0532 0130 00')).toEqual({ method: 'other', note: 'IBAN DE89 3704 0044 0532 0130 00' });
    expect(payableStoredDetails(null)).toBeNull();
    expect(payableStoredDetails('')).toBeNull();
    // what is kept for the next caller cannot be changed by this one
    expect(Object.isFrozen(payableStoredDetails(valid))).toBe(true);
  });

  it('writes a plain recipient email exactly as given; one stored before the plain-address rule (a leading - + or =) leaves the cell empty', async () => {
    const batch = { id: 'pb_1' } as PayoutBatch;
    const withdrawal = (email: string) => ({ id: 'wd_1', ref_code: 'dave', amount_cents: 5000, payout: JSON.stringify({ method: 'paypal', email }) }) as Withdrawal;
    async function* pages(w: Withdrawal) {
      yield [w];
    }
    const text = async (chunks: AsyncIterable<string>) => {
      let all = '';
      for await (const c of chunks) all += c;
      return all;
    };
    const eur = currencyOf('EUR') ?? USD;
    // the provider pays exactly what is written: a plain address as it is, with its + and - inside
    expect(await text(paypalCsv(batch, eur, pages(withdrawal('a-2+3@example.com'))))).toBe('a-2+3@example.com,50.00,EUR,wd_1,Affiliate payout pb_1,PAYPAL\r\n');
    // never a formula, nor an apostrophe in front (another address): empty, so the provider refuses the line
    for (const bad of ['-2+3@example.com', '=1+1@example.com', '+x@example.com', '\uff1dx@example.com']) {
      expect(await text(paypalCsv(batch, eur, pages(withdrawal(bad))))).toBe(',50.00,EUR,wd_1,Affiliate payout pb_1,PAYPAL\r\n');
      expect((await text(wiseCsv(batch, eur, pages(withdrawal(bad))))).split('\r\n')[1]).toBe('dave,,wd_1,PERSON,EUR,50.00,EUR,EUR');
    }
  });
});
