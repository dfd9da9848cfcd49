import { useState } from 'preact/hooks';
import { adminApi, errorText, type ItemOf, query } from '../api';
import { dateTime, money } from '../format';
import { usePagedList } from '../paged-list';
import { confirmAction, Notice, StatusBadge, useSubmit } from '../ui';
import { onLinkClick } from '../router';
import { ActionsHeader, ExportCsvLink, FilterBar, PagedTable, RefCodeFilter, StatusFilter } from './list';
import { SIGNAL_WORDS } from './review';

type Commission = ItemOf<'GET /api/commissions'>;

type Action = 'approve' | 'mark-paid' | 'void';

// "Mark earned" (docs/api.md#payouts): it credits the affiliate's balance; no money moves (a withdrawal's "Mark paid" does)
const ACTION_LABEL: Record<Action, string> = { approve: 'Approve', 'mark-paid': 'Mark earned', void: 'Void' };
const ACTION_DONE: Record<Action, string> = { approve: 'approved', 'mark-paid': 'marked earned', void: 'voided' };

export function CommissionsPage() {
  const [status, setStatus] = useState('');
  const [refCode, setRefCode] = useState('');
  const list = usePagedList<Commission>('/commissions', query({ status, ref_code: refCode.trim(), limit: 100 }));
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const { busy, run: submit } = useSubmit();
  const [result, setResult] = useState<{ ok: string[]; failed: string[] }>();

  const toggle = (id: string) => {
    const next = new Set(selected);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setSelected(next);
  };
  // Only rows on screen count: a selection made before the filter changed never acts on hidden rows.
  const visibleSelected = list.items.filter((c) => selected.has(c.id)).map((c) => c.id);
  const allSelected = list.items.length > 0 && visibleSelected.length === list.items.length;

  /** One request per commission: each answers on its own, so one 409 never hides the others' success. */
  const run = async (action: Action, ids: string[]) => {
    if (ids.length === 0) return;
    if (action !== 'approve') {
      const what = ids.length === 1 ? 'this commission' : `${ids.length} commissions`;
      const ok = await confirmAction(
        `${ACTION_LABEL[action]} ${what}?`,
        ACTION_LABEL[action],
        <p>{action === 'void' ? 'Void is final: the commission will never be paid.' : 'Paid is final: it counts toward the affiliate’s withdrawable balance.'}</p>,
        action === 'void',
      );
      if (!ok) return;
    }
    const ok: string[] = [];
    const failed: string[] = [];
    // every request answers for itself (failed), so the action as a whole never throws
    await submit(async () => {
      for (const id of ids) {
        try {
          await adminApi.post(`/commissions/${encodeURIComponent(id)}/${action}`);
          ok.push(id);
        } catch (err) {
          const order = list.items.find((c) => c.id === id)?.order_id;
          failed.push(`${order ? `order ${order} (${id})` : id}: ${errorText(err)}`);
        }
      }
    });
    setResult({ ok: ok.length ? [`${ok.length} commission${ok.length === 1 ? '' : 's'} ${ACTION_DONE[action]}.`] : [], failed });
    setSelected(new Set());
    list.reload();
  };

  return (
    <>
      <FilterBar label="Filter commissions">
        <StatusFilter value={status} options={['pending', 'approved', 'paid', 'void']} onChange={setStatus} />
        <RefCodeFilter value={refCode} onChange={setRefCode} />
        <div class="quick">
          <ExportCsvLink op="GET /api/commissions.csv" params={query({ status, ref_code: refCode.trim() })} />
        </div>
      </FilterBar>

      {result && result.ok.length > 0 && <Notice>{result.ok[0]}</Notice>}
      {result && result.failed.length > 0 && (
        <Notice kind="error">
          <p>Some actions were refused:</p>
          <ul>
            {result.failed.map((f) => (
              <li key={f}>{f}</li>
            ))}
          </ul>
        </Notice>
      )}

      <section class="card">
        <div class="bulk-bar" role="toolbar" aria-label="Actions on the selected commissions">
          <span class="muted small">{visibleSelected.length} selected</span>
          {(['approve', 'mark-paid', 'void'] as const).map((a) => (
            <button key={a} type="button" class={`btn btn-small ${a === 'void' ? 'btn-danger' : ''}`} disabled={busy || visibleSelected.length === 0} onClick={() => run(a, visibleSelected)}>
              {ACTION_LABEL[a]} selected
            </button>
          ))}
        </div>
        <PagedTable
          list={list}
          loading="Loading commissions"
          empty={status || refCode.trim() ? 'No commissions match these filters.' : 'No commissions yet. They appear when an attributed order is paid.'}
          head={
            <>
              <th scope="col">
                <input
                  type="checkbox"
                  aria-label="Select all"
                  checked={allSelected}
                  onChange={() => setSelected(allSelected ? new Set() : new Set(list.items.map((c) => c.id)))}
                />
              </th>
              <th scope="col" class="hide-phone id-col">ID</th>
              <th scope="col">Affiliate</th>
              <th scope="col">Order</th>
              <th scope="col" class="num">Amount</th>
              <th scope="col" class="num">Rate</th>
              <th scope="col" class="num">Commission</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <ActionsHeader />
            </>
          }
        >
          {list.items.map((c) => (
            <tr key={c.id} data-id={c.id}>
              <td>
                <input type="checkbox" aria-label={`Select ${c.id}`} checked={selected.has(c.id)} onChange={() => toggle(c.id)} />
              </td>
              <td class="hide-phone id-col">
                {/* the end of the id tells rows apart (the start is the time); all of it on hover */}
                <code class="small" title={c.id}>
                  …{c.id.slice(-6)}
                </code>
              </td>
              <td>
                <code>{c.ref_code}</code>
              </td>
              <td class="small">{c.order_id}</td>
              <td class="num">{money(c.amount, c.currency)}</td>
              <td class="num">{c.rate}%</td>
              <td class="num">{money(c.commission, c.currency)}</td>
              <td>
                <StatusBadge status={c.status} />
                {c.kind === 'clawback' && (
                  <span class="badge badge-clawback" title="Booked by a refund of a paid order: lowers the balance">
                    clawback
                  </span>
                )}
                {c.void_reason && <span class="muted small"> ({c.void_reason})</span>}
                {c.hold && (
                  // docs/api.md#fraud-review: held by an open case; approving or paying it is refused until the case is resolved
                  <a class="badge badge-clawback" href="/admin/review" onClick={onLinkClick} title={`Held for review: ${SIGNAL_WORDS[c.hold.signal]}`}>
                    on hold
                  </a>
                )}
              </td>
              <td class="small nowrap">{dateTime(c.created_at)}</td>
              <td class="row-actions">
                {c.status === 'pending' && !c.hold && (
                  <button type="button" class="btn btn-small" disabled={busy} onClick={() => run('approve', [c.id])}>
                    Approve
                  </button>
                )}
                {(c.status === 'pending' || c.status === 'approved') && (
                  <>
                    <button type="button" class="btn btn-small" disabled={busy || !!c.hold} onClick={() => run('mark-paid', [c.id])}>
                      Mark earned
                    </button>
                    <button type="button" class="btn btn-small btn-danger" disabled={busy} onClick={() => run('void', [c.id])}>
                      Void
                    </button>
                  </>
                )}
              </td>
            </tr>
          ))}
        </PagedTable>
      </section>
    </>
  );
}
