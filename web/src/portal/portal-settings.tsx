import { useState } from 'preact/hooks';
import { type Answer, ApiError, portalApi } from '../api';
import { type FormSentences, refusalOf, SAY } from '../refusal';
import { type AsyncState, ErrorBox, Field, Notice, useAsync, useFormFrom } from '../ui';

type Me = Answer<'GET /portal/api/me'>;

const PROFILE_SENTENCES: FormSentences = { fields: { name: 'Enter your name, at most 200 characters.' } };
const PAYOUT_SENTENCES: FormSentences = {
  fields: {
    payout_details: 'Choose a payout method and fill in its fields.',
    'payout_details.email': 'Enter the email address of your account there.',
    'payout_details.iban': SAY.iban,
    'payout_details.bic': SAY.bic,
    'payout_details.account_holder': 'Enter the name on the account, at most 70 characters; for SEPA in Latin letters (accents are fine).',
    'payout_details.note': 'Write how to pay you, at most 500 characters.',
  },
};
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
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<unknown>();
  const refused = refusalOf(error, PROFILE_SENTENCES);

  const save = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    setError(undefined);
    try {
      await portalApi.patch('/me', { name: form.name });
      setSaved(true);
      me.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <form class="card form-grid form-stack" onSubmit={save} aria-label="Profile">
      <h2>Profile</h2>
      <Field label="Name" error={refused.at('name')}>
        <input name="name" maxLength={200} value={form.name} disabled={!me.data} onInput={(e) => setForm({ name: (e.target as HTMLInputElement).value })} />
      </Field>
      {saved && <Notice>Saved.</Notice>}
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
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const affiliate = me.data?.affiliate;
  if (!affiliate?.email) return null;
  const resend = async () => {
    setBusy(true);
    setSent(undefined);
    setError(undefined);
    try {
      setSent((await portalApi.post<Answer<'POST /portal/api/confirm-email/resend', 202>>('/confirm-email/resend')).mail);
    } catch (err) {
      setError(err);
      me.reload();
    } finally {
      setBusy(false);
    }
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
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<unknown>();
  const configured = me.data?.affiliate.mail_configured !== false;
  const noEmail = me.data !== undefined && !me.data.affiliate.email;
  const save = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    setError(undefined);
    try {
      await portalApi.patch('/me', { notify: form });
      setSaved(true);
      me.reload();
    } catch (err) {
      setError(err);
    }
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
      {saved && <Notice>Saved.</Notice>}
      <ErrorBox error={error} />
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={!me.data}>
          Save notifications
        </button>
      </div>
    </form>
  );
}

/** Why the current password was refused, in the affiliate's words; undefined for any other error. */
function passwordRefusal(err: unknown): string | undefined {
  if (!(err instanceof ApiError)) return undefined;
  if (err.code === 'password_required') return err.message.endsWith('.') ? err.message : `${err.message}.`;
  if (err.code === 'rate_limited') {
    const seconds = (err.details as { retry_after?: number } | undefined)?.retry_after ?? 60;
    return `Too many wrong passwords. Try again in ${Math.max(1, Math.ceil(seconds / 60))} min.`;
  }
  return undefined;
}

const PASSWORD_ERROR_ID = 'payout-password-error';

/**
 * Where the withdrawals are paid: a change needs the current password (docs/api.md#affiliate-portal), so a signed-in
 * browser left open is not enough to redirect the money. A refused password is shown at its field.
 */
type PayoutDetails = NonNullable<Me['affiliate']['payout_details']>;
type Method = PayoutDetails['method'];

const METHODS: { value: Method; label: string }[] = [
  { value: 'paypal', label: 'PayPal' },
  { value: 'wise', label: 'Wise' },
  { value: 'sepa', label: 'SEPA bank transfer' },
  { value: 'other', label: 'Other' },
];

/** The fields each method shows and sends (docs/api.md#payouts): the service checks them again and names a wrong one. */
const FIELDS: Record<Method, readonly ('email' | 'iban' | 'bic' | 'account_holder' | 'note')[]> = {
  paypal: ['email'],
  wise: ['email', 'account_holder'],
  sepa: ['account_holder', 'iban', 'bic'],
  other: ['note'],
};

const FIELD_LABEL = { email: 'Email', iban: 'IBAN', bic: 'BIC (optional)', account_holder: 'Account holder', note: 'How to pay you' } as const;

interface PayoutFormState {
  method: Method;
  email: string;
  iban: string;
  bic: string;
  account_holder: string;
  note: string;
}

