import { useEffect, useState } from 'preact/hooks';
import { adminApi, type Answer, type ItemOf, query } from '../api';
import { dateTime, relative } from '../format';
import { usePagedList } from '../paged-list';
import { Empty, ErrorBox, Field, Loading, Notice, StatusBadge, useAsync, useSubmit } from '../ui';
import { FilterBar, Heads, PagedTable, StatusFilter } from './list';

/** The webhooks page's delivery log: the queue's summary line, filters, rows, attempts and redelivery. */

type Delivery = ItemOf<'GET /admin/api/deliveries'>;
/** One delivery with its attempts (GET /admin/api/deliveries/{id}). */
type DeliveryDetail = Answer<'GET /admin/api/deliveries/{id}'>['delivery'];
/** An event type from the service's catalogue, for the log's event filter. */
type EventType = ItemOf<'GET /admin/api/event-types'>;
type Adapter = ItemOf<'GET /admin/api/adapters'>;
type QueueStats = Answer<'GET /admin/api/deliveries/stats'>['stats'];

/** One line on how the queue stands (all instances), with a shortcut to the failed deliveries. */
function QueueSummary({ stats, onShowFailed }: { stats: QueueStats | undefined; onShowFailed: () => void }) {
  if (!stats) return null;
  const waiting = stats.pending + stats.unfanned_events;
  return (
    <p class="muted small" data-testid="queue-summary">
      {waiting === 0 ? 'Nothing waiting to be delivered' : `${waiting} waiting to be delivered`}
      {stats.oldest_pending_at && ` (oldest queued ${relative(Date.parse(stats.oldest_pending_at))})`}
      {' · '}
      {stats.failed === 0 ? (
        'no failed deliveries'
      ) : (
        <button type="button" class="btn btn-small btn-danger" onClick={onShowFailed}>
          {stats.failed} failed: show them
        </button>
      )}
    </p>
  );
}

export function Deliveries({ version }: { version: number }) {
  const [status, setStatus] = useState('');
  const [event, setEvent] = useState('');
  // adapter rows (one per event per adapter) outnumber the webhook's: shown only when asked for
  const [target, setTarget] = useState('webhook');
  const list = usePagedList<Delivery>('/deliveries', query({ status, event, target, limit: 50 }));
  const stats = useAsync(() => adminApi.get<{ stats: QueueStats }>('/deliveries/stats'), 'delivery-stats');
  const adapters = useAsync(() => adminApi.get<{ items: Adapter[] }>('/adapters'), 'adapters');
  const eventTypes = useAsync(() => adminApi.get<{ items: EventType[] }>('/event-types'), 'event-types');
  const [open, setOpen] = useState<string>();
  const reload = () => {
    list.reload();
    stats.reload();
  };
  // reload when the page says so (a test event was sent), not when reload's identity changes
  useEffect(() => {
    if (version > 0) reload();
  }, [version]);
  return (
    <section class="card">
      <div class="section-head">
        <h2>Delivery log</h2>
        <button type="button" class="btn btn-small" onClick={reload}>
          Refresh
        </button>
      </div>
      <QueueSummary stats={stats.data?.stats} onShowFailed={() => setStatus('failed')} />
      <FilterBar label="Filter deliveries">
        <StatusFilter value={status} options={['pending', 'delivered', 'failed']} onChange={setStatus} />
        <Field label="Target">
          <select name="target" value={target} onChange={(e) => setTarget((e.target as HTMLSelectElement).value)}>
            <option value="webhook">webhook only</option>
            <option value="">all, adapters included</option>
            {(adapters.data?.items ?? []).map((a) => (
              <option key={a.name} value={`adapter:${a.name}`}>
                adapter:{a.name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Event">
          <input name="event" list="event-names" placeholder="all events" value={event} onChange={(e) => setEvent((e.target as HTMLInputElement).value.trim())} />
          <datalist id="event-names">
            {(eventTypes.data?.items ?? []).map((e) => (
              <option key={e.type} value={e.type} label={e.description} />
            ))}
          </datalist>
        </Field>
      </FilterBar>
      <PagedTable
        list={list}
        loading="Loading deliveries"
        empty={
          status || event || target !== 'webhook'
            ? 'No deliveries match these filters.'
            : 'No webhook deliveries yet. Events are delivered once a webhook URL is set; adapter deliveries show with Target "all".'
        }
        head={<Heads cols={['Event', 'Target', 'Status', ['Attempts', 'num'], 'Created']} actions />}
      >
        {list.items.map((d) => (
          <DeliveryRow key={d.id} delivery={d} open={open === d.id} onToggle={() => setOpen(open === d.id ? undefined : d.id)} onChanged={reload} />
        ))}
      </PagedTable>
    </section>
  );
}

function DeliveryRow({ delivery: d, open, onToggle, onChanged }: { delivery: Delivery; open: boolean; onToggle: () => void; onChanged: () => void }) {
  const { error, notice, run } = useSubmit();
  const redeliver = () =>
    run(async () => {
      await adminApi.post(`/deliveries/${encodeURIComponent(d.id)}/redeliver`);
      onChanged();
      return 'Queued again.';
    });
  return (
    <>
      <tr data-id={d.id}>
        <td>
          <code class="small">{d.event}</code>
        </td>
        <td class="small break">
          {d.target}
          {d.url && d.url !== d.target && <div class="muted">{d.url}</div>}
        </td>
        <td>
          <StatusBadge status={d.status} />
        </td>
        <td class="num">{d.attempt_count}</td>
        <td class="small">{dateTime(d.created_at)}</td>
        <td class="row-actions">
          <button type="button" class="btn btn-small" onClick={onToggle} aria-expanded={open}>
            {open ? 'Hide attempts' : 'Attempts'}
          </button>
          <button type="button" class="btn btn-small" onClick={redeliver}>
            Redeliver
          </button>
        </td>
      </tr>
      {(open || error || notice) && (
        <tr class="detail-row">
          <td colSpan={6}>
            <ErrorBox error={error} />
            {notice && <Notice>{notice}</Notice>}
            {open && <DeliveryAttempts id={d.id} />}
          </td>
        </tr>
      )}
    </>
  );
}

function DeliveryAttempts({ id }: { id: string }) {
  const detail = useAsync(() => adminApi.get<{ delivery: DeliveryDetail }>(`/deliveries/${encodeURIComponent(id)}`), id);
  if (detail.loading && !detail.data) return <Loading what="Loading attempts" />;
  if (detail.error) return <ErrorBox error={detail.error} onRetry={detail.reload} />;
  const d = detail.data?.delivery;
  const attempts = d?.attempts ?? [];
  return (
    <div class="attempts">
      {d?.next_attempt_at && <p class="small">Next attempt {dateTime(d.next_attempt_at)}</p>}
      {attempts.length === 0 ? (
        <Empty>No attempts yet.</Empty>
      ) : (
        <ol>
          {attempts.map((a, i) => (
            <li key={`${i}-${a.at}`} class="small">
              {dateTime(a.at)} — {a.status_code ? `HTTP ${a.status_code}` : 'no response'}
              {` in ${a.latency_ms} ms`}
              {a.error && <span class="muted"> · {a.error}</span>}
              {a.response_body && (
                // the start of the receiver's answer, as stored (at most 4 KB): what it said about the event
                <pre class="attempt-body" title="Start of the answer">
                  {a.response_body}
                </pre>
              )}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
