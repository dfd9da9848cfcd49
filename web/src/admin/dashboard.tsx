import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { adminApi, query } from '../api';
import { isoDay, money, percent } from '../format';
import { Empty, ErrorBox, Field, Loading, useAsync } from '../ui';

interface CommissionTotals {
  pending: number;
  approved: number;
  paid: number;
  void: number;
  total: number;
}

interface SummaryRow {
  ref_code?: string;
  clicks: number;
  mailboxes: number;
  conversion_rate: number;
  orders: number;
  order_rate: number;
  commission: CommissionTotals;
  withdrawals: { requested: number; paid: number };
  balance: number;
}

interface DailyRow {
  day: string;
  clicks: number;
  mailboxes: number;
  orders: number;
  commission: number;
}

function daysAgo(n: number): string {
  return isoDay(new Date(Date.now() - n * 86_400_000));
}

export function DashboardPage() {
  const [from, setFrom] = useState(daysAgo(29));
  const [to, setTo] = useState(daysAgo(0));
  const [refCode, setRefCode] = useState('');
  const params = query({ from, to, ref_code: refCode.trim() });
  const summary = useAsync(() => adminApi.get<{ summary: SummaryRow[]; totals: SummaryRow }>(`/affiliate/summary${params}`), `s${params}`);
  const daily = useAsync(() => adminApi.get<{ items: DailyRow[] }>(`/reports/daily${params}`), `d${params}`);

  return (
    <>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Date range">
        <Field label="From">
          <input type="date" name="from" value={from} max={to} onChange={(e) => setFrom((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label="To">
          <input type="date" name="to" value={to} min={from} onChange={(e) => setTo((e.target as HTMLInputElement).value)} />
        </Field>
        <Field label="ref_code">
          <input name="ref_code" placeholder="all affiliates" value={refCode} onChange={(e) => setRefCode((e.target as HTMLInputElement).value)} />
        </Field>
        <div class="quick">
          {[7, 30, 90].map((n) => (
            <button
              key={n}
              type="button"
              class="btn btn-small"
              onClick={() => {
                setFrom(daysAgo(n - 1));
                setTo(daysAgo(0));
              }}
            >
              {n} days
            </button>
          ))}
        </div>
      </form>

      <section class="card">
        <h2>Per day</h2>
        <ErrorBox error={daily.error} onRetry={daily.reload} />
        {daily.loading && !daily.data && <Loading what="Loading the chart" />}
        {daily.data && (daily.data.items.length === 0 ? <Empty>Nothing happened in this range.</Empty> : <DailyChart rows={daily.data.items} />)}
      </section>

      <section class="card">
        <h2>Per ref_code</h2>
        <ErrorBox error={summary.error} onRetry={summary.reload} />
        {summary.loading && !summary.data && <Loading what="Loading the summary" />}
        {summary.data && summary.data.summary.length === 0 && <Empty>{refCode.trim() ? `No affiliate ${refCode.trim()}.` : 'No affiliates yet. Create one under Affiliates.'}</Empty>}
        {summary.data && summary.data.summary.length > 0 && (
          <div class="table-wrap">
            <table class="summary-table">
              <thead>
                <tr>
                  <th scope="col">ref_code</th>
                  <th scope="col" class="num">Clicks</th>
                  <th scope="col" class="num">Mailboxes</th>
                  <th scope="col" class="num">Conversion</th>
                  <th scope="col" class="num">Paid orders</th>
                  <th scope="col" class="num">Order rate</th>
                  <th scope="col" class="num">Pending</th>
                  <th scope="col" class="num">Approved</th>
                  <th scope="col" class="num">Paid</th>
                  <th scope="col" class="num">Withdrawn</th>
                  <th scope="col" class="num">Balance</th>
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
            </table>
          </div>
        )}
      </section>
    </>
  );
}

function SummaryLine({ row, label }: { row: SummaryRow; label: string }) {
  return (
    <tr data-ref={row.ref_code}>
      <th scope="row">{label}</th>
      <td class="num" data-col="clicks">
        {row.clicks}
      </td>
      <td class="num" data-col="mailboxes">
        {row.mailboxes}
      </td>
      <td class="num">{percent(row.conversion_rate)}</td>
      <td class="num" data-col="orders">
        {row.orders}
      </td>
      <td class="num">{percent(row.order_rate)}</td>
      <td class="num">{money(row.commission.pending)}</td>
      <td class="num">{money(row.commission.approved)}</td>
      <td class="num">{money(row.commission.paid)}</td>
      <td class="num">{money(row.withdrawals.requested + row.withdrawals.paid)}</td>
      <td class="num">{money(row.balance)}</td>
    </tr>
  );
}

const SERIES = [
  { label: 'Clicks', key: 'clicks', stroke: '#2563eb', scale: 'count' },
  { label: 'Mailboxes', key: 'mailboxes', stroke: '#16a34a', scale: 'count' },
  { label: 'Paid orders', key: 'orders', stroke: '#d97706', scale: 'count' },
  { label: 'Commission', key: 'commission', stroke: '#9333ea', scale: 'money' },
] as const;

function DailyChart({ rows }: { rows: DailyRow[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const data: uPlot.AlignedData = [rows.map((r) => Date.parse(`${r.day}T00:00:00Z`) / 1000), ...SERIES.map((s) => rows.map((r) => r[s.key]))];
    const width = () => Math.max(280, el.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 280,
        scales: { x: { time: true }, count: { range: (_u, _min, max) => [0, Math.max(1, max)] }, money: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        axes: [
          {},
          { scale: 'count', label: 'count' },
          { scale: 'money', side: 1, label: 'commission', grid: { show: false }, values: (_u, vals) => vals.map((v) => money(v)) },
        ],
        series: [
          { label: 'Day', value: (_u, v) => (v == null ? '—' : new Date(v * 1000).toISOString().slice(0, 10)) },
          ...SERIES.map((s) => ({
            label: s.label,
            stroke: s.stroke,
            width: 2,
            scale: s.scale,
            value: s.scale === 'money' ? (_u: uPlot, v: number | null) => money(v) : undefined,
          })),
        ],
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 280 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [rows]);
  return <div class="chart" ref={box} role="img" aria-label="Clicks, mailboxes, paid orders and commission per day" />;
}
