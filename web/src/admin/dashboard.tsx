import type { ComponentChildren } from 'preact';
import { adminApi, type Answer, query } from '../api';
import { type ChartGroup, COUNT_CHARTS, DailyCharts } from '../daily-charts';
import { conversion, dayMs, isoDay, money, perMailbox } from '../format';
import { setSearch, useSearch } from '../router';
import { Empty, ErrorBox, Field, Loading, useAsync } from '../ui';
import { AffiliatePicker } from './affiliate-picker';
import { ExportCsvLink, ScrollTable } from './list';

type Summary = Answer<'GET /api/affiliate/summary'>;
/** A row of the summary, or its totals (which have no ref_code). */
type SummaryRow = Summary['totals'] & { ref_code?: string };
type DailyRow = Answer<'GET /api/reports/daily'>['items'][number];

const DAY_MS = 86_400_000;

// the counts, then money on its own scale
const CHARTS: readonly ChartGroup<Exclude<keyof DailyRow, 'day'>>[] = [
  ...COUNT_CHARTS,
  {
    title: 'Revenue and commission',
    money: true,
    series: [
      { label: 'Revenue', key: 'revenue', stroke: '#0f766e' },
      { label: 'Commission', key: 'commission', stroke: '#9333ea' },
    ],
  },
];
const DAY_RE = /^\d{4}-\d{2}-\d{2}$/;

function daysAgo(n: number): string {
  return isoDay(new Date(Date.now() - n * DAY_MS));
}

function addDays(day: string, n: number): string {
  return isoDay(new Date(dayMs(day) + n * DAY_MS));
}

/** Both ends included. */
function lengthInDays(from: string, to: string): number {
  return Math.round((dayMs(to) - dayMs(from)) / DAY_MS) + 1;
}

/** The range and the affiliate live in the URL: a reload or a shared link shows the same, and Back works. */
function useDashboardFilters() {
  const search = useSearch();
  const given = (k: string) => {
    const v = search.get(k) ?? '';
    return DAY_RE.test(v) ? v : '';
  };
  let from = given('from') || daysAgo(29);
  let to = given('to') || daysAgo(0);
  if (from > to) [from, to] = [to, from];
  const refCode = search.get('ref_code') ?? '';
  const set = (next: { from?: string; to?: string; ref_code?: string }) => setSearch({ from, to, ref_code: refCode, ...next });
  return { from, to, refCode, set };
}

export function DashboardPage() {
  const { from, to, refCode, set } = useDashboardFilters();
  const days = lengthInDays(from, to);
  const prevTo = addDays(from, -1);
  const prevFrom = addDays(from, -days);
  const params = query({ from, to, ref_code: refCode });
  const prevParams = query({ from: prevFrom, to: prevTo, ref_code: refCode });
  const summary = useAsync(() => adminApi.get<Summary>(`/affiliate/summary${params}`), `s${params}`);
  const previous = useAsync(() => adminApi.get<Summary>(`/affiliate/summary${prevParams}`), `p${prevParams}`);
  const daily = useAsync(() => adminApi.get<{ items: DailyRow[] }>(`/reports/daily${params}`), `d${params}`);

  return (
    <>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Date range and affiliate">
        <Field label="From">
          <input type="date" name="from" value={from} max={to} onChange={(e) => DAY_RE.test((e.target as HTMLInputElement).value) && set({ from: (e.target as HTMLInputElement).value })} />
        </Field>
        <Field label="To">
          <input type="date" name="to" value={to} min={from} onChange={(e) => DAY_RE.test((e.target as HTMLInputElement).value) && set({ to: (e.target as HTMLInputElement).value })} />
        </Field>
        <AffiliatePicker value={refCode} onChange={(ref_code) => set({ ref_code })} />
        <div class="quick">
          {[7, 30, 90].map((n) => (
            <button key={n} type="button" class="btn btn-small" aria-pressed={to === daysAgo(0) && days === n} onClick={() => set({ from: daysAgo(n - 1), to: daysAgo(0) })}>
              {n} days
            </button>
          ))}
          <ExportCsvLink op="GET /api/affiliate/summary.csv" params={params} />
        </div>
      </form>

      <Headline current={summary.data?.totals} previous={previous.data?.totals} days={days} prevFrom={prevFrom} prevTo={prevTo} />
      <p class="muted small figure-note">
        Revenue and commission of the paid orders attributed to affiliates, by the day they were paid; commission owed counts pending, approved
        and paid (not void).
      </p>

      <section class="card">
        <h2>Per day</h2>
        <ErrorBox error={daily.error} onRetry={daily.reload} />
        {daily.loading && !daily.data && <Loading what="Loading the charts" />}
        {daily.data && (daily.data.items.length === 0 ? <Empty>Nothing happened in this range.</Empty> : <DailyCharts rows={daily.data.items} groups={CHARTS} />)}
      </section>

      <section class="card">
        <h2>Per affiliate</h2>
        <ErrorBox error={summary.error} onRetry={summary.reload} />
        {summary.loading && !summary.data && <Loading what="Loading the summary" />}
        {summary.data && summary.data.summary.length === 0 && <Empty>{refCode ? `No affiliate ${refCode}.` : 'No affiliates yet. Create one under Affiliates.'}</Empty>}
        {summary.data && summary.data.summary.length > 0 && (
          <ScrollTable class="summary-table">
            <thead>
              <tr>
                <th scope="col">Affiliate</th>
                <th scope="col" class="num">Clicks</th>
                <th scope="col" class="num">Mailboxes</th>
                <th scope="col" class="num" title="Mailboxes per click">
                  Conversion
                </th>
                <th scope="col" class="num">Paid orders</th>
                <th scope="col" class="num" title="Paid orders divided by mailboxes: one mailbox may order more than once, so this can be above 1">
                  Orders per mailbox
                </th>
                <th scope="col" class="num">Revenue</th>
                <th scope="col" class="num">Pending</th>
                <th scope="col" class="num">Approved</th>
                <th scope="col" class="num">Paid</th>
                <th scope="col" class="num" title="Withdrawal requests not paid out yet">
                  Requested
                </th>
                <th scope="col" class="num" title="Withdrawals paid out">
                  Withdrawn
                </th>
                <th scope="col" class="num" title="Paid commission minus requested and paid withdrawals, all time">
                  Balance
                </th>
              </tr>
            </thead>
            <tbody>
              {summary.data.summary.map((r) => (
                <SummaryLine key={r.ref_code} row={r} label={r.ref_code ?? ''} />
              ))}
            </tbody>
            <tfoot>
              <SummaryLine row={summary.data.totals} label="Total" />
            </tfoot>
          </ScrollTable>
        )}
        <p class="muted small">
          Clicks, mailboxes and orders count on their day; commissions on the day of their order; withdrawals on the day they were requested.
          Withdrawn counts only paid-out withdrawals. Balance is all time.
        </p>
      </section>
    </>
  );
}

