import { useState } from 'preact/hooks';
import { adminApi, type Answer, type ItemOf } from '../api';
import { secretPlaceholder, secretStatus } from '../format';
import { type FormSentences, refusalOf, SAY } from '../refusal';
import { confirmAction, Empty, ErrorBox, Field, Loading, Notice, StatusBadge, useAsync, useFormFrom, useSubmit } from '../ui';
import { Deliveries } from './delivery-log';

type Settings = Answer<'GET /admin/api/settings'>['settings'];
type Adapter = ItemOf<'GET /admin/api/adapters'>;

const WEBHOOK_SENTENCES: FormSentences = {
  fields: {
    webhook_url: (message) =>
      /private or reserved/.test(message)
        ? 'This address is on a private network or this machine: webhooks go to public addresses only. (To use a local receiver, start svc with SVC_WEBHOOK_ALLOW_PRIVATE=true.)'
        : /not set/.test(message)
          ? 'Save a webhook URL first: the test event goes to the saved address.'
          : SAY.webUrl('the receiver', 'https://example.com/hooks/svc'),
    webhook_secret: 'Use a secret of 16 to 256 characters, or press Generate for a new one.',
  },
};

/** whsec_ + 32 random bytes in base64, made in the browser so the secret never travels before it is saved. */
export function generateSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

export function WebhooksPage() {
  // bumped when a test event is sent, so the log and its summary show it without a manual refresh
  const [logVersion, setLogVersion] = useState(0);
  return (
    <>
      <WebhookSettings onTestSent={() => setLogVersion((v) => v + 1)} />
      <MessageEventsSetting />
      <Deliveries version={logVersion} />
      <Adapters />
    </>
  );
}

/** Setting message_events: `message.received` for every mailbox copy of arriving mail (off by default). */
function MessageEventsSetting() {
  const settings = useAsync(() => adminApi.get<{ settings: Settings }>('/settings'), 'settings-message-events');
  const [on, setOn] = useFormFrom<{ settings: Settings }, boolean>(settings.data, (d) => d.settings.message_events, false);
  const { error, notice, run } = useSubmit();
  const change = (value: boolean) => {
    setOn(value);
    return run(async () => {
      try {
        await adminApi.patch('/settings', { message_events: value });
      } catch (err) {
        setOn(!value);
        throw err;
      }
      return value ? 'Arriving mail now sends message.received.' : 'Arriving mail sends no event now.';
    });
  };
  return (
    <section class="card" aria-label="Mail events">
      <h2>Mail events</h2>
      <label class="checkbox">
        <input type="checkbox" name="message_events" checked={on} disabled={!settings.data} onChange={(e) => change((e.target as HTMLInputElement).checked)} /> Send{' '}
        <code>message.received</code> for every message that arrives (one event per mailbox)
      </label>
      {notice && <Notice>{notice}</Notice>}
      <ErrorBox error={error} />
    </section>
  );
}

function WebhookSettings({ onTestSent }: { onTestSent: () => void }) {
  const settings = useAsync(() => adminApi.get<{ settings: Settings }>('/settings'), 'settings');
  // The secret is write-only (docs/api.md#settings): the field starts empty and only a new one typed or generated is sent.
  const [form, setForm] = useFormFrom(settings.data, ({ settings: s }) => ({ url: s.webhook_url ?? '', secret: '' }), { url: '', secret: '' });
  const { url, secret } = form;
  const setUrl = (value: string) => setForm({ ...form, url: value });
  const setSecret = (value: string) => setForm({ ...form, secret: value });
  const [shown, setShown] = useState(false);
  const { busy, error, notice, run } = useSubmit();
  const refused = refusalOf(error, WEBHOOK_SENTENCES);
  const savedUrl = settings.data?.settings.webhook_url ?? null;

  const save = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const body: Record<string, unknown> = { webhook_url: url.trim() === '' ? null : url.trim() };
      if (secret !== '') body.webhook_secret = secret;
      await adminApi.patch('/settings', body);
      // the form starts over from the reloaded settings: "saved" (and typing again) only once it has
      await settings.reload();
      return 'Webhook settings saved.';
    });
  };

  const generate = async () => {
    const current = settings.data?.settings.webhook_secret;
    if (current?.set && !(await confirmAction('Replace the webhook secret?', 'Generate new secret', <p>Receivers must switch to the new secret once you save it.</p>))) return;
    setSecret(generateSecret());
    setShown(true);
  };

  const sendTest = () =>
    run(async () => {
      // the test event goes to the saved URL: a new one typed in the field is saved first
      if (url.trim() !== (savedUrl ?? '')) throw new Error('Save the webhook URL first: the test event goes to the saved address.');
      await adminApi.post('/webhooks/test');
      onTestSent();
      return 'Test event queued; it appears in the delivery log below.';
    });

  return (
    <form class="card form-grid form-stack" onSubmit={save} aria-label="Webhook">
      <h2>Webhook</h2>
      {settings.loading && !settings.data && <Loading what="Loading settings" />}
      <ErrorBox error={settings.error} onRetry={settings.reload} />
      <Field
        label="Webhook URL"
        hint="every event (order.paid, withdrawal.requested, commission and withdrawal changes) is POSTed here; empty turns webhooks off"
        error={refused.at('webhook_url')}
      >
        <input name="webhook_url" disabled={!settings.data || busy} type="url" placeholder="https://example.com/hooks/svc" value={url} onInput={(e) => setUrl((e.target as HTMLInputElement).value)} />
      </Field>
      <Field label="Signing secret" hint={`X-SVC-Signature and Standard Webhooks signatures use it; currently ${secretStatus(settings.data?.settings.webhook_secret)}`} error={refused.at('webhook_secret')}>
        <div class="input-row">
          {/* Two elements because the typings tie `type` to the other attributes allowed. */}
          {shown ? (
            <input name="webhook_secret" disabled={!settings.data} type="text" autocomplete="off" spellcheck={false} placeholder={secretPlaceholder(settings.data?.settings.webhook_secret)} value={secret} onInput={(e) => setSecret((e.target as HTMLInputElement).value)} />
          ) : (
            <input name="webhook_secret" disabled={!settings.data} type="password" autocomplete="off" placeholder={secretPlaceholder(settings.data?.settings.webhook_secret)} value={secret} onInput={(e) => setSecret((e.target as HTMLInputElement).value)} />
          )}
          <button type="button" class="btn btn-small" onClick={() => setShown(!shown)} aria-pressed={shown}>
            {shown ? 'Hide' : 'Show'}
          </button>
          <button type="button" class="btn btn-small" onClick={generate} disabled={!settings.data}>
            Generate
          </button>
        </div>
      </Field>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy || !settings.data}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" class="btn" onClick={sendTest} disabled={!savedUrl} aria-describedby={savedUrl ? undefined : 'test-event-hint'}>
          Send test event
        </button>
      </div>
      {settings.data && !savedUrl && (
        <p class="muted small" id="test-event-hint">
          Save a webhook URL to send a test event to it.
        </p>
      )}
      <ErrorBox error={refused.rest} />
      {notice && <Notice>{notice}</Notice>}
    </form>
  );
}

function Adapters() {
  const adapters = useAsync(() => adminApi.get<{ items: Adapter[] }>('/adapters'), 'adapters');
  return (
    <section class="card">
      <h2>Adapters</h2>
      <p class="muted small">In-process receivers of the events each one subscribes to; enabled in the service's configuration.</p>
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
