import { useState } from 'preact/hooks';
import { adminApi, errorText, type ItemOf, query } from '../api';
import { dateTime, moneyWith } from '../format';
import { usePagedList } from '../paged-list';
import { confirmAction, Empty, ErrorBox, Loading, Notice, StatusBadge } from '../ui';
import { FilterBar, Heads, PagedTable, RefCodeFilter, StatusFilter } from './list';

type Case = ItemOf<'GET /api/fraud/cases'>;

/** The signals in words (docs/api.md#fraud-review). */
export const SIGNAL_WORDS: Record<Case['signal'], string> = {
  self_referral: 'Self-referral',
  duplicate_payout: 'Payout details of another affiliate',
  click_burst: 'Burst of clicks',
  refund_rate: 'Many refunds',
};

/** Tells the navigation's count that a case was resolved (admin-app.tsx listens). */
export const CASES_CHANGED = 'svc:fraud-cases-changed';

/**
 * docs/api.md#fraud-review: the open cases first, each with its evidence in words and what it holds, released or
 * rejected with a note; then every case, newest first, filtered by status, signal and affiliate.
 */
export function ReviewPage() {
  const open = usePagedList<Case>('/fraud/cases', query({ status: 'open', limit: 50 }));
  const [status, setStatus] = useState('');
  const [refCode, setRefCode] = useState('');
  const all = usePagedList<Case>('/fraud/cases', query({ status, ref_code: refCode.trim(), limit: 50 }));
  const [notice, setNotice] = useState<{ kind: 'ok' | 'error'; text: string }>();

  const resolve = async (c: Case, action: 'release' | 'reject', note: string) => {
    const held = c.held.count === 0 ? 'nothing held' : `${c.held.count} held ${c.held.count === 1 ? 'commission' : 'commissions'} (${moneyWith(c.held.amount, c.held.currency)})`;
    const ok = await confirmAction(
      action === 'release' ? `Release the case of ${c.ref_code}?` : `Reject the case of ${c.ref_code}?`,
      action === 'release' ? 'Release' : 'Reject',
      <p>
        {action === 'release'
          ? `The ${held} continue as if never held: approved at once where their holding period is over.`
          : `The ${held} become void (reason: fraud) and will never be paid. This is final.`}
      </p>,
      action === 'reject',
    );
    if (!ok) return;
    try {
      await adminApi.post(`/fraud/cases/${encodeURIComponent(c.id)}/${action}`, note.trim() === '' ? {} : { note: note.trim() });
      setNotice({ kind: 'ok', text: `Case of ${c.ref_code} ${action === 'release' ? 'released' : 'rejected'}.` });
      window.dispatchEvent(new Event(CASES_CHANGED));
    } catch (err) {
      setNotice({ kind: 'error', text: `Case of ${c.ref_code}: ${errorText(err)}` });
    }
    open.reload();
    all.reload();
  };

  return (
    <>
      <p class="muted small">
        svc opens a case when a signal fires (the rules are in Settings). A case that holds keeps the affiliate's pending commissions from being approved, paid or withdrawn until you
        release or reject it; a flag only asks you to look.
      </p>
      {notice && <Notice kind={notice.kind}>{notice.text}</Notice>}
      <section aria-label="Open cases">
        <h2>Open cases</h2>
        <ErrorBox error={open.error} onRetry={open.reload} />
        {!open.loaded ? (
          !open.error && <Loading what="Loading open cases" />
        ) : open.items.length === 0 ? (
          <Empty>No open case: nothing waits for review.</Empty>
        ) : (
          open.items.map((c) => <OpenCase key={c.id} c={c} onResolve={resolve} />)
        )}
        {open.hasMore && (
          <button type="button" class="btn" onClick={() => void open.loadMore()}>
            More open cases
          </button>
        )}
      </section>
      <section class="card" aria-label="All cases">
        <h2>All cases</h2>
        <FilterBar label="Filter cases">
          <StatusFilter value={status} options={['open', 'released', 'rejected']} onChange={setStatus} />
          <RefCodeFilter value={refCode} onChange={setRefCode} />
        </FilterBar>
        <PagedTable
          list={all}
          loading="Loading cases"
          empty={status || refCode.trim() ? 'No cases match these filters.' : 'No cases yet.'}
          head={<Heads cols={['Affiliate', 'Signal', 'Status', ['Held', 'num'], ['Opened', 'hide-phone'], ['Note', 'hide-phone']]} />}
        >
          {all.items.map((c) => (
            <tr key={c.id} data-id={c.id}>
              <td>
                <code>{c.ref_code}</code>
              </td>
              <td>{SIGNAL_WORDS[c.signal]}</td>
              <td>
                <StatusBadge status={c.status} />
              </td>
              <td class="num">{c.action === 'flag' ? 'flag only' : `${c.held.count} · ${moneyWith(c.held.amount, c.held.currency)}`}</td>
              <td class="small nowrap hide-phone">{dateTime(c.opened_at)}</td>
              <td class="small hide-phone">{c.note ?? ''}</td>
            </tr>
          ))}
        </PagedTable>
      </section>
    </>
  );
}

function OpenCase({ c, onResolve }: { c: Case; onResolve: (c: Case, action: 'release' | 'reject', note: string) => Promise<void> }) {
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const act = async (action: 'release' | 'reject') => {
    setBusy(true);
    try {
      await onResolve(c, action, note);
    } finally {
      setBusy(false);
    }
  };
  return (
    <article class="card fraud-case" data-id={c.id} aria-label={`Case of ${c.ref_code}`}>
      <header class="fraud-case-head">
        <h3>
          {SIGNAL_WORDS[c.signal]} · <code>{c.ref_code}</code>
        </h3>
        <StatusBadge status={c.action === 'hold' ? 'pending' : 'approved'} label={c.action === 'hold' ? 'holding' : 'flag'} />
      </header>
      <p class="small" data-testid="held">
        {c.action === 'hold'
          ? `Holds ${c.held.count} pending ${c.held.count === 1 ? 'commission' : 'commissions'} (${moneyWith(c.held.amount, c.held.currency)}); no withdrawal until this case is resolved.`
          : 'A flag: no money is held.'}{' '}
        <span class="muted">Opened {dateTime(c.opened_at)}.</span>
      </p>
      <ul class="evidence">
        {c.evidence.map((e, i) => (
          // the items hold no state: their place is their key
          <li key={i}>
            {e.detail}
            <span class="muted small">
              {' '}
              · {dateTime(e.at)}
              {e.order_id ? ` · order ${e.order_id}` : ''}
            </span>
          </li>
        ))}
      </ul>
      <div class="form-grid">
        <label class="field">
          <span class="field-label">Note (kept with the case)</span>
          <input name="note" maxLength={2000} value={note} onInput={(e) => setNote((e.target as HTMLInputElement).value)} placeholder="What you found" />
        </label>
        <div class="form-actions">
          <button type="button" class="btn" disabled={busy} onClick={() => act('release')}>
            Release
          </button>
          <button type="button" class="btn btn-danger" disabled={busy} onClick={() => act('reject')}>
            Reject
          </button>
        </div>
      </div>
    </article>
  );
}
