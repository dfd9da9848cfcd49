import { useState } from 'preact/hooks';
import { adminApi, type Answer } from '../api';
import { type FormSentences, refusalOf, SAY } from '../refusal';
import { confirmAction, CopyButton, ErrorBox, Field, Loading, Notice, useAsync, useFormFrom, useSubmit } from '../ui';
import { AdminUsers, ChangePassword } from './admin-accounts';
import { PayoutSettings } from './payout-settings';
import { PortalSignupSetting } from './portal-admin';

type Settings = Answer<'GET /admin/api/settings'>['settings'];

const GENERAL_SENTENCES: FormSentences = {
  fields: {
    commission_rate: SAY.rate,
    holding_days: `${SAY.wholeNumber(0, 365, 'days')} Leave it empty to approve commissions by hand.`,
    admin_email: `${SAY.email} Leave it empty for no admin mail.`,
    cookie_lifetime_days: SAY.wholeNumber(1, 365, 'days'),
    landing_url: SAY.webUrl('the page visitors land on', 'https://example.com/welcome'),
    mailbox_ttl_hours: SAY.wholeNumber(1, 720, 'hours'),
    mailbox_max_messages: SAY.wholeNumber(1, 10000),
  },
};

export function SettingsPage() {
  return (
    <>
      <GeneralSettings />
      <ClickLogSettings />
      <FraudSettings />
      <PayoutSettings />
      <PortalSignupSetting />
      <ApiKey />
      <ChangePassword />
      <AdminUsers />
    </>
  );
}

function GeneralSettings() {
  const settings = useAsync(() => adminApi.get<{ settings: Settings }>('/settings'), 'settings');
  const [form, setForm] = useFormFrom(
    settings.data,
    ({ settings: s }) => ({
      commission_rate: String(s.commission_rate),
      cookie_lifetime_days: String(s.cookie_lifetime_days),
      landing_url: s.landing_url,
      mailbox_ttl_hours: String(s.mailbox_ttl_hours),
      mailbox_max_messages: String(s.mailbox_max_messages),
      holding_days: s.holding_days === null ? '' : String(s.holding_days),
      admin_email: s.admin_email ?? '',
    }),
    { commission_rate: '', cookie_lifetime_days: '', landing_url: '', mailbox_ttl_hours: '', mailbox_max_messages: '', holding_days: '', admin_email: '' },
  );
  const { busy, error, notice, run, dismiss } = useSubmit();
  const refused = refusalOf(error, GENERAL_SENTENCES);

  const set = (k: keyof typeof form) => (e: Event) => {
    dismiss();
    setForm({ ...form, [k]: (e.target as HTMLInputElement).value });
  };

  const save = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      // Numbers go as numbers; a non-number ("abc") goes as is, so the service's 400 names the field.
      const num = (v: string) => (v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v);
      await adminApi.patch('/settings', {
        commission_rate: num(form.commission_rate),
        cookie_lifetime_days: num(form.cookie_lifetime_days),
        landing_url: form.landing_url.trim(),
        mailbox_ttl_hours: num(form.mailbox_ttl_hours),
        mailbox_max_messages: num(form.mailbox_max_messages),
        // empty: manual approval (null)
        holding_days: form.holding_days.trim() === '' ? null : num(form.holding_days),
        // empty: no admin mail (null)
        admin_email: form.admin_email.trim() === '' ? null : form.admin_email.trim(),
      });
      settings.reload();
      return 'Settings saved.';
    });
  };

  return (
    <form class="card form-grid" onSubmit={save} aria-label="Settings">
      <h2>General</h2>
      {settings.loading && !settings.data && <Loading what="Loading settings" />}
      <ErrorBox error={settings.error} onRetry={settings.reload} />
      <Field label="Commission rate %" hint="0–100, for affiliates without their own rate" error={refused.at('commission_rate')}>
        <input name="commission_rate" disabled={!settings.data} inputMode="decimal" required value={form.commission_rate} onInput={set('commission_rate')} />
      </Field>
      <Field label="Holding period (days)" hint="0–365: pending commissions are approved this long after payment, those already pending too; empty: approve by hand" error={refused.at('holding_days')}>
        <input name="holding_days" disabled={!settings.data} inputMode="numeric" value={form.holding_days} onInput={set('holding_days')} />
      </Field>
      <Field label="Cookie lifetime (days)" hint="1–365: how long a click attributes" error={refused.at('cookie_lifetime_days')}>
        <input name="cookie_lifetime_days" disabled={!settings.data} type="number" min={1} max={365} required value={form.cookie_lifetime_days} onInput={set('cookie_lifetime_days')} />
      </Field>
      <Field label="Landing URL" hint="where /go/<ref_code> sends visitors" error={refused.at('landing_url')}>
        <input name="landing_url" disabled={!settings.data} type="url" required value={form.landing_url} onInput={set('landing_url')} />
      </Field>
      <Field label="Mailbox retention (hours)" hint="1–720: messages are deleted after this" error={refused.at('mailbox_ttl_hours')}>
        <input name="mailbox_ttl_hours" disabled={!settings.data} type="number" min={1} max={720} required value={form.mailbox_ttl_hours} onInput={set('mailbox_ttl_hours')} />
      </Field>
      <Field label="Messages per mailbox" hint="1–10000: past it the oldest messages of that mailbox are deleted" error={refused.at('mailbox_max_messages')}>
        <input name="mailbox_max_messages" disabled={!settings.data} type="number" min={1} max={10000} required value={form.mailbox_max_messages} onInput={set('mailbox_max_messages')} />
      </Field>
      <Field label="Admin email" hint="where svc mails you: an affiliate waiting for review, the webhook failing; empty: no such mail" error={refused.at('admin_email')}>
        <input name="admin_email" disabled={!settings.data} type="email" maxLength={320} value={form.admin_email} onInput={set('admin_email')} />
      </Field>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy || !settings.data}>
          {busy ? 'Saving…' : 'Save settings'}
        </button>
      </div>
      <ErrorBox error={refused.rest} />
      {notice && <Notice>{notice}</Notice>}
    </form>
  );
}

