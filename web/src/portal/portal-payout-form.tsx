import { useState } from 'preact/hooks';
import { type Answer, ApiError, portalApi } from '../api';
import { type FormSentences, refusalOf, SAY } from '../refusal';
import { type AsyncState, ErrorBox, Field, Notice, useFormFrom, useSubmit } from '../ui';

type Me = Answer<'GET /portal/api/me'>;

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
export function PayoutForm({ me }: { me: AsyncState<Me> }) {
  const [form, setForm] = useFormFrom(
    me.data,
    ({ affiliate }) => ({ ...EMPTY_PAYOUT, ...(affiliate.payout_details ?? {}) }) as PayoutFormState,
    EMPTY_PAYOUT,
  );
  const [password, setPassword] = useState('');
  const { error, notice, run } = useSubmit();
  const refusal = passwordRefusal(error);
  const refused = refusalOf(error, PAYOUT_SENTENCES);

  const save = (e: Event) => {
    e.preventDefault();
    const details: Record<string, string> = { method: form.method };
    for (const f of FIELDS[form.method]) if (form[f].trim() !== '') details[f] = form[f];
    return run(async () => {
      await portalApi.patch('/me', { payout_details: details, current_password: password });
      setPassword('');
      me.reload();
      return 'Saved.';
    });
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
      {notice && <Notice>{notice}</Notice>}
      {!refusal && <ErrorBox error={refused.rest} />}
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={!me.data}>
          Save payout details
        </button>
      </div>
    </form>
  );
}
