import { useState } from 'preact/hooks';
import { adminApi, type Answer, type ItemOf } from '../api';
import { dateTime, secretPlaceholder, secretStatus } from '../format';
import { refusalOf } from '../refusal';
import { Empty, ErrorBox, Field, Loading, Notice, StatusBadge, useAsync, useFormFrom, useSubmit } from '../ui';

type Settings = Answer<'GET /admin/api/settings'>['settings'];
type ReceivedEvent = ItemOf<'GET /admin/api/integrations/events'>;
type Provider = ReceivedEvent['provider'];
type ProviderStatus = Answer<'GET /admin/api/integrations/status'>['providers'][number];
type SecretKey = 'stripe_webhook_secret' | 'paddle_webhook_secret' | 'lemonsqueezy_webhook_secret';

/** What to paste where, per billing system (docs/api.md, "Integrations"); the events to enable come from the service. */
const PROVIDERS: readonly { id: Provider; name: string; key: SecretKey; where: string; secretName: string }[] = [
  {
    id: 'stripe',
    name: 'Stripe',
    key: 'stripe_webhook_secret',
    where: 'Stripe dashboard → Developers → Webhooks → Add endpoint',
    secretName: 'the endpoint\'s Signing secret (whsec_…)',
  },
  {
    id: 'paddle',
    name: 'Paddle Billing',
    key: 'paddle_webhook_secret',
    where: 'Paddle → Developer tools → Notifications → New destination (type webhook)',
    secretName: 'the destination\'s Secret key',
  },
  {
    id: 'lemonsqueezy',
    name: 'Lemon Squeezy',
    key: 'lemonsqueezy_webhook_secret',
    where: 'Lemon Squeezy → Settings → Webhooks → +',
    secretName: 'the Signing secret you type there',
  },
];

export function IntegrationsPage() {
  const settings = useAsync(() => adminApi.get<{ settings: Settings }>('/settings'), 'settings');
  const events = useAsync(() => adminApi.get<{ items: ReceivedEvent[] }>('/integrations/events?limit=100'), 'integration-events');
  const status = useAsync(() => adminApi.get<Answer<'GET /admin/api/integrations/status'>>('/integrations/status'), 'integration-status');
  return (
    <>
      <section class="card">
        <h2>Connect a billing system</h2>
        <p class="muted">
          Point your billing system's webhook at svc and paid orders, refunds and disputes arrive by themselves. A buyer whose email is no attributed mailbox is
          attributed to the affiliate code the event names (<code>client_reference_id</code> or <code>metadata.svc_ref</code> on Stripe, <code>custom_data.svc_ref</code>{' '}
          on Paddle and Lemon Squeezy).
        </p>
        {settings.loading && !settings.data && <Loading what="Loading settings" />}
        <ErrorBox error={settings.error} onRetry={settings.reload} />
        <ErrorBox error={status.error} onRetry={status.reload} />
      </section>
      {PROVIDERS.map((p) => (
        <ProviderCard
          key={p.id}
          provider={p}
          settings={settings.data?.settings}
          onSaved={settings.reload}
          events={events.data?.items.filter((e) => e.provider === p.id) ?? []}
          status={status.data?.providers.find((s) => s.provider === p.id)}
        />
      ))}
      <section class="card" aria-label="Received events">
        <h2>Received events</h2>
        <ErrorBox error={events.error} onRetry={events.reload} />
        {events.loading && !events.data && <Loading what="Loading events" />}
        {events.data && events.data.items.length === 0 && <Empty>No event received yet.</Empty>}
        {events.data && events.data.items.length > 0 && <EventTable rows={events.data.items} />}
        <button
          type="button"
          class="btn btn-small"
          onClick={() => {
            events.reload();
            status.reload();
          }}
        >
          Refresh
        </button>
      </section>
    </>
  );
}

