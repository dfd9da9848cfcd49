import { create, fragment } from 'xmlbuilder2';
import { toIso } from '../../platform/clock.js';
import type { PayoutBatch, Withdrawal } from '../../platform/db/schema.js';
import { quoteField, textCell as cell } from '../../platform/exports/csv.js';
import { type Currency, minorText } from '../../platform/money.js';
import { stripInvisible } from '../../platform/plain-text.js';
import { isPlainEmail, readPayoutDetails, sepaText } from './payout-details.js';

/**
 * The files of a payout batch (docs/api.md#payouts), written as the client reads them: `pages` yields the
 * batch's withdrawals a keyset page at a time and they leave as small chunks (see CHUNK_CHARS), so a batch
 * of any size is streamed in flat memory. Amounts are written from integer minor units (minorText), never from
 * floats, and the SEPA file's CtrlSum is the batch's stored total, equal to the sum of its lines.
 * Proved by test/integration/payout-batches.test.ts (each file parsed back).
 */

/**
 * The most rows a provider's upload takes in one file: PayPal Payouts' web upload 5,000 payments, Wise's batch
 * payments 1,000 transfers. A larger batch's file is also served in parts of at most this many (`?part=N`).
 * SEPA files have no such limit here (the bank's, if any, is not known).
 */
export const UPLOAD_ROWS: Readonly<Partial<Record<string, number>>> = { paypal: 5000, wise: 1000 };

/** How many files a batch's provider takes it in: 0 for a method without a file. */
export function fileParts(method: string, count: number): number {
  if (method === 'sepa') return 1;
  const rows = UPLOAD_ROWS[method];
  return rows === undefined ? 0 : Math.max(1, Math.ceil(count / rows));
}

export interface SepaDebtor {
  readonly name: string;
  readonly iban: string;
  readonly bic: string | null;
}

/**
 * Chunks of at most about this many characters. A larger string, and the Buffer written from it, goes to
 * V8's large-object space, which only a full collection frees: with a chunk per page (1,000 withdrawals,
 * ~470 kB of SEPA XML) every chunk of the file stayed in memory until one ran, so the peak grew with the
 * batch (+89 MB RSS for 50,000 transactions). Small chunks die young. bench/payouts.mjs shows the peak.
 */
const CHUNK_CHARS = 16 * 1024;

