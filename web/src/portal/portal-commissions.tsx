import { type ItemOf, portalApi } from '../api';
import { dateTime, money } from '../format';
import { usePagedList } from '../paged-list';
import { StatusBadge } from '../ui';
import { Heads, PagedTable } from '../admin/list';

type Commission = ItemOf<'GET /portal/api/commissions'>;

export function CommissionsPage() {
  const list = usePagedList<Commission>('/commissions', '?limit=50', portalApi.get);
  return (
    <section class="card">
      <p class="muted small">Each paid order from your mailboxes earns a commission: pending, then approved, then paid (withdrawable). One under review waits for the program's team before it can be approved.</p>
      <PagedTable
        list={list}
        loading="Loading your commissions"
        empty="No commissions yet: share your link."
        head={<Heads cols={['Order', ['Amount', 'num'], ['Rate', 'num hide-phone'], ['Commission', 'num'], 'Status', ['Created', 'hide-phone']]} />}
      >
        {list.items.map((c) => (
          <tr key={c.id} data-id={c.id}>
            <td>
              <code class="small">{c.order_id}</code>
            </td>
            <td class="num">{money(c.amount, c.currency)}</td>
            <td class="num hide-phone">{c.rate}%</td>
            <td class="num">{money(c.commission, c.currency)}</td>
            <td>
              {/* docs/api.md#fraud-review: a held commission is only "under review", never why */}
              {c.under_review ? <StatusBadge status="pending" label="under review" /> : <StatusBadge status={c.status} />}
            </td>
            <td class="small nowrap hide-phone">{dateTime(c.created_at)}</td>
          </tr>
        ))}
      </PagedTable>
    </section>
  );
}
