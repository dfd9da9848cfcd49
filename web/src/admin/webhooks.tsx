import { useEffect, useState } from 'preact/hooks';
import { adminApi, query } from '../api';
import { dateTime, relative } from '../format';
import { usePagedList } from '../paged-list';
import { confirmAction, Empty, ErrorBox, Field, Loading, Notice, StatusBadge, useAsync } from '../ui';
import { ActionsHeader, FilterBar, PagedTable, StatusFilter } from './list';
import type { Settings } from './settings';

interface Delivery {
  id: string;
  event: string;
  event_id?: string;
  target: string;
  url?: string | null;
  status: string;
  attempts?: number | Attempt[];
  attempt_count?: number;
  next_attempt_at?: string | null;
  last_error?: string | null;
  created_at: string;
}

/** Every event the service emits (CONTRACT §9), for the log's event filter. */
const EVENT_NAMES = [
  'order.paid',
  'commission.approved',
  'commission.paid',
  'commission.voided',
  'withdrawal.requested',
  'withdrawal.paid',
  'withdrawal.rejected',
  'webhook.test',
];

interface Attempt {
  at?: string;
  attempted_at?: string;
  created_at?: string;
  status_code?: number | null;
  error?: string | null;
  latency_ms?: number | null;
  duration_ms?: number | null;
}

interface Adapter {
  name: string;
  enabled: boolean;
  description?: string;
}

/** whsec_ + 32 random bytes in base64, made in the browser so the secret never travels before it is saved. */
export function generateSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

function attemptCount(d: Delivery): number | undefined {
  if (Array.isArray(d.attempts)) return d.attempts.length;
  return d.attempts ?? d.attempt_count;
}

export function WebhooksPage() {
  // bumped when a test event is sent, so the log and its summary show it without a manual refresh
  const [logVersion, setLogVersion] = useState(0);
  return (
    <>
      <WebhookSettings onTestSent={() => setLogVersion((v) => v + 1)} />
      <Deliveries version={logVersion} />
      <Adapters />
    </>
  );
}

function WebhookSettings({ onTestSent }: { onTestSent: () => void }) {
  const settings = useAsync(() => adminApi.get<{ settings: Settings }>('/settings'), 'settings');
  const [url, setUrl] = useState('');
  const [secret, setSecret] = useState('');
  const [shown, setShown] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();

  useEffect(() => {
    if (settings.data) {
      setUrl(settings.data.settings.webhook_url ?? '');
      setSecret(settings.data.settings.webhook_secret ?? '');
    }
  }, [settings.data]);

  const save = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    try {
      const body: Record<string, unknown> = { webhook_url: url.trim() === '' ? null : url.trim() };
      if (secret !== (settings.data?.settings.webhook_secret ?? '')) body.webhook_secret = secret;
      await adminApi.patch('/settings', body);
      setNotice('Webhook settings saved.');
      settings.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const generate = async () => {
    const current = settings.data?.settings.webhook_secret;
    if (current && !(await confirmAction('Replace the webhook secret?', 'Generate new secret', <p>Receivers must switch to the new secret once you save it.</p>))) return;
    setSecret(generateSecret());
    setShown(true);
  };

  const sendTest = async () => {
    setError(undefined);
    setNotice(undefined);
    try {
      await adminApi.post('/webhooks/test');
      setNotice('Test event queued; it appears in the delivery log below.');
      onTestSent();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <form class="card form-grid form-stack" onSubmit={save} aria-label="Webhook">
      <h2>Webhook</h2>
      {settings.loading && !settings.data && <Loading what="Loading settings" />}
      <ErrorBox error={settings.error} onRetry={settings.reload} />
      <Field label="Webhook URL" hint="every event (order.paid, withdrawal.requested, commission and withdrawal changes) is POSTed here; empty turns webhooks off">
        <input name="webhook_url" type="url" placeholder="https://example.com/hooks/svc" value={url} onInput={(e) => setUrl((e.target as HTMLInputElement).value)} />
      </Field>
      <Field label="Signing secret" hint="X-SVC-Signature and Standard Webhooks signatures use it">
        <div class="input-row">
          {/* Two elements because the typings tie `type` to the other attributes allowed. */}
          {shown ? (
            <input name="webhook_secret" type="text" autocomplete="off" spellcheck={false} value={secret} onInput={(e) => setSecret((e.target as HTMLInputElement).value)} />
          ) : (
            <input name="webhook_secret" type="password" autocomplete="off" value={secret} onInput={(e) => setSecret((e.target as HTMLInputElement).value)} />
          )}
          <button type="button" class="btn btn-small" onClick={() => setShown(!shown)} aria-pressed={shown}>
            {shown ? 'Hide' : 'Show'}
          </button>
          <button type="button" class="btn btn-small" onClick={generate}>
            Generate
          </button>
        </div>
      </Field>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy || !settings.data}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" class="btn" onClick={sendTest}>
          Send test event
        </button>
      </div>
      <ErrorBox error={error} />
      {notice && <Notice>{notice}</Notice>}
    </form>
  );
}

interface QueueStats {
  pending: number;
  failed: number;
  oldest_pending_at: string | null;
  unfanned_events: number;
}

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

function Deliveries({ version }: { version: number }) {
  const [status, setStatus] = useState('');
  const [event, setEvent] = useState('');
  const [target, setTarget] = useState('');
  const list = usePagedList<Delivery>('/deliveries', query({ status, event, target, limit: 50 }));
  const stats = useAsync(() => adminApi.get<{ stats: QueueStats }>('/deliveries/stats'), 'delivery-stats');
  const adapters = useAsync(() => adminApi.get<{ items: Adapter[] }>('/adapters'), 'adapters');
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
            <option value="">all targets</option>
            <option value="webhook">webhook</option>
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
            {EVENT_NAMES.map((n) => (
              <option key={n} value={n} />
            ))}
          </datalist>
        </Field>
      </FilterBar>
      <PagedTable
        list={list}
        loading="Loading deliveries"
        empty={status || event || target ? 'No deliveries match these filters.' : 'No deliveries yet. Events are delivered once a webhook URL is set.'}
        head={
          <>
            <th scope="col">Event</th>
            <th scope="col">Target</th>
            <th scope="col">Status</th>
            <th scope="col" class="num">Attempts</th>
            <th scope="col">Created</th>
            <ActionsHeader />
          </>
        }
      >
        {list.items.map((d) => (
          <DeliveryRow key={d.id} delivery={d} open={open === d.id} onToggle={() => setOpen(open === d.id ? undefined : d.id)} onChanged={reload} />
        ))}
      </PagedTable>
    </section>
  );
}

