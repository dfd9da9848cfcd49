import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import type { Answer } from '../api';
import { money, shortDay } from '../format';

/** The dashboard's per-day charts (uPlot), one per group of series, with a hover readout. */

type DailyRow = Answer<'GET /api/reports/daily'>['items'][number];

interface Series {
  readonly label: string;
  readonly key: 'clicks' | 'mailboxes' | 'orders' | 'revenue' | 'commission';
  readonly stroke: string;
}

// clicks run one or two orders of magnitude above mailboxes and orders: on their own chart, so that
// neither hides the other
const CLICKS: readonly Series[] = [{ label: 'Clicks', key: 'clicks', stroke: '#2563eb' }];

const SIGNUPS: readonly Series[] = [
  { label: 'Mailboxes', key: 'mailboxes', stroke: '#16a34a' },
  { label: 'Paid orders', key: 'orders', stroke: '#d97706' },
];

const MONEY: readonly Series[] = [
  { label: 'Revenue', key: 'revenue', stroke: '#0f766e' },
  { label: 'Commission', key: 'commission', stroke: '#9333ea' },
];

/** Clicks, then mailboxes and orders, then money: each chart with its own scale, sharing the hovered day. */
export function DailyCharts({ rows }: { rows: DailyRow[] }) {
  const [hover, setHover] = useState<number | null>(null);
  return (
    <div class="charts">
      <DailyChart title="Clicks" series={CLICKS} rows={rows} hover={hover} onHover={setHover} />
      <DailyChart title="Mailboxes and paid orders" series={SIGNUPS} rows={rows} hover={hover} onHover={setHover} />
      <DailyChart title="Revenue and commission" series={MONEY} rows={rows} hover={hover} onHover={setHover} asMoney />
    </div>
  );
}

/** Day ticks only, as many as fit (one per `step` days), labelled "Jan 5". */
function dayTicks(count: number, width: number): number[] {
  const fit = Math.max(2, Math.floor(width / 64));
  const step = [1, 2, 3, 7, 14, 30, 61, 91, 182, 365].find((s) => Math.ceil(count / s) <= fit) ?? Math.ceil(count / fit);
  const ticks: number[] = [];
  for (let i = 0; i < count; i += step) ticks.push(i);
  return ticks;
}

function DailyChart({
  title,
  series,
  rows,
  hover,
  onHover,
  asMoney = false,
}: {
  title: string;
  series: readonly Series[];
  rows: DailyRow[];
  hover: number | null;
  onHover: (i: number | null) => void;
  asMoney?: boolean;
}) {
  const box = useRef<HTMLDivElement>(null);
  const format = (v: number) => (asMoney ? money(v) : v.toLocaleString('en-US'));
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    // x is the day's index, so every tick is a day (never an hour) and labels are exactly the report's days
    const data: uPlot.AlignedData = [rows.map((_r, i) => i), ...series.map((s) => rows.map((r) => r[s.key]))];
    const width = () => Math.max(280, el.clientWidth);
    const plot = new uPlot(
      {
        width: width(),
        height: 220,
        legend: { show: false },
        cursor: { sync: { key: 'dashboard-days' }, points: { size: 7 } },
        scales: {
          x: { time: false, range: () => [0, Math.max(1, rows.length - 1)] },
          y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
        },
        axes: [
          {
            splits: (u) => dayTicks(rows.length, u.bbox.width / devicePixelRatio),
            values: (_u, splits) => {
              const labels = splits.map((i) => (rows[i] ? shortDay(rows[i].day) : ''));
              // the labels are painted on a canvas: also said in the DOM, for tests and tools
              el.dataset.xTicks = labels.join(',');
              return labels;
            },
            grid: { show: false },
          },
          {
            size: asMoney ? 72 : 52,
            values: (_u, splits) => splits.map((v) => (asMoney ? money(v) : Number.isInteger(v) ? v.toLocaleString('en-US') : '')),
          },
        ],
        series: [
          {},
          ...series.map((s) => ({
            label: s.label,
            stroke: s.stroke,
            width: 2,
            points: { show: rows.length <= 45, size: 5 },
          })),
        ],
        hooks: { setCursor: [(u: uPlot) => onHover(u.cursor.idx ?? null)] },
      },
      data,
      el,
    );
    el.addEventListener('mouseleave', () => onHover(null));
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 220 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [rows]);
  const day = hover !== null ? rows[hover] : undefined;
  return (
    <figure class="chart-figure">
      <figcaption class="chart-title">{title}</figcaption>
      <ul class="chart-legend" aria-live="polite">
        <li class="legend-when muted small">{day ? shortDay(day.day) : `Total, ${rows.length} ${rows.length === 1 ? 'day' : 'days'}`}</li>
        {series.map((s) => (
          <li key={s.key} data-series={s.key}>
            <span class="swatch" style={{ background: s.stroke }} aria-hidden="true" />
            {s.label} <strong>{format(day ? day[s.key] : sum(rows, s.key))}</strong>
          </li>
        ))}
      </ul>
      <div class="chart" ref={box} role="img" aria-label={`${title} per day`} />
    </figure>
  );
}

function sum(rows: DailyRow[], key: Series['key']): number {
  const total = rows.reduce((acc, r) => acc + r[key], 0);
  return key === 'revenue' || key === 'commission' ? Math.round(total * 100) / 100 : total;
}