/** The file's lines, one per withdrawal, in chunks of about CHUNK_CHARS. */
async function* lines(pages: AsyncIterable<readonly Withdrawal[]>, line: (w: Withdrawal) => string): AsyncGenerator<string> {
  let chunk = '';
  for await (const page of pages) {
    for (const w of page) {
      chunk += line(w);
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
  }
  if (chunk) yield chunk;
}

/**
 * The recipient's email, written exactly as stored (the provider pays exactly what is written; an apostrophe
 * in front would name another address): the input allows only a plain address (payout-details.ts, no formula
 * character first). One stored before that rule that is not plain is left empty, so the provider refuses that
 * line and nobody else is paid (docs/api.md#payouts).
 */
function emailCell(email: string | undefined): string {
  return email !== undefined && isPlainEmail(email) ? quoteField(email) : '';
}

/**
 * PayPal Payouts bulk CSV (the web upload's format): no header row; per line the recipient's email,
 * the amount, the currency, the customer id (the withdrawal id: at most 30 characters, no spaces), a note
 * to the recipient and the recipient wallet (PAYPAL), the column PayPal's current format requires.
 */
export function paypalCsv(batch: PayoutBatch, cur: Currency, pages: AsyncIterable<readonly Withdrawal[]>): AsyncGenerator<string> {
  return lines(pages, (w) => {
    const d = readPayoutDetails(w.payout);
    return `${[emailCell(d?.email), minorText(w.amount_cents, cur), cur.code, cell(w.id), cell(`Affiliate payout ${batch.id}`), 'PAYPAL'].join(',')}\r\n`;
  });
}

export const WISE_HEADER = ['name', 'recipientEmail', 'paymentReference', 'receiverType', 'amountCurrency', 'amount', 'sourceCurrency', 'targetCurrency'];

/** Wise batch payment CSV (Wise's template for email recipients): one header row, then one line per withdrawal. */
export async function* wiseCsv(_batch: PayoutBatch, cur: Currency, pages: AsyncIterable<readonly Withdrawal[]>): AsyncGenerator<string> {
  yield `${WISE_HEADER.join(',')}\r\n`;
  yield* lines(pages, (w) => {
    const d = readPayoutDetails(w.payout);
    const name = d?.account_holder ?? w.ref_code;
    return `${[cell(stripInvisible(name)), emailCell(d?.email), cell(w.id), 'PERSON', cur.code, minorText(w.amount_cents, cur), cur.code, cur.code].join(',')}\r\n`;
  });
}

/**
 * ISO 20022 pain.001.001.03 SEPA credit transfer, built with xmlbuilder2 (escaping is the library's):
 * one group header with NbOfTxs and CtrlSum, one payment information block for the debtor, one
 * CdtTrfTxInf per withdrawal (EndToEndId = withdrawal id). Names and references are in the SEPA
 * character set (sepaText); ids (MsgId, EndToEndId) are svc's own, letters, digits and `_`, under 35 characters.
 * CreDtTm and ReqdExctnDt are when the file is made (`madeAt`, the clock at download), not when the batch was:
 * a file downloaded days later asks the bank to pay today, never on a day already past.
 */
export async function* sepaXml(
  batch: PayoutBatch,
  cur: Currency,
  debtor: SepaDebtor,
  pages: AsyncIterable<readonly Withdrawal[]>,
  madeAt: number,
): AsyncGenerator<string> {
  const ctrlSum = minorText(batch.total_minor, cur);
  // ids are svc's own (a prefix, `_` and 26 base32 characters: 29 < 35), written as they are so that a
  // bank statement names the withdrawal exactly; the free texts (names, remittance) are converted
  const msgId = batch.id;
  // The document around the transactions is built whole, with a marker where they go, and cut there:
  // each transaction is then its own small fragment, serialised and dropped, so memory stays flat
  // however many the batch has (one document builder holding every element grew by ~4 kB each).
  const doc = create({ version: '1.0', encoding: 'UTF-8' }).ele('urn:iso:std:iso:20022:tech:xsd:pain.001.001.03', 'Document').ele('CstmrCdtTrfInitn');
  const head = doc.ele('GrpHdr');
  head.ele('MsgId').txt(msgId);
  head.ele('CreDtTm').txt(toIso(madeAt).slice(0, 19));
  head.ele('NbOfTxs').txt(String(batch.count));
  head.ele('CtrlSum').txt(ctrlSum);
  head.ele('InitgPty').ele('Nm').txt(sepaText(debtor.name, 70));
  const info = doc.ele('PmtInf');
  info.ele('PmtInfId').txt(msgId);
  info.ele('PmtMtd').txt('TRF');
  info.ele('BtchBookg').txt('true');
  info.ele('NbOfTxs').txt(String(batch.count));
  info.ele('CtrlSum').txt(ctrlSum);
  info.ele('PmtTpInf').ele('SvcLvl').ele('Cd').txt('SEPA');
  info.ele('ReqdExctnDt').txt(toIso(madeAt).slice(0, 10));
  info.ele('Dbtr').ele('Nm').txt(sepaText(debtor.name, 70));
  info.ele('DbtrAcct').ele('Id').ele('IBAN').txt(debtor.iban);
  const agent = info.ele('DbtrAgt').ele('FinInstnId');
  if (debtor.bic) agent.ele('BIC').txt(debtor.bic);
  else agent.ele('Othr').ele('Id').txt('NOTPROVIDED');
  info.ele('ChrgBr').txt('SLEV');
  info.com(TXS_MARK);
  const whole = doc.end({ prettyPrint: true });
  const at = whole.indexOf(`<!--${TXS_MARK}-->`);
  if (at < 0) throw new Error('the SEPA document lost its marker');
  const lineStart = whole.lastIndexOf('\n', at);
  yield whole.slice(0, lineStart);
  yield* lines(pages, (w) => `\n${transaction(w, cur)}`);
  yield whole.slice(at + `<!--${TXS_MARK}-->`.length);
}

const TXS_MARK = 'svc:transactions';

/** One CdtTrfTxInf, indented to sit inside PmtInf. */
function transaction(w: Withdrawal, cur: Currency): string {
  const d = readPayoutDetails(w.payout);
  const tx = fragment().ele('CdtTrfTxInf');
  tx.ele('PmtId').ele('EndToEndId').txt(w.id);
  tx.ele('Amt').ele('InstdAmt', { Ccy: cur.code }).txt(minorText(w.amount_cents, cur));
  if (d?.bic) tx.ele('CdtrAgt').ele('FinInstnId').ele('BIC').txt(d.bic);
  tx.ele('Cdtr').ele('Nm').txt(sepaText(d?.account_holder ?? w.ref_code, 70));
  tx.ele('CdtrAcct').ele('Id').ele('IBAN').txt(d?.iban ?? '');
  tx.ele('RmtInf').ele('Ustrd').txt(sepaText(`Affiliate payout ${w.id}`, 140));
  return tx.end({ prettyPrint: true, offset: 3 });
}
