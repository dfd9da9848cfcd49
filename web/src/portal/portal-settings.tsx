import { useState } from 'preact/hooks';
import { type Answer, portalApi } from '../api';
import { type FormSentences, refusalOf, SAY } from '../refusal';
import { type AsyncState, ErrorBox, Field, Notice, useAsync, useFormFrom, useSubmit } from '../ui';
import { PayoutForm } from './portal-payout-form';

type Me = Answer<'GET /portal/api/me'>;

const PROFILE_SENTENCES: FormSentences = { fields: { name: 'Enter your name, at most 200 characters.' } };
const PASSWORD_SENTENCES: FormSentences = {
  fields: { current_password: SAY.wrongPassword, new_password: `${SAY.newPassword} It must differ from the current one.` },
};

export function SettingsPage() {
  const me = useAsync(() => portalApi.get<Me>('/me'), 'me');
  return (
    <>
      <ErrorBox error={me.error} onRetry={me.reload} />
      <ProfileForm me={me} />
      <EmailStatus me={me} />
      <NotifyForm me={me} />
      <PayoutForm me={me} />
      <PasswordForm />
    </>
  );
}

function ProfileForm({ me }: { me: AsyncState<Me> }) {
  const [form, setForm] = useFormFrom(me.data, ({ affiliate }) => ({ name: affiliate.name ?? '' }), { name: '' });
  const { error, notice, run } = useSubmit();
  const refused = refusalOf(error, PROFILE_SENTENCES);

  const save = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      await portalApi.patch('/me', { name: form.name });
      me.reload();
      return 'Saved.';
    });
  };

  return (
    <form class="card form-grid form-stack" onSubmit={save} aria-label="Profile">
      <h2>Profile</h2>
      <Field label="Name" error={refused.at('name')}>
        <input name="name" maxLength={200} value={form.name} disabled={!me.data} onInput={(e) => setForm({ name: (e.target as HTMLInputElement).value })} />
      </Field>
      {notice && <Notice>{notice}</Notice>}
      <ErrorBox error={refused.rest} />
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={!me.data}>
          Save name
        </button>
      </div>
    </form>
  );
}

/** The email and whether it is confirmed; an unconfirmed one can have its link mailed again. */
function EmailStatus({ me }: { me: AsyncState<Me> }) {
  const [sent, setSent] = useState<Answer<'POST /portal/api/confirm-email/resend', 202>['mail']>();
  const { busy, error, run } = useSubmit();
  const affiliate = me.data?.affiliate;
  if (!affiliate?.email) return null;
  const resend = () => {
    setSent(undefined);
    return run(async () => {
      try {
        setSent((await portalApi.post<Answer<'POST /portal/api/confirm-email/resend', 202>>('/confirm-email/resend')).mail);
      } catch (err) {
        me.reload();
        throw err;
      }
    });
  };
  return (
    <section class="card form-stack" aria-label="Email address">
      <h2>Email address</h2>
      <p>
        {affiliate.email}{' '}
        <span class={`badge ${affiliate.email_confirmed ? 'badge-active' : 'badge-pending'}`}>{affiliate.email_confirmed ? 'Confirmed' : 'Not confirmed'}</span>
      </p>
      {!affiliate.email_confirmed && (
        <>
          <p class="muted small">
            Until you follow the link mailed to it, this address does not sign you in, get password reset links or notifications: sign in with your ref code {affiliate.ref_code}.
          </p>
          {sent === 'queued' && <Notice>A new confirmation link is on its way. It works once, for 24 hours. (At most 5 such mails an hour go to one address.)</Notice>}
          {sent === 'not_configured' && <Notice kind="error">This service sends no mail at the moment (its operator has not configured it).</Notice>}
          <ErrorBox error={error} />
          <div class="form-actions">
            <button type="button" class="btn" disabled={busy || affiliate.mail_configured === false} onClick={resend}>
              {busy ? 'Sending…' : 'Mail me a new confirmation link'}
            </button>
          </div>
        </>
      )}
    </section>
  );
}

/** Which notification mails the affiliate gets; invitations and reset links are always sent. */
function NotifyForm({ me }: { me: AsyncState<Me> }) {
  const [form, setForm] = useFormFrom(me.data, ({ affiliate }) => ({ ...affiliate.notify }), { commissions: true, payouts: true });
  const { error, notice, run } = useSubmit();
  const configured = me.data?.affiliate.mail_configured !== false;
  const noEmail = me.data !== undefined && !me.data.affiliate.email;
  const save = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      await portalApi.patch('/me', { notify: form });
      me.reload();
      return 'Saved.';
    });
  };
  const box = (key: 'commissions' | 'payouts', label: string) => (
    <label class="check">
      <input type="checkbox" name={`notify_${key}`} checked={form[key]} disabled={!me.data} onChange={(e) => setForm({ ...form, [key]: (e.target as HTMLInputElement).checked })} /> {label}
    </label>
  );
  return (
    <form class="card form-grid form-stack" onSubmit={save} aria-label="Notifications">
      <h2>Mail notifications</h2>
      {!configured && <Notice kind="error">This service sends no mail at the moment (its operator has not configured it); your choices apply once it does.</Notice>}
      {configured && noEmail && <Notice kind="error">Your account has no email address, so no mail reaches you; ask the team that runs this service to add one.</Notice>}
      {box('commissions', 'Mail me when a commission is approved')}
      {box('payouts', 'Mail me when a withdrawal is paid')}
      <p class="muted small">Invitations and password reset links are always sent (to a confirmed address).</p>
      {notice && <Notice>{notice}</Notice>}
      <ErrorBox error={error} />
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={!me.data}>
          Save notifications
        </button>
      </div>
    </form>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const { error, notice, run } = useSubmit();
  const refused = refusalOf(error, PASSWORD_SENTENCES);
  const submit = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      await portalApi.post('/password', { current_password: current, new_password: next });
      setCurrent('');
      setNext('');
      return 'Password changed.';
    });
  };
  return (
    <form class="card form-grid form-stack" onSubmit={submit} aria-label="Password">
      <h2>Password</h2>
      <Field label="Current password" error={refused.at('current_password')}>
        <input name="current_password" type="password" autocomplete="current-password" required value={current} onInput={(e) => setCurrent((e.target as HTMLInputElement).value)} />
      </Field>
      <Field label="New password" hint="10 to 200 characters. Your other sessions are signed out." error={refused.at('new_password')}>
        <input name="new_password" type="password" autocomplete="new-password" required minLength={10} maxLength={200} value={next} onInput={(e) => setNext((e.target as HTMLInputElement).value)} />
      </Field>
      {notice && <Notice>{notice}</Notice>}
      <ErrorBox error={refused.rest} />
      <div class="form-actions">
        <button type="submit" class="btn btn-primary">
          Change password
        </button>
      </div>
    </form>
  );
}