function ProviderCard({
  provider: p,
  settings,
  onSaved,
  events,
  status,
}: { provider: (typeof PROVIDERS)[number]; settings: Settings | undefined; onSaved: () => void; events: ReceivedEvent[]; status: ProviderStatus | undefined }) {
  // Write-only (docs/api.md#settings): the field starts empty; Save sends only a secret typed in, Clear sends ''.
  const [form, setForm] = useFormFrom(settings, () => ({ secret: '' }), { secret: '' });
  const state = settings?.[p.key];
  const [shown, setShown] = useState(false);
  const { busy, error, notice, run } = useSubmit();
  const refused = refusalOf(error, { fields: {} });
  const url = `${location.origin}/integrations/${p.id}`;
  const last = events[0];
  const save = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      if (form.secret.trim() === '') return state?.set ? `${p.name} secret unchanged.` : `No ${p.name} secret typed: its events are refused.`;
      await adminApi.patch('/settings', { [p.key]: form.secret.trim() });
      onSaved();
      return `${p.name} secret saved.`;
    });
  };
  const clear = () =>
    run(async () => {
      await adminApi.patch('/settings', { [p.key]: '' });
      onSaved();
      return `${p.name} secret cleared: its events are refused.`;
    });
  return (
    <form class="card form-grid form-stack" onSubmit={save} aria-label={p.name} data-provider={p.id}>
      <h2>{p.name}</h2>
      <p>
        In <strong>{p.where}</strong>, paste this URL:
      </p>
      <p>
        <code data-testid={`${p.id}-url`}>{url}</code>
      </p>
      <p>Enable these events:</p>
      {status ? (
        <ul data-testid={`${p.id}-events`}>
          {status.events.map((e) => (
            <li key={e}>
              <code>{e}</code>
            </li>
          ))}
        </ul>
      ) : (
        <Loading what="Loading events" />
      )}
      {p.id === 'paddle' && status && <PaddleWaiting status={status} />}
      <Field label="Signing secret" hint={`Paste ${p.secretName}; currently ${secretStatus(state)}. Without one every ${p.name} event is refused`} error={refused.at(p.key)}>
        <div class="input-row">
          {shown ? (
            <input name={p.key} disabled={!settings} type="text" autocomplete="off" spellcheck={false} placeholder={secretPlaceholder(state)} value={form.secret} onInput={(e) => setForm({ secret: (e.target as HTMLInputElement).value })} />
          ) : (
            <input name={p.key} disabled={!settings} type="password" autocomplete="off" placeholder={secretPlaceholder(state)} value={form.secret} onInput={(e) => setForm({ secret: (e.target as HTMLInputElement).value })} />
          )}
          <button type="button" class="btn btn-small" onClick={() => setShown(!shown)} aria-pressed={shown}>
            {shown ? 'Hide' : 'Show'}
          </button>
        </div>
      </Field>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy || !settings}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        {state?.set && (
          <button type="button" class="btn" onClick={clear} disabled={busy}>
            Clear secret
          </button>
        )}
      </div>
      <p class="muted small" data-testid={`${p.id}-last`}>
        {settings && !state?.set ? 'Not connected: no secret set. ' : ''}
        {last ? `Last event: ${last.type}, ${dateTime(last.received_at)}, ${last.outcome}${last.reason ? ` (${last.reason})` : ''}` : 'No event received yet.'}
      </p>
      <ErrorBox error={refused.rest} />
      {notice && <Notice>{notice}</Notice>}
    </form>
  );
}

/** Paddle sends a customer's email apart from its transactions: what waits for it, and which notifications bring it. */
function PaddleWaiting({ status }: { status: ProviderStatus }) {
  const n = status.waiting_for_customer;
  return (
    <p class="muted small" data-testid="paddle-waiting">
      Paddle names a transaction's customer, not its email: subscribe to <code>customer.created</code> and <code>customer.updated</code> as well as{' '}
      <code>transaction.completed</code>.{' '}
      {n === 0 && 'No transaction waits for its customer.'}
      {n === 1 && '1 transaction waits for its customer\'s notification; it is booked when that arrives.'}
      {n > 1 && `${n} transactions wait for their customers' notifications; each is booked when its own arrives.`}
      {status.awaiting_email > 0 && ` ${status.awaiting_email} booked at once by their svc_ref wait for the customer's email.`}
    </p>
  );
}

function EventTable({ rows }: { rows: ReceivedEvent[] }) {
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th>Received</th>
            <th>Provider</th>
            <th>Type</th>
            <th>Outcome</th>
            <th>Reason</th>
            <th>Order</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((e) => (
            <tr key={e.id}>
              <td>{dateTime(e.received_at)}</td>
              <td>{e.provider}</td>
              <td>
                <code>{e.type}</code>
              </td>
              <td>
                <StatusBadge status={e.outcome} />
              </td>
              <td>{e.reason ?? ''}</td>
              <td>{e.order_id ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
