import { useState } from 'preact/hooks';
import { adminApi, type Answer, type ItemOf } from '../api';
import { dateTime, secretPlaceholder, secretStatus } from '../format';
import { refusalOf } from '../refusal';
import { Empty, ErrorBox, Field, Loading, Notice, StatusBadge, useAsync, useFormFrom, useSubmit } from '../ui';

type Settings = Answer<'GET /admin/api/settings'>['settings'];
type ReceivedEvent = ItemOf<'GET /admin/api/integrations/events'>;
type Provider = ReceivedEvent['provider'];
type SecretKey = 'stripe_webhook_secret' | 'paddle_webhook_secret' | 'lemonsqueezy_webhook_secret';

/** What to paste where, per billing system (docs/api.md, "Integrations"). */
const PROVIDERS: readonly { id: Provider; name: string; key: SecretKey; where: string; secretName: string; events: readonly string[] }[] = [
  {
    id: 'stripe',
    name: 'Stripe',
    key: 'stripe_webhook_secret',
    where: 'Stripe dashboard → Developers → Webhooks → Add endpoint',
    secretName: 'the endpoint\'s Signing secret (whsec_…)',
    events: ['checkout.session.completed', 'checkout.session.async_payment_succeeded', 'invoice.paid', 'invoice_payment.paid', 'charge.refunded', 'charge.dispute.created'],
  },
  {
    id: 'paddle',
    name: 'Paddle Billing',
    key: 'paddle_webhook_secret',
    where: 'Paddle → Developer tools → Notifications → New destination (type webhook)',
    secretName: 'the destination\'s Secret key',
    events: ['transaction.completed', 'adjustment.created', 'adjustment.updated', 'customer.created', 'customer.updated'],
  },
  {
    id: 'lemonsqueezy',
    name: 'Lemon Squeezy',
    key: 'lemonsqueezy_webhook_secret',
    where: 'Lemon Squeezy → Settings → Webhooks → +',
    secretName: 'the Signing secret you type there',
    events: ['order_created', 'order_refunded', 'subscription_payment_success'],
  },
];

export function IntegrationsPage() {
  const settings = useAsync(() => adminApi.get<{ settings: Settings }>('/settings'), 'settings');
  const events = useAsync(() => adminApi.get<{ items: ReceivedEvent[] }>('/integrations/events?limit=100'), 'integration-events');
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
      </section>
      {PROVIDERS.map((p) => (
        <ProviderCard key={p.id} provider={p} settings={settings.data?.settings} onSaved={settings.reload} events={events.data?.items.filter((e) => e.provider === p.id) ?? []} />
      ))}
      <section class="card" aria-label="Received events">
        <h2>Received events</h2>
        <ErrorBox error={events.error} onRetry={events.reload} />
        {events.loading && !events.data && <Loading what="Loading events" />}
        {events.data && events.data.items.length === 0 && <Empty>No event received yet.</Empty>}
        {events.data && events.data.items.length > 0 && <EventTable rows={events.data.items} />}
        <button type="button" class="btn btn-small" onClick={events.reload}>
          Refresh
        </button>
      </section>
    </>
  );
}

function ProviderCard({ provider: p, settings, onSaved, events }: { provider: (typeof PROVIDERS)[number]; settings: Settings | undefined; onSaved: () => void; events: ReceivedEvent[] }) {
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
      <ul data-testid={`${p.id}-events`}>
        {p.events.map((e) => (
          <li key={e}>
            <code>{e}</code>
          </li>
        ))}
      </ul>
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
