import qrcode from 'qrcode-generator';
import { useMemo, useState } from 'preact/hooks';
import { type Answer, portalApi, query } from '../api';
import { type ChartGroup, COUNT_CHARTS, DailyCharts } from '../daily-charts';
import { conversion, dayMs, isoDay, money } from '../format';
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
    ['Mailboxes', s.mailboxes.toLocaleString('en-US'), s.clicks > 0 ? (s.conversion_rate <= 1 ? `${conversion(s.conversion_rate)} of clicks` : conversion(s.conversion_rate)) : undefined],
    ['Paid orders', s.orders.toLocaleString('en-US')],
    ['Commission', money(s.commission.total, s.currency), `${money(s.commission.paid, s.currency)} earned`],
    ['Balance', money(s.balance, s.currency), `${s.currency} available to withdraw`],
    ['Withdrawals', money(s.withdrawals.requested, s.currency), `requested; ${money(s.withdrawals.paid, s.currency)} paid out`],
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
        <h2>Per day</h2>
        <DailyCharts rows={data.days} groups={CHARTS} />
      </section>
    </>
  );
}

// the counts, then money on its own scale
const CHARTS: readonly ChartGroup<Exclude<keyof Day, 'day'>>[] = [
  ...COUNT_CHARTS,
  { title: 'Commission', money: true, series: [{ label: 'Commission', key: 'commission', stroke: '#9333ea' }] },
];