function DeliveryRow({ delivery: d, open, onToggle, onChanged }: { delivery: Delivery; open: boolean; onToggle: () => void; onChanged: () => void }) {
  const [error, setError] = useState<unknown>();
  const [notice, setNotice] = useState<string>();
  const redeliver = async () => {
    setError(undefined);
    try {
      await adminApi.post(`/deliveries/${encodeURIComponent(d.id)}/redeliver`);
      setNotice('Queued again.');
      onChanged();
    } catch (err) {
      setError(err);
    }
  };
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
        <td class="num">{attemptCount(d) ?? '—'}</td>
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
  const detail = useAsync(() => adminApi.get<{ delivery: Delivery & { attempts?: Attempt[] } }>(`/deliveries/${encodeURIComponent(id)}`), id);
  if (detail.loading && !detail.data) return <Loading what="Loading attempts" />;
  if (detail.error) return <ErrorBox error={detail.error} onRetry={detail.reload} />;
  const d = detail.data?.delivery;
  const attempts = Array.isArray(d?.attempts) ? d.attempts : [];
  return (
    <div class="attempts">
      {d?.next_attempt_at && <p class="small">Next attempt {dateTime(d.next_attempt_at)}</p>}
      {attempts.length === 0 ? (
        <Empty>No attempts yet.</Empty>
      ) : (
        <ol>
          {attempts.map((a, i) => (
            <li key={`${i}-${a.at ?? a.attempted_at ?? a.created_at}`} class="small">
              {dateTime(a.at ?? a.attempted_at ?? a.created_at)} — {a.status_code ? `HTTP ${a.status_code}` : 'no response'}
              {(a.latency_ms ?? a.duration_ms) != null && ` in ${a.latency_ms ?? a.duration_ms} ms`}
              {a.error && <span class="muted"> · {a.error}</span>}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}

function Adapters() {
  const adapters = useAsync(() => adminApi.get<{ items: Adapter[] }>('/adapters'), 'adapters');
  return (
    <section class="card">
      <h2>Adapters</h2>
      <p class="muted small">In-process receivers of every event; enabled in the service's configuration.</p>
      <ErrorBox error={adapters.error} onRetry={adapters.reload} />
      {adapters.loading && !adapters.data && <Loading what="Loading adapters" />}
      {adapters.data && adapters.data.items.length === 0 && <Empty>No adapters are registered.</Empty>}
      {adapters.data && adapters.data.items.length > 0 && (
        <ul class="adapter-list">
          {adapters.data.items.map((a) => (
            <li key={a.name}>
              <strong>{a.name}</strong> <StatusBadge status={a.enabled ? 'enabled' : 'disabled'} />
              {a.description && <div class="muted small">{a.description}</div>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
