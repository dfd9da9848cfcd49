import { useState } from 'preact/hooks';
import { adminApi, errorText, type ItemOf, query } from '../api';
import { dateTime, describePayout, money, moneyWith } from '../format';
import { usePagedList } from '../paged-list';
import { confirmAction, Notice, StatusBadge } from '../ui';
import { ExportCsvLink, FilterBar, Heads, PagedTable, RefCodeFilter, StatusFilter } from './list';
import { fetchPayoutDetails, usePayoutDetails } from './portal-admin';

type Withdrawal = ItemOf<'GET /api/withdrawals'>;

export function WithdrawalsPage() {
  const [status, setStatus] = useState('');
  const [refCode, setRefCode] = useState('');
  const list = usePagedList<Withdrawal>('/withdrawals', query({ status, ref_code: refCode.trim(), limit: 100 }));
  const [notice, setNotice] = useState<{ kind: 'ok' | 'error'; text: string }>();
  const [payoutVersion, setPayoutVersion] = useState(0);
  const payout = usePayoutDetails(
    list.items.map((w) => w.ref_code),
    payoutVersion,
  );

  const act = async (w: Withdrawal, action: 'mark-paid' | 'reject') => {
    // the details as they are now, not as the page loaded them: the affiliate may have changed them since
    let payTo: string | undefined;
    if (action === 'mark-paid') {
      try {
        payTo = w.payout ? describePayout(w.payout) : (await fetchPayoutDetails([w.ref_code]))[w.ref_code];
        setPayoutVersion((v) => v + 1); // the rows behind the dialog catch up too
      } catch (err) {
        setNotice({ kind: 'error', text: `Payout details of ${w.ref_code}: ${errorText(err)}` });
        return;
      }
    }
    const ok = await confirmAction(
      action === 'reject' ? `Reject the withdrawal of ${moneyWith(w.amount, w.currency)} for ${w.ref_code}?` : `Mark ${moneyWith(w.amount, w.currency)} for ${w.ref_code} as paid?`,
      action === 'reject' ? 'Reject' : 'Mark paid',
      action === 'reject' ? (
        <p>The amount goes back to the affiliate’s balance. This is final.</p>
      ) : (
        <>
          <p data-testid="pay-to">
            Pay to: <strong>{payTo ?? 'no payout details'}</strong>
          </p>
          <p>Do this after the money has been sent. This is final.</p>
        </>
      ),
      action === 'reject',
    );
    setPayoutVersion((v) => v + 1);
    if (!ok) return;
    try {
      await adminApi.post(`/withdrawals/${encodeURIComponent(w.id)}/${action}`);
      setNotice({ kind: 'ok', text: `Withdrawal ${w.id} ${action === 'reject' ? 'rejected' : 'marked paid'}.` });
    } catch (err) {
      setNotice({ kind: 'error', text: `Withdrawal ${w.id}: ${errorText(err)}` });
    }
    list.reload();
  };

  return (
    <>
      <FilterBar label="Filter withdrawals">
        <StatusFilter value={status} options={['requested', 'paid', 'rejected']} onChange={setStatus} />
        <RefCodeFilter value={refCode} onChange={setRefCode} />
        <div class="quick">
          <ExportCsvLink op="GET /api/withdrawals.csv" params={query({ status, ref_code: refCode.trim() })} />
        </div>
      </FilterBar>
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <section class="card">
        <PagedTable
          list={list}
          loading="Loading withdrawals"
          empty={status || refCode.trim() ? 'No withdrawals match these filters.' : 'No withdrawals yet.'}
          head={<Heads cols={[['ID', 'hide-phone id-col'], 'Affiliate', ['Amount', 'num'], 'Status', 'Requested']} actions />}
        >
          {list.items.map((w) => (
            <tr key={w.id} data-id={w.id}>
              <td class="hide-phone id-col">
                <code class="small" title={w.id}>
                  …{w.id.slice(-6)}
                </code>
              </td>
              <td>
                <code>{w.ref_code}</code>
                {/* the details the withdrawal was requested with (docs/api.md#payouts); older ones have none: today's */}
                <div class="payout muted small" data-testid="payout-details">{w.payout ? describePayout(w.payout) : (payout[w.ref_code] ?? 'no payout details')}</div>
              </td>
              <td class="num">{money(w.amount, w.currency)}</td>
              <td>
                <StatusBadge status={w.status} />
              </td>
              <td class="small nowrap">{dateTime(w.created_at)}</td>
              <td class="row-actions">
                {w.status === 'requested' && (
                  <>
                    <button type="button" class="btn btn-small" onClick={() => act(w, 'mark-paid')}>
                      Mark paid
                    </button>
                    <button type="button" class="btn btn-small btn-danger" onClick={() => act(w, 'reject')}>
                      Reject
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
