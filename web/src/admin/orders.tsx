import { useState } from 'preact/hooks';
import { type ItemOf, query } from '../api';
import { dateTime, money } from '../format';
import { usePagedList } from '../paged-list';
import { Field, Notice, StatusBadge, useSubmit } from '../ui';
import { ExportCsvLink, FilterBar, Heads, PagedTable, StatusFilter } from './list';
import { RefundDialog, type RefundAnswer } from './refund-dialog';

type Order = ItemOf<'GET /api/orders'>;

export function OrdersPage() {
  const [status, setStatus] = useState('');
  const [input, setInput] = useState('');
  const [q, setQ] = useState('');
  const list = usePagedList<Order>('/orders', query({ status, q, limit: 100 }));
  const { notice, tell } = useSubmit();

  /** The order whose refund dialog is open (docs/ledger.md#refunds-and-clawbacks: all or part of what is left). */
  const [refunding, setRefunding] = useState<Order>();
  const refunded = ({ order, refund, clawback }: RefundAnswer) => {
    setRefunding(undefined);
    tell(`Refunded ${money(refund.amount, order.currency)} of order ${order.order_id}${clawback ? `; ${money(-clawback.commission, order.currency)} clawed back` : ''}.`);
    // the list answers the order with its commission; the clawback shows in the commission list
    list.reload();
  };

  return (
    <>
      <FilterBar label="Search orders" onSubmit={() => setQ(input.trim())}>
        <Field label="Search">
          <input name="q" type="search" placeholder="order id, email or product" value={input} onInput={(e) => setInput((e.target as HTMLInputElement).value)} />
        </Field>
        <StatusFilter value={status} options={['created', 'paid', 'partially_refunded', 'refunded']} onChange={setStatus} />
        <div class="quick">
          <button type="submit" class="btn btn-primary">
            Search
          </button>
          <ExportCsvLink op="GET /api/orders.csv" params={query({ status, q })} />
        </div>
      </FilterBar>
      {notice && <Notice>{notice}</Notice>}
      <section class="card">
        <PagedTable
          list={list}
          loading="Loading orders"
          empty={q ? `No orders match “${q}”.` : 'No orders yet.'}
          head={<Heads cols={['Order', 'Email', 'Product', ['Amount', 'num'], 'Status', 'Affiliate', ['Commission', 'num'], ['Refunded', 'num'], 'Created', 'Paid']} actions />}
        >
          {list.items.map((o) => (
            <tr key={o.order_id} data-id={o.order_id}>
              <th scope="row" class="nowrap">
                <code class="small">{o.order_id}</code>
              </th>
              <td class="small">{o.email}</td>
              <td>{o.product}</td>
              <td class="num">{money(o.amount, o.currency)}</td>
              <td>
                <StatusBadge status={o.status} />
              </td>
              <td data-col="affiliate">{o.ref_code ? <code>{o.ref_code}</code> : <span class="muted">—</span>}</td>
              <td class="num nowrap" data-col="commission">
                {o.commission ? (
                  <>
                    {money(o.commission.commission, o.currency)} <StatusBadge status={o.commission.status} />
                    {o.commission.void_reason && <span class="muted small"> ({o.commission.void_reason})</span>}
                  </>
                ) : (
                  <span class="muted">—</span>
                )}
              </td>
              <td class="num" data-col="refunded">{o.refunded_amount ? money(o.refunded_amount, o.currency) : <span class="muted">—</span>}</td>
              <td class="small nowrap">{dateTime(o.created_at)}</td>
              <td class="small nowrap">{dateTime(o.paid_at)}</td>
              <td class="row-actions">
                {(o.status === 'paid' || o.status === 'partially_refunded') && (
                  <button type="button" class="btn btn-small btn-danger" onClick={() => setRefunding(o)}>
                    Refund
                  </button>
                )}
              </td>
            </tr>
          ))}
        </PagedTable>
      </section>
      {refunding && <RefundDialog key={refunding.order_id} order={refunding} onDone={refunded} onClose={() => setRefunding(undefined)} />}
    </>
  );
}
