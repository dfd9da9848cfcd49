import { createCB } from 'xmlbuilder2';
import { toIso } from '../clock.js';
import type { PayoutBatch, Withdrawal } from '../db/schema.js';
import { quoteField } from '../exports/csv.js';
import { type Currency, minorText } from '../money.js';
import { readPayoutDetails, sepaText } from './payout-details.js';

/**
 * The files of a payout batch (CONTRACT §18), written as the client reads them: `pages` yields the
 * batch's withdrawals a keyset page at a time and each page becomes one chunk, so a batch of any size
 * is streamed in flat memory. Amounts are written from integer minor units (minorText), never from
 * floats, and the SEPA file's CtrlSum is the batch's stored total, equal to the sum of its lines.
 * Proved by test/integration/payout-batches.test.ts (each file parsed back).
 */

export interface SepaDebtor {
  readonly name: string;
  readonly iban: string;
  readonly bic: string | null;
}

/** A text cell: quoted when needed, and a formula start neutralised as in the CSV exports. */
function cell(text: string): string {
  return quoteField(/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
}

/**
 * PayPal Payouts bulk CSV (the web upload's format): no header row; per line the recipient's email,
 * the amount, the currency, a reference (the withdrawal id) and a note to the recipient.
 */
export async function* paypalCsv(batch: PayoutBatch, cur: Currency, pages: AsyncIterable<readonly Withdrawal[]>): AsyncGenerator<string> {
  for await (const page of pages) {
    let chunk = '';
    for (const w of page) {
      const d = readPayoutDetails(w.payout);
      chunk += `${[cell(d?.email ?? ''), minorText(w.amount_cents, cur), cur.code, cell(w.id), cell(`Affiliate payout ${batch.id}`)].join(',')}\r\n`;
    }
    if (chunk) yield chunk;
  }
}

export const WISE_HEADER = ['name', 'recipientEmail', 'paymentReference', 'receiverType', 'amountCurrency', 'amount', 'sourceCurrency', 'targetCurrency'];

/** Wise batch payment CSV (Wise's template for email recipients): one header row, then one line per withdrawal. */
export async function* wiseCsv(_batch: PayoutBatch, cur: Currency, pages: AsyncIterable<readonly Withdrawal[]>): AsyncGenerator<string> {
  yield `${WISE_HEADER.join(',')}\r\n`;
  for await (const page of pages) {
    let chunk = '';
    for (const w of page) {
      const d = readPayoutDetails(w.payout);
      const name = d?.account_holder ?? w.ref_code;
      chunk += `${[cell(name), cell(d?.email ?? ''), cell(w.id), 'PERSON', cur.code, minorText(w.amount_cents, cur), cur.code, cur.code].join(',')}\r\n`;
    }
    if (chunk) yield chunk;
  }
}

/**
 * ISO 20022 pain.001.001.03 SEPA credit transfer, built with xmlbuilder2 (escaping is the library's):
 * one group header with NbOfTxs and CtrlSum, one payment information block for the debtor, one
 * CdtTrfTxInf per withdrawal (EndToEndId = withdrawal id). Names and references are in the SEPA
 * character set (sepaText); ids (MsgId, EndToEndId) are svc's own, letters, digits and `_`, under 35 characters.
 */
export async function* sepaXml(batch: PayoutBatch, cur: Currency, debtor: SepaDebtor, pages: AsyncIterable<readonly Withdrawal[]>): AsyncGenerator<string> {
  let buffered = '';
  const xml = createCB({
    data: (chunk: string) => {
      buffered += chunk;
    },
    prettyPrint: true,
  });
  const take = () => {
    const out = buffered;
    buffered = '';
    return out;
  };
  const ctrlSum = minorText(batch.total_minor, cur);
  // ids are svc's own (a prefix, `_` and 26 base32 characters: 29 < 35), written as they are so that a
  // bank statement names the withdrawal exactly; the free texts (names, remittance) are converted
  const msgId = batch.id;
  xml.dec({ version: '1.0', encoding: 'UTF-8' }).ele('urn:iso:std:iso:20022:tech:xsd:pain.001.001.03', 'Document').ele('CstmrCdtTrfInitn');
  xml
    .ele('GrpHdr')
    .ele('MsgId')
    .txt(msgId)
    .up()
    .ele('CreDtTm')
    .txt(toIso(batch.created_at).slice(0, 19))
    .up()
    .ele('NbOfTxs')
    .txt(String(batch.count))
    .up()
    .ele('CtrlSum')
    .txt(ctrlSum)
    .up()
    .ele('InitgPty')
    .ele('Nm')
    .txt(sepaText(debtor.name, 70))
    .up()
    .up()
    .up();
  xml.ele('PmtInf');
  xml.ele('PmtInfId').txt(msgId).up();
  xml.ele('PmtMtd').txt('TRF').up();
  xml.ele('BtchBookg').txt('true').up();
  xml.ele('NbOfTxs').txt(String(batch.count)).up();
  xml.ele('CtrlSum').txt(ctrlSum).up();
  xml.ele('PmtTpInf').ele('SvcLvl').ele('Cd').txt('SEPA').up().up().up();
  xml.ele('ReqdExctnDt').txt(toIso(batch.created_at).slice(0, 10)).up();
  xml.ele('Dbtr').ele('Nm').txt(sepaText(debtor.name, 70)).up().up();
  xml.ele('DbtrAcct').ele('Id').ele('IBAN').txt(debtor.iban).up().up().up();
  const agent = xml.ele('DbtrAgt').ele('FinInstnId');
  if (debtor.bic) agent.ele('BIC').txt(debtor.bic).up();
  else agent.ele('Othr').ele('Id').txt('NOTPROVIDED').up().up();
  agent.up().up();
  xml.ele('ChrgBr').txt('SLEV').up();
  yield take();
  for await (const page of pages) {
    for (const w of page) {
      const d = readPayoutDetails(w.payout);
      const tx = xml.ele('CdtTrfTxInf');
      tx.ele('PmtId').ele('EndToEndId').txt(w.id).up().up();
      tx.ele('Amt').ele('InstdAmt', { Ccy: cur.code }).txt(minorText(w.amount_cents, cur)).up().up();
      if (d?.bic) tx.ele('CdtrAgt').ele('FinInstnId').ele('BIC').txt(d.bic).up().up().up();
      tx.ele('Cdtr').ele('Nm').txt(sepaText(d?.account_holder ?? w.ref_code, 70)).up().up();
      tx.ele('CdtrAcct').ele('Id').ele('IBAN').txt(d?.iban ?? '').up().up().up();
      tx.ele('RmtInf').ele('Ustrd').txt(sepaText(`Affiliate payout ${w.id}`, 140)).up().up();
      tx.up();
    }
    const out = take();
    if (out) yield out;
  }
  xml.up().up().up();
  xml.end();
  yield take();
}