const EMPTY_PAYOUT: PayoutFormState = { method: 'paypal', email: '', iban: '', bic: '', account_holder: '', note: '' };

/**
 * Where the withdrawals are paid: a method and the fields it needs; a change needs the current password
 * (docs/api.md#affiliate-portal), so a signed-in browser left open is not enough to redirect the money. A refused
 * password is shown at its field, a refused detail at its own.
 */
function PayoutForm({ me }: { me: AsyncState<Me> }) {
  const [form, setForm] = useFormFrom(
    me.data,
    ({ affiliate }) => ({ ...EMPTY_PAYOUT, ...(affiliate.payout_details ?? {}) }) as PayoutFormState,
    EMPTY_PAYOUT,
  );
  const [password, setPassword] = useState('');
  const [saved, setSaved] = useState(false);
  const [error, setError] = useState<unknown>();
  const refusal = passwordRefusal(error);
  const refused = refusalOf(error, PAYOUT_SENTENCES);

  const save = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    setError(undefined);
    const details: Record<string, string> = { method: form.method };
    for (const f of FIELDS[form.method]) if (form[f].trim() !== '') details[f] = form[f];
    try {
      await portalApi.patch('/me', { payout_details: details, current_password: password });
      setSaved(true);
      setPassword('');
      me.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <form class="card form-grid form-stack" onSubmit={save} aria-label="Payout">
      <h2>Payout details</h2>
      <Field label="Payout method" hint="Where to send your withdrawals. A withdrawal keeps the details it was requested with.">
        <select name="method" value={form.method} disabled={!me.data} onChange={(e) => setForm({ ...form, method: (e.target as HTMLSelectElement).value as Method })}>
          {METHODS.map((m) => (
            <option key={m.value} value={m.value}>
              {m.label}
            </option>
          ))}
        </select>
      </Field>
      {FIELDS[form.method].map((f) => (
        <Field key={f} label={FIELD_LABEL[f]} error={refused.at(`payout_details.${f}`) ?? refused.at('payout_details')}>
          {f === 'note' ? (
            <textarea name={f} rows={3} maxLength={500} value={form[f]} disabled={!me.data} onInput={(e) => setForm({ ...form, [f]: (e.target as HTMLTextAreaElement).value })} />
          ) : (
            <input
              name={f}
              type="text"
              inputMode={f === 'email' ? 'email' : 'text'}
              maxLength={f === 'email' ? 320 : f === 'bic' ? 11 : 70}
              value={form[f]}
              disabled={!me.data}
              onInput={(e) => setForm({ ...form, [f]: (e.target as HTMLInputElement).value })}
            />
          )}
        </Field>
      ))}
      <div class="field">
        <label class="field-label" for="payout-current-password">
          Current password
        </label>
        <input
          id="payout-current-password"
          name="current_password"
          type="password"
          autocomplete="current-password"
          required
          value={password}
          aria-invalid={refusal ? 'true' : undefined}
          aria-describedby={refusal ? PASSWORD_ERROR_ID : 'payout-password-hint'}
          onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
        />
        {refusal ? (
          <span id={PASSWORD_ERROR_ID} class="field-error" role="alert">
            {refusal}
          </span>
        ) : (
          <span id="payout-password-hint" class="field-hint">
            Needed to change where your withdrawals are paid.
          </span>
        )}
      </div>
      {saved && <Notice>Saved.</Notice>}
      {!refusal && <ErrorBox error={refused.rest} />}
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={!me.data}>
          Save payout details
        </button>
      </div>
    </form>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const [error, setError] = useState<unknown>();
  const refused = refusalOf(error, PASSWORD_SENTENCES);
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
      <Field label="Current password" error={refused.at('current_password')}>
        <input name="current_password" type="password" autocomplete="current-password" required value={current} onInput={(e) => setCurrent((e.target as HTMLInputElement).value)} />
      </Field>
      <Field label="New password" hint="10 to 200 characters. Your other sessions are signed out." error={refused.at('new_password')}>
        <input name="new_password" type="password" autocomplete="new-password" required minLength={10} maxLength={200} value={next} onInput={(e) => setNext((e.target as HTMLInputElement).value)} />
      </Field>
      {done && <Notice>Password changed.</Notice>}
      <ErrorBox error={refused.rest} />
      <div class="form-actions">
        <button type="submit" class="btn btn-primary">
          Change password
        </button>
      </div>
    </form>
  );
}
