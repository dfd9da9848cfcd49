import { useState } from 'preact/hooks';
import { type Answer, portalApi } from '../api';
import { ErrorBox, Field, Notice, useAsync, useFormFrom } from '../ui';

type Me = Answer<'GET /portal/api/me'>;

export function SettingsPage() {
  const me = useAsync(() => portalApi.get<Me>('/me'), 'me');
  const [form, setForm] = useFormFrom(me.data, ({ affiliate }) => ({ name: affiliate.name ?? '', payout_details: affiliate.payout_details ?? '' }), { name: '', payout_details: '' });
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<unknown>();

  const save = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    setError(undefined);
    try {
      await portalApi.patch('/me', { name: form.name, payout_details: form.payout_details });
      setSaved(true);
      me.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <ErrorBox error={me.error} onRetry={me.reload} />
      <form class="card form-grid form-stack" onSubmit={save} aria-label="Profile">
        <h2>Profile</h2>
        <Field label="Name">
          <input name="name" maxLength={200} value={form.name} disabled={!me.data} onInput={(e) => setForm({ ...form, name: (e.target as HTMLInputElement).value })} />
        </Field>
        <Field label="Payout details" hint="Where to send your withdrawals (bank account, PayPal…), up to 500 characters. Shown to the admin beside each withdrawal.">
          <textarea
            name="payout_details"
            rows={3}
            maxLength={500}
            value={form.payout_details}
            disabled={!me.data}
            onInput={(e) => setForm({ ...form, payout_details: (e.target as HTMLTextAreaElement).value })}
          />
        </Field>
        {saved && <Notice>Saved.</Notice>}
        <ErrorBox error={error} />
        <div class="form-actions">
          <button type="submit" class="btn btn-primary" disabled={!me.data}>
            Save
          </button>
        </div>
      </form>
      <PasswordForm />
    </>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (e: Event) => {
    e.preventDefault();
    setDone(false);
    setError(undefined);
    try {
      await portalApi.post('/password', { current_password: current, new_password: next });
      setDone(true);
      setCurrent('');
      setNext('');
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="card form-grid form-stack" onSubmit={submit} aria-label="Password">
      <h2>Password</h2>
      <Field label="Current password">
        <input name="current_password" type="password" autocomplete="current-password" required value={current} onInput={(e) => setCurrent((e.target as HTMLInputElement).value)} />
      </Field>
      <Field label="New password" hint="10 to 200 characters. Your other sessions are signed out.">
        <input name="new_password" type="password" autocomplete="new-password" required minLength={10} maxLength={200} value={next} onInput={(e) => setNext((e.target as HTMLInputElement).value)} />
      </Field>
      {done && <Notice>Password changed.</Notice>}
      <ErrorBox error={error} />
      <div class="form-actions">
        <button type="submit" class="btn btn-primary">
          Change password
        </button>
      </div>
    </form>
  );
}
