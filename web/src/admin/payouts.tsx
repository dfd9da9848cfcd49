import { adminApi, type Answer, ApiError, type ItemOf } from '../api';
import { dateTime, money } from '../format';
import { confirmAction, ErrorBox, Notice, StatusBadge, useAsync, useSubmit } from '../ui';
import { ActionsHeader, LoadedTable } from './list';

type Batch = ItemOf<'GET /api/payout-batches'>;
type Owed = Answer<'GET /api/payouts/owed'>['owed'][number];

const METHOD_LABEL: Record<string, string> = { paypal: 'PayPal', wise: 'Wise', sepa: 'SEPA', other: 'Other (by hand)' };
const FILE_LABEL: Record<string, string> = { paypal: 'PayPal Payouts CSV', wise: 'Wise batch CSV', sepa: 'SEPA pain.001 XML' };
/** What each provider's upload takes per file (the server's UPLOAD_ROWS, payout-files.ts), said beside a batch's parts. */
const PER_UPLOAD: Record<string, string> = { paypal: '5,000', wise: '1,000' };

const enc = encodeURIComponent;

/** An amount with its currency's code: a payout file pays in one currency, and the page says which. */
const amount = (a: { total: number; currency: string }) => `${money(a.total, a.currency)} ${a.currency}`;

/**
 * docs/api.md#payouts: what is owed per payout method, a batch per method, its file for the payment provider,
 * and "mark paid" once the provider has sent the money (every withdrawal in it becomes paid, or none).
 */
export function PayoutsPage() {
  const owed = useAsync(() => adminApi.get<Answer<'GET /api/payouts/owed'>>('/payouts/owed'), 'owed');
  const batches = useAsync(() => adminApi.get<{ items: Batch[] }>('/payout-batches?limit=100'), 'batches');
  const { busy, error, notice, run } = useSubmit();

  const reload = () => {
    owed.reload();
    batches.reload();
  };

  const makeBatch = async (o: Owed) => {
    await run(async () => {
      const res = await adminApi.post<Answer<'POST /api/payout-batches', 201>>('/payout-batches', { method: o.method });
      return `Batch of ${res.batch.count} ${METHOD_LABEL[o.method] ?? o.method} payouts made: ${amount(res.batch)}.`;
    });
    reload();
  };

  const markPaid = async (b: Batch) => {
    const ok = await confirmAction(
      `Mark ${amount(b)} to ${b.count} affiliates as paid?`,
      'Mark paid',
      <p>Only once the money was sent: every withdrawal of the batch becomes paid.</p>,
    );
    if (!ok) return;
    await run(async () => {
      await adminApi.post(`/payout-batches/${enc(b.id)}/mark-paid`, {});
      return `Batch paid: ${b.count} withdrawals marked paid.`;
    });
    reload();
  };

  const refusal =
    error instanceof ApiError && error.code === 'currency_mismatch'
      ? 'SEPA transfers are in euros: set the currency to EUR to pay by SEPA.'
      : error instanceof ApiError && error.code === 'nothing_to_pay'
        ? 'Nothing to pay by that method right now.'
        : undefined;

  const owedRows = (owed.data?.owed ?? []).filter((o) => o.count > 0);
  const items = batches.data?.items ?? [];

  return (
    <>
      <section class="card" aria-label="Owed">
        <h2>Owed</h2>
        <p class="muted small">Requested withdrawals in no batch yet, by where they are paid. Each keeps the payout details it was requested with.</p>
        {notice && <Notice>{notice}</Notice>}
        {refusal ? <Notice kind="error">{refusal}</Notice> : <ErrorBox error={error} />}
        <LoadedTable
          state={owed}
          count={owedRows.length}
          loading="Loading what is owed"
          empty="Nothing is owed."
          testid="owed"
          head={
            <>
              <MethodHeads />
              <ActionsHeader />
            </>
          }
        >
          {owedRows.map((o) => (
            <tr key={o.method} data-method={o.method}>
              <MethodCells of={o} />
              <td class="row-actions">
                <button type="button" class="btn btn-small btn-primary" disabled={busy} onClick={() => makeBatch(o)}>
                  Make a batch
                </button>
              </td>
            </tr>
          ))}
        </LoadedTable>
      </section>
      <section class="card" aria-label="Batches">
        <h2>Batches</h2>
        <LoadedTable
          state={batches}
          count={items.length}
          loading="Loading the batches"
          empty="No batch yet."
          testid="batches"
          head={
            <>
              <th scope="col">Made</th>
              <MethodHeads />
              <th scope="col">Status</th>
              <ActionsHeader />
            </>
          }
        >
          {items.map((b) => (
            <BatchRow key={b.id} batch={b} busy={busy} onMarkPaid={markPaid} />
          ))}
        </LoadedTable>
      </section>
    </>
  );
}

/** The columns both tables start with: where the money goes, how many withdrawals, how much. */
function MethodHeads() {
  return (
    <>
      <th scope="col">Method</th>
      <th scope="col" class="num">Withdrawals</th>
      <th scope="col" class="num">Total</th>
    </>
  );
}

function MethodCells({ of }: { of: { method: string; count: number; total: number; currency: string } }) {
  return (
    <>
      <td>{METHOD_LABEL[of.method] ?? of.method}</td>
      <td class="num">{of.count}</td>
      <td class="num">{amount(of)}</td>
    </>
  );
}

/**
 * A batch's file, or its parts when the provider's upload takes fewer rows than the batch has (PayPal 5,000,
 * Wise 1,000 per file): one download per part, each a complete file.
 */
function BatchFile({ batch: b }: { batch: Batch }) {
  const label = FILE_LABEL[b.method];
  if (!label) return null;
  const href = `/admin/api/payout-batches/${enc(b.id)}/file`;
  if (b.file_parts <= 1) {
    return (
      <a class="btn btn-small" href={href} download>
        Download {label}
      </a>
    );
  }
  return (
    <span class="file-parts">
      <span class="small muted">
        {label} in {b.file_parts} files ({METHOD_LABEL[b.method]} takes {PER_UPLOAD[b.method]} per upload):
      </span>{' '}
      {Array.from({ length: b.file_parts }, (_, i) => (
        <a key={i} class="btn btn-small" href={`${href}?part=${i + 1}`} download title={`${label}, part ${i + 1} of ${b.file_parts}`}>
          Part {i + 1}
        </a>
      ))}
    </span>
  );
}

/** A batch: its file to download while the provider needs it, and "Mark paid" while it is open. */
function BatchRow({ batch: b, busy, onMarkPaid }: { batch: Batch; busy: boolean; onMarkPaid: (b: Batch) => void }) {
  return (
    <tr data-id={b.id}>
      <td class="small nowrap">{dateTime(b.created_at)}</td>
      <MethodCells of={b} />
      <td>
        <StatusBadge status={b.status} />
      </td>
      <td class="row-actions">
        <BatchFile batch={b} />
        {b.status === 'open' && (
          <button type="button" class="btn btn-small" disabled={busy} onClick={() => onMarkPaid(b)}>
            Mark paid
          </button>
        )}
      </td>
    </tr>
  );
}
