import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { money, shortDay } from './format';

/**
 * Per-day charts (uPlot) of the admin dashboard and the affiliate portal: one chart per group of series
 * of the same unit and size (counts never share a scale with money, clicks not with the far smaller
 * mailboxes and orders), all sharing the hovered day. Each legend always shows numbers: the range's
 * totals, or the hovered day's values.
 */

export interface ChartSeries<K extends string> {
  readonly label: string;
  readonly key: K;
  readonly stroke: string;
}

export interface ChartGroup<K extends string> {
  readonly title: string;
  readonly series: readonly ChartSeries<K>[];
  /** Money (2 decimals) rather than counts. */
  readonly money?: boolean;
}

export type DayRow<K extends string> = { readonly day: string } & { readonly [key in K]: number };

/**
 * The count charts both dashboards show, first: clicks, one or two orders of magnitude above mailboxes
 * and orders, on a chart of their own, so that neither hides the other.
 */
export const COUNT_CHARTS: readonly ChartGroup<'clicks' | 'mailboxes' | 'orders'>[] = [
  { title: 'Clicks', series: [{ label: 'Clicks', key: 'clicks', stroke: '#2563eb' }] },
  {
    title: 'Mailboxes and paid orders',
    series: [
      { label: 'Mailboxes', key: 'mailboxes', stroke: '#16a34a' },
      { label: 'Paid orders', key: 'orders', stroke: '#d97706' },
    ],
  },
];

/**
 * How the n-th line of a chart is drawn. Two series with equal values draw on the same pixels, so a
 * later line must never hide an earlier one: the first is wide and solid with filled dots, the second
 * thinner, dashed, with larger hollow rings, so where they coincide both stay visible (the first shows
 * around and between the dashes, its dot inside the ring).
 */
export const LINE_STYLES = [
  { width: 3.5, dash: undefined, pointSize: 6, hollow: false },
  { width: 2, dash: [7, 5], pointSize: 9, hollow: true },
  { width: 1.5, dash: [2, 4], pointSize: 12, hollow: true },
] as const;

function lineStyle(i: number) {
  return LINE_STYLES[Math.min(i, LINE_STYLES.length - 1)] ?? LINE_STYLES[0];
}

export function DailyCharts<K extends string>({ rows, groups }: { rows: readonly DayRow<K>[]; groups: readonly ChartGroup<K>[] }) {
  const [hover, setHover] = useState<number | null>(null);
  return (
    <div class="charts">
      {groups.map((g) => (
        <DailyChart key={g.title} group={g} rows={rows} hover={hover} onHover={setHover} />
      ))}
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

function DailyChart<K extends string>({
  group,
  rows,
  hover,
  onHover,
}: {
  group: ChartGroup<K>;
  rows: readonly DayRow<K>[];
  hover: number | null;
  onHover: (i: number | null) => void;
}) {
  const { title, series, money: asMoney = false } = group;
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
        cursor: { sync: { key: 'daily-charts' }, points: { size: 8 } },
        scales: {
          x: { time: false, range: () => [0, Math.max(1, rows.length - 1)] },
          // from 0, or below it for a day that clawbacks made negative
          y: { range: (_u, min, max) => [min < 0 ? min * 1.1 : 0, max > 0 ? max * 1.1 : 1] },
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
          ...series.map((s, i) => {
            const style = lineStyle(i);
            return {
              label: s.label,
              stroke: s.stroke,
              width: style.width,
              ...(style.dash ? { dash: [...style.dash] } : {}),
              points: { show: rows.length <= 45, size: style.pointSize, width: 2, stroke: s.stroke, fill: style.hollow ? '#fff' : s.stroke },
            };
          }),
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
        {series.map((s, i) => (
          <li key={s.key} data-series={s.key}>
            {/* the line as the chart draws it: solid, dashed or dotted, in its colour */}
            <span class={`swatch swatch-line swatch-${i === 0 ? 'solid' : i === 1 ? 'dashed' : 'dotted'}`} style={{ borderColor: s.stroke }} aria-hidden="true" />
            {s.label} <strong>{format(day ? day[s.key] : sum(rows, s.key, asMoney))}</strong>
          </li>
        ))}
      </ul>
      <div class="chart" ref={box} role="img" aria-label={`${title} per day`} />
    </figure>
  );
}

function sum<K extends string>(rows: readonly DayRow<K>[], key: K, asMoney: boolean): number {
  const total = rows.reduce((acc, r) => acc + r[key], 0);
  return asMoney ? Math.round(total * 100) / 100 : total;
}