type Retention = Answer<'POST /admin/api/maintenance/retention'>['retention'];

const CLICK_LOG_SENTENCES: FormSentences = { fields: { click_retention_days: SAY.wholeNumber(7, 3650, 'days') } };

/** docs/api.md#click-log: how long raw clicks are kept, what is kept for good, and a run on demand. */
function ClickLogSettings() {
  const settings = useAsync(() => adminApi.get<{ settings: Settings }>('/settings'), 'settings');
  const [form, setForm] = useFormFrom(settings.data, ({ settings: s }) => ({ click_retention_days: String(s.click_retention_days) }), { click_retention_days: '' });
  const { busy, running, error, notice, run, dismiss } = useSubmit();
  const refused = refusalOf(error, CLICK_LOG_SENTENCES);

  const save = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const v = form.click_retention_days.trim();
      await adminApi.patch('/settings', { click_retention_days: v !== '' && Number.isFinite(Number(v)) ? Number(v) : v });
      settings.reload();
      return 'Click log setting saved.';
    }, 'save');
  };

  const removeNow = () =>
    run(async () => {
      const { retention } = await adminApi.post<{ retention: Retention }>('/maintenance/retention');
      const kept = new Date(retention.kept_from).toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
      return retention.removed_clicks === 0
        ? `No raw click older than ${kept} (UTC) was left.`
        : `${retention.removed_clicks.toLocaleString()} raw ${retention.removed_clicks === 1 ? 'click' : 'clicks'} made before ${kept} (UTC) removed.`;
    }, 'remove');

  return (
    <form class="card form-grid" onSubmit={save} aria-label="Click log">
      <h2>Click log</h2>
      <p class="form-note muted small">
        Every report, the dashboard, the portal and the CSV exports count clicks per affiliate and day, and those counts are kept for good. The raw clicks behind them (time,
        referer and browser; never an address) are kept for the days below, then svc removes them once a day.
      </p>
      <ErrorBox error={settings.error} onRetry={settings.reload} />
      <Field label="Keep raw clicks (days)" hint="7–3650 whole days before today; 90 unless changed" error={refused.at('click_retention_days')}>
        <input
          name="click_retention_days"
          disabled={!settings.data}
          type="number"
          min={7}
          max={3650}
          required
          value={form.click_retention_days}
          onInput={(e) => {
            dismiss();
            setForm({ click_retention_days: (e.target as HTMLInputElement).value });
          }}
        />
      </Field>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy || !settings.data}>
          {running === 'save' ? 'Saving…' : 'Save'}
        </button>
        <button type="button" class="btn" onClick={removeNow} disabled={busy}>
          {running === 'remove' ? 'Removing…' : 'Remove old clicks now'}
        </button>
      </div>
      <ErrorBox error={refused.rest} />
      {notice && <Notice>{notice}</Notice>}
    </form>
  );
}

const FRAUD_SENTENCES: FormSentences = { fields: { fraud_click_burst: SAY.wholeNumber(1, 100_000, 'clicks') } };

const RULE_WORDS: Record<string, { label: string; hint: string }> = {
  self_referral: { label: 'Self-referral', hint: "the order's email is the affiliate's own (or at their own domain), or its mailbox came from a network they signed in from" },
  duplicate_payout: { label: 'Shared payout details', hint: "the payout email or IBAN is another affiliate's too (the other affiliate gets a flag only)" },
  click_burst: { label: 'Burst of clicks', hint: 'more clicks than the limit below on one link from one network in 10 minutes (the rest are not counted); anyone can click any link, so hold lets a stranger hold an affiliate' },
  refund_rate: { label: 'Many refunds', hint: 'at least 5 orders in 30 days and more than 30 % of their amount refunded' },
};