const HEADLINES = [
  { key: 'clicks', label: 'Clicks', value: (r: SummaryRow) => r.clicks, money: false },
  { key: 'mailboxes', label: 'Mailboxes', value: (r: SummaryRow) => r.mailboxes, money: false },
  { key: 'orders', label: 'Paid orders', value: (r: SummaryRow) => r.orders, money: false },
  { key: 'revenue', label: 'Revenue', value: (r: SummaryRow) => r.revenue, money: true },
  { key: 'commission', label: 'Commission owed', value: (r: SummaryRow) => r.commission.total, money: true },
] as const;

/** "+12 %", "−3 %", "no change", "new" (nothing before), or nothing while the previous period loads. */
function change(now: number, before: number | undefined): { text: string; trend: 'up' | 'down' | 'flat' } | undefined {
  if (before === undefined) return undefined;
  if (before === 0) return now === 0 ? { text: 'no change', trend: 'flat' } : { text: 'new', trend: 'up' };
  const pct = ((now - before) / before) * 100;
  if (Math.abs(pct) < 0.5) return { text: 'no change', trend: 'flat' };
  const rounded = Math.abs(pct) >= 10 ? Math.round(pct) : Math.round(pct * 10) / 10;
  return { text: `${rounded > 0 ? '+' : '−'}${Math.abs(rounded)} %`, trend: rounded > 0 ? 'up' : 'down' };
}

function Headline({ current, previous, days, prevFrom, prevTo }: { current?: SummaryRow; previous?: SummaryRow; days: number; prevFrom: string; prevTo: string }) {
  return (
    <section class="headline" aria-label="Headline figures">
      {HEADLINES.map((h) => {
        const now = current ? h.value(current) : undefined;
        const before = previous ? h.value(previous) : undefined;
        const diff = now === undefined ? undefined : change(now, before);
        return (
          <div class="card figure" key={h.key} data-figure={h.key}>
            <div class="figure-label">{h.label}</div>
            <div class="figure-value">{now === undefined ? '…' : h.money ? money(now, current?.currency) : now.toLocaleString('en-US')}</div>
            <div class="figure-change small" title={`${prevFrom} – ${prevTo}`}>
              {diff ? <span class={`trend trend-${diff.trend}`}>{diff.text}</span> : <span class="muted">…</span>}{' '}
              <span class="muted">
                vs previous {days} {days === 1 ? 'day' : 'days'}
                {before !== undefined && ` (${h.money ? money(before, previous?.currency) : before.toLocaleString('en-US')})`}
              </span>
            </div>
          </div>
        );
      })}
    </section>
  );
}

function SummaryLine({ row, label }: { row: SummaryRow; label: string }) {
  const m = (minor: number) => money(minor, row.currency);
  // [data-col or '', the cell]: the named columns are the ones the tests and the charts read
  const cells: [string, ComponentChildren][] = [
    ['clicks', row.clicks],
    ['mailboxes', row.mailboxes],
    ['conversion', row.clicks > 0 ? conversion(row.conversion_rate) : '—'],
    ['orders', row.orders],
    ['orders-per-mailbox', row.mailboxes > 0 ? perMailbox(row.order_rate) : '—'],
    ['revenue', m(row.revenue)],
    ['', m(row.commission.pending)],
    ['', m(row.commission.approved)],
    ['', m(row.commission.paid)],
    ['requested', m(row.withdrawals.requested)],
    ['withdrawn', m(row.withdrawals.paid)],
    ['', m(row.balance)],
  ];
  return (
    <tr data-ref={row.ref_code}>
      <th scope="row">{label}</th>
      {cells.map(([col, cell], i) => (
        <td key={i} class="num" data-col={col || undefined}>
          {cell}
        </td>
      ))}
    </tr>
  );
}
