import { useState } from 'preact/hooks';
import { type Answer, ApiError, type ItemOf, portalApi } from '../api';
import { dateTime, describePayout, money } from '../format';
import { usePagedList } from '../paged-list';
import { onLinkClick } from '../router';
import { ErrorBox, Field, Notice, StatusBadge, useAsync, useSubmit } from '../ui';
import { Heads, PagedTable } from '../admin/list';

type Withdrawal = ItemOf<'GET /portal/api/withdrawals'>;
type Summary = Answer<'GET /portal/api/summary'>;
type PayoutDetails = NonNullable<Answer<'GET /portal/api/me'>['affiliate']['payout_details']>;

/** Why a request was refused, in the affiliate's words. */
function refusal(err: unknown, currency: string | undefined): string | undefined {
  if (!(err instanceof ApiError)) return undefined;
  if (err.code === 'insufficient_balance') {
    const available = (err.details as { available?: number } | undefined)?.available;
    return `Refused: the amount is more than your available balance${available === undefined ? '' : ` (${money(available, currency)})`}. Only paid commission, less the withdrawals already requested or paid, can be withdrawn.`;
  }
  if (err.code === 'invalid_request') return 'Refused: enter an amount above 0 with at most the decimals of the currency.';
  if (err.code === 'payout_details_missing') return 'Refused: add your payout details under Settings first.';
  if (err.code === 'on_hold') return "Refused: some of your commissions are under review, and withdrawals wait until the program's team has looked at them.";
  if (err.code === 'below_payout_minimum') {
    const minimum = (err.details as { minimum?: number } | undefined)?.minimum;
    return `Refused: the smallest withdrawal is ${minimum === undefined ? 'higher' : money(minimum, currency)}.`;
  }
  return undefined;
}

export function WithdrawalsPage() {
  const summary = useAsync(() => portalApi.get<Summary>('/summary'), 'balance');
  // read on every visit: details saved under Settings a moment ago show here at once
  const me = useAsync(() => portalApi.get<Answer<'GET /portal/api/me'>>('/me'), 'me');
  const payoutDetails = me.data?.affiliate.payout_details;
  const list = usePagedList<Withdrawal>('/withdrawals', '?limit=50', portalApi.get);
  const [amount, setAmount] = useState('');
  const { busy, error, notice: done, run } = useSubmit();
  const balance = summary.data?.summary.balance;
  const currency = summary.data?.summary.currency;

  const submit = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      try {
        // one key per attempt: a retry after a lost answer does not request twice
        const key = `portal-${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
        const res = await portalApi.post<Answer<'POST /portal/api/withdrawals', 201>>('/withdrawals', { amount: Number(amount) }, { 'idempotency-key': key });
        setAmount('');
        return `Requested ${money(res.withdrawal.amount, res.withdrawal.currency)}. The admin pays it to your payout details.`;
      } finally {
        summary.reload();
        list.reload();
      }
    });
  };

  return (
    <>
      <section class="card">
        <h2>Request a withdrawal</h2>
        <p data-testid="available">
          Available to withdraw: <strong>{balance === undefined ? '…' : money(balance, currency)}</strong>
          <span class="muted small"> — paid commission less the withdrawals requested or paid.</span>
        </p>
        <form class="filters" onSubmit={submit} aria-label="Request a withdrawal">
          <Field label="Amount">
            <input name="amount" type="number" inputMode="decimal" step="0.01" min="0.01" required value={amount} onInput={(e) => setAmount((e.target as HTMLInputElement).value)} />
          </Field>
          <button type="submit" class="btn btn-primary" disabled={busy || !amount}>
            {busy ? 'Requesting…' : 'Request'}
          </button>
        </form>
        {done && <Notice>{done}</Notice>}
        {refusal(error, currency) ? <Notice kind="error">{refusal(error, currency)}</Notice> : <ErrorBox error={error} />}
        <PayoutTo loaded={me.data !== undefined} details={payoutDetails ?? null} />
        <ErrorBox error={me.error} onRetry={me.reload} />
      </section>
      <section class="card">
        <h2>Your withdrawals</h2>
        <PagedTable
          list={list}
          loading="Loading your withdrawals"
          empty="No withdrawals yet."
          head={<Heads cols={[['Amount', 'num'], 'Status', 'Requested']} />}
        >
          {list.items.map((w) => (
            <tr key={w.id} data-id={w.id}>
              <td class="num">{money(w.amount, w.currency)}</td>
              <td>
                <StatusBadge status={w.status} label={w.status === 'paid' ? 'paid out' : undefined} />
              </td>
              <td class="small nowrap">{dateTime(w.created_at)}</td>
            </tr>
          ))}
        </PagedTable>
      </section>
    </>
  );
}

/** Where the money goes: the saved payout details, or (only when there are none) where to add them. */
function PayoutTo({ loaded, details }: { loaded: boolean; details: PayoutDetails | null }) {
  if (!loaded) return null;
  if (!details) {
    return (
      <p class="alert alert-warn" data-testid="payout-to">
        <span>
          No payout details yet: add where to send the money under{' '}
          <a href="/portal/settings" onClick={onLinkClick}>
            Settings → Payout details
          </a>{' '}
          before you request a withdrawal.
        </span>
      </p>
    );
  }
  return (
    <div class="payout-to" data-testid="payout-to">
      <span class="muted small">Paid to</span>
      <span class="payout-details">{describePayout(details)}</span>
      <a class="small" href="/portal/settings" onClick={onLinkClick}>
        Change
      </a>
    </div>
  );
}