/** docs/api.md#fraud-review: what each signal does, and the click burst's limit. */
function FraudSettings() {
  const settings = useAsync(() => adminApi.get<{ settings: Settings }>('/settings'), 'settings');
  const empty = { self_referral: '', duplicate_payout: '', click_burst: '', refund_rate: '', fraud_click_burst: '' };
  const [form, setForm] = useFormFrom(settings.data, ({ settings: s }) => ({ ...s.fraud_rules, fraud_click_burst: String(s.fraud_click_burst) }), empty);
  const { busy, error, notice, run, dismiss } = useSubmit();
  const refused = refusalOf(error, FRAUD_SENTENCES);
  const save = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const v = form.fraud_click_burst.trim();
      const { fraud_click_burst: _limit, ...rules } = form;
      await adminApi.patch('/settings', { fraud_rules: rules, fraud_click_burst: v !== '' && Number.isFinite(Number(v)) ? Number(v) : v });
      settings.reload();
      return 'Fraud review settings saved.';
    });
  };
  return (
    <form class="card form-grid" onSubmit={save} aria-label="Fraud review">
      <h2>Fraud review</h2>
      <p class="form-note muted small">
        Each signal can be off, flag (open a case on the Review page) or hold (open a case and keep the affiliate's pending commissions, and withdrawals, waiting until you
        release or reject it). Addresses are compared as salted hashes and never shown.
      </p>
      <ErrorBox error={settings.error} onRetry={settings.reload} />
      {Object.entries(RULE_WORDS).map(([key, words]) => (
        <Field key={key} label={words.label} hint={words.hint}>
          <select
            name={key}
            disabled={!settings.data}
            value={form[key as keyof typeof form]}
            onChange={(e) => {
              dismiss();
              setForm({ ...form, [key]: (e.target as HTMLSelectElement).value });
            }}
          >
            <option value="off">off</option>
            <option value="flag">flag</option>
            <option value="hold">hold</option>
          </select>
        </Field>
      ))}
      <Field label="Click burst limit (clicks per 10 minutes)" hint="1–100000; 30 unless changed" error={refused.at('fraud_click_burst')}>
        <input
          name="fraud_click_burst"
          type="number"
          min={1}
          max={100000}
          required
          disabled={!settings.data}
          value={form.fraud_click_burst}
          onInput={(e) => {
            dismiss();
            setForm({ ...form, fraud_click_burst: (e.target as HTMLInputElement).value });
          }}
        />
      </Field>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy || !settings.data}>
          {busy ? 'Saving…' : 'Save'}
        </button>
      </div>
      <ErrorBox error={refused.rest} />
      {notice && <Notice>{notice}</Notice>}
    </form>
  );
}

function ApiKey() {
  const [key, setKey] = useState<string>();
  const { running, error, notice, run } = useSubmit();

  const show = () => run(async () => setKey((await adminApi.get<{ api_key: string }>('/api-key')).api_key), 'show');

  const rotate = async () => {
    const ok = await confirmAction(
      'Rotate the API key?',
      'Rotate key',
      <p>The current key stops working immediately. Every order system and script using it must switch to the new key.</p>,
    );
    if (!ok) return;
    await run(async () => {
      setKey((await adminApi.post<{ api_key: string }>('/api-key/rotate')).api_key);
      return 'New key active; the old one no longer works.';
    }, 'rotate');
  };

  return (
    <section class="card" aria-label="API key">
      <h2>API key</h2>
      <p class="muted small">
        Sent as <code>X-API-Key</code> on every <code>/api/…</code> request. The API is described in{' '}
        <a href="/openapi.json" target="_blank" rel="noreferrer">
          /openapi.json
        </a>{' '}
        (OpenAPI 3.1).
      </p>
      {key ? (
        <div class="input-row">
          <code class="secret" data-testid="api-key">
            {key}
          </code>
          <CopyButton text={key} />
          <button type="button" class="btn btn-small" onClick={() => setKey(undefined)}>
            Hide
          </button>
        </div>
      ) : (
        <button type="button" class="btn" onClick={show}>
          Show API key
        </button>
      )}
      {notice && <Notice>{notice}</Notice>}
      <ErrorBox error={error} />
      <div class="form-actions">
        <button type="button" class="btn btn-danger" onClick={rotate} disabled={running === 'rotate'}>
          {running === 'rotate' ? 'Rotating…' : 'Rotate key…'}
        </button>
      </div>
    </section>
  );
}
