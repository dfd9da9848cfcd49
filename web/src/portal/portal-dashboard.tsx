import qrcode from 'qrcode-generator';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { type Answer, portalApi, query } from '../api';
import { dayMs, isoDay, money, percent, shortDay } from '../format';
import { CopyButton, ErrorBox, Field, Loading, useAsync } from '../ui';

type Me = Answer<'GET /portal/api/me'>['affiliate'];
type Summary = Answer<'GET /portal/api/summary'>;
type Day = Summary['days'][number];

const DAY = 86_400_000;

/** The last `n` days up to today (UTC), as the report's from/to. */
function lastDays(n: number): { from: string; to: string } {
  const today = isoDay(new Date());
  return { from: isoDay(new Date(dayMs(today) - (n - 1) * DAY)), to: today };
}

export function DashboardPage() {
  const me = useAsync(() => portalApi.get<Answer<'GET /portal/api/me'>>('/me'), 'me');
  const [range, setRange] = useState(lastDays(30));
  const summary = useAsync(() => portalApi.get<Summary>(`/summary${query(range)}`), `${range.from}..${range.to}`);
  return (
    <>
      <ErrorBox error={me.error} onRetry={me.reload} />
      {me.data ? <LinkCard me={me.data.affiliate} /> : !me.error && <Loading what="Loading your link" />}
      <form class="filters" aria-label="Date range" onSubmit={(e) => e.preventDefault()}>
        <Field label="From">
          <input name="from" type="date" value={range.from} max={range.to} onChange={(e) => setRange({ ...range, from: (e.target as HTMLInputElement).value || range.from })} />
        </Field>
        <Field label="To">
          <input name="to" type="date" value={range.to} min={range.from} onChange={(e) => setRange({ ...range, to: (e.target as HTMLInputElement).value || range.to })} />
        </Field>
        <div class="quick">
          {[7, 30, 90].map((n) => {
            const r = lastDays(n);
            return (
              <button key={n} type="button" class="btn btn-small" aria-pressed={r.from === range.from && r.to === range.to} onClick={() => setRange(r)}>
                {n} days
              </button>
            );
          })}
        </div>
      </form>
      <ErrorBox error={summary.error} onRetry={summary.reload} />
      {summary.data ? <Figures data={summary.data} /> : !summary.error && <Loading what="Loading your figures" />}
    </>
  );
}

function LinkCard({ me }: { me: Me }) {
  const svg = useMemo(() => {
    const qr = qrcode(0, 'M');
    qr.addData(me.link);
    qr.make();
    return qr.createSvgTag({ cellSize: 4, margin: 2, scalable: true });
  }, [me.link]);
  return (
    <section class="card link-card" aria-label="Your link">
      <div class="link-text">
        <h2>Your link</h2>
        <div class="input-row">
          <input class="link-input" readOnly value={me.link} aria-label="Your promotion link" onFocus={(e) => (e.target as HTMLInputElement).select()} />
          <CopyButton text={me.link} label="Copy link" />
        </div>
        <p class="muted small">
          Share it anywhere. You earn <strong>{me.commission_rate}%</strong> of every paid order from the mailboxes it brings.
        </p>
      </div>
      {/* the SVG is generated here from the link: no markup from outside */}
      <div class="qr" data-testid="qr" role="img" aria-label={`QR code of ${me.link}`} dangerouslySetInnerHTML={{ __html: svg }} />
    </section>
  );
}

function Figures({ data }: { data: Summary }) {
  const s = data.summary;
  const tiles: [string, string, string?][] = [
    ['Clicks', s.clicks.toLocaleString('en-US')],
    ['Mailboxes', s.mailboxes.toLocaleString('en-US'), s.clicks > 0 ? `${percent(s.conversion_rate)} of clicks` : undefined],
    ['Paid orders', s.orders.toLocaleString('en-US')],
    ['Commission', money(s.commission.total), `${money(s.commission.paid)} paid`],
    ['Balance', money(s.balance), 'available to withdraw'],
  ];
  return (
    <>
      <section class="headline" aria-label="Headline figures">
        {tiles.map(([label, value, note]) => (
          <div class="card" key={label} data-figure={label}>
            <div class="figure-label">{label}</div>
            <div class="figure-value">{value}</div>
            {note && <div class="muted small">{note}</div>}
          </div>
        ))}
      </section>
      <p class="muted small figure-note">Balance is all time; the other figures are for the days chosen (UTC).</p>
      <section class="card">
        <PortalChart days={data.days} />
      </section>
    </>
  );
}

const SERIES = [
  { key: 'clicks', label: 'Clicks', stroke: '#2563eb' },
  { key: 'mailboxes', label: 'Mailboxes', stroke: '#16a34a' },
  { key: 'orders', label: 'Paid orders', stroke: '#d97706' },
  { key: 'commission', label: 'Commission', stroke: '#9333ea' },
] as const;

/** One chart per day of the range: counts on the left scale, commission on the right. */
function PortalChart({ days }: { days: Day[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const data: uPlot.AlignedData = [days.map((_d, i) => i), ...SERIES.map((s) => days.map((d) => d[s.key]))];
    const width = () => Math.max(260, el.clientWidth);
    const ticksThatFit = () => Math.max(2, Math.floor(width() / 70));
    const plot = new uPlot(
      {
        width: width(),
        height: 240,
        legend: { show: true },
        scales: { x: { time: false, range: () => [0, Math.max(1, days.length - 1)] }, y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] }, money: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
        axes: [
          {
            splits: () => {
              const step = Math.max(1, Math.ceil(days.length / ticksThatFit()));
              return days.map((_d, i) => i).filter((i) => i % step === 0);
            },
            values: (_u, splits) => splits.map((i) => (days[i] ? shortDay(days[i].day) : '')),
            grid: { show: false },
          },
          { size: 44, values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? String(v) : '')) },
          { scale: 'money', side: 1, size: 64, grid: { show: false }, values: (_u, splits) => splits.map((v) => money(v)) },
        ],
        series: [
          { label: 'Day', value: (_u, i) => (i === null || !days[i] ? '' : shortDay(days[i].day)) },
          ...SERIES.map((s) => ({
            label: s.label,
            stroke: s.stroke,
            width: 2,
            scale: s.key === 'commission' ? 'money' : 'y',
            value: (_u: uPlot, v: number | null) => (v === null ? '' : s.key === 'commission' ? money(v) : String(v)),
            points: { show: days.length <= 45, size: 5 },
          })),
        ],
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: width(), height: 240 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [days]);
  return (
    <figure class="chart-figure">
      <figcaption class="chart-title">Per day</figcaption>
      <div class="chart" ref={box} role="img" aria-label="Clicks, mailboxes, paid orders and commission per day" />
    </figure>
  );
}
