import { adminApi, type Answer } from '../api';
import { currencyDigits } from '../format';
import { type FormSentences, refusalOf, SAY } from '../refusal';
import { ErrorBox, Field, Loading, Notice, useAsync, useFormFrom, useSubmit } from '../ui';

/** The settings of docs/api.md#payouts: program currency, payout minimum and schedule, the debtor of SEPA files. */

type Settings = Answer<'GET /admin/api/settings'>['settings'];

let known: { code: string; name: string }[] | undefined;

/** The browser's ISO 4217 codes (the service checks against the same data) with their English names, and the saved one if the browser lacks it. */
function currencyOptions(current: string): { code: string; name: string }[] {
  if (!known) {
    const names = new Intl.DisplayNames(['en'], { type: 'currency' });
    known = Intl.supportedValuesOf('currency').map((code) => ({ code, name: names.of(code) ?? code }));
  }
  return !current || known.some((c) => c.code === current) ? known : [{ code: current, name: current }, ...known];
}

const capitalised = (message: string) => message.charAt(0).toUpperCase() + message.slice(1);

/**
 * `saved`: the saved currency, in which the service reads a minimum sent with a currency change, then
 * rescales it to the new one (a refusal naming the new currency: the amount has no exact value there).
 */
const payoutSentences = (saved: string, changing: boolean): FormSentences => ({
  fields: {
    // "the payout minimum has no exact value in JPY", "a flat commission rule has no exact value in JPY"
    currency: (message) =>
      /no exact value/.test(message)
        ? `${capitalised(message)}: change that amount first, or choose another currency.`
        : 'Choose the currency from the list (an ISO 4217 code like USD, EUR or JPY).',
    // "must have at most 0 decimal places (JPY)"
    payout_minimum: (message) => {
      const decimals = /at most (\d+) decimal places \((\w+)\)/.exec(message);
      if (decimals && changing && decimals[2] === saved) return `A minimum sent with a new currency is read in ${saved}, the saved one: save the currency first, then the minimum.`;
      if (decimals?.[1] === '0') return `Enter a whole amount (${decimals[2]} has no decimals), or leave it empty for no minimum.`;
      if (decimals) return `Enter an amount with at most ${decimals[1]} decimals (${decimals[2]}), or leave it empty for no minimum.`;
      return 'Enter an amount above 0 and at most 1000000000, or leave it empty for no minimum.';
    },
    payout_schedule: 'Choose manual or monthly.',
    sepa_debtor_name: 'Enter the name of the account payouts are sent from, at most 70 characters in Latin letters (accents are fine), or leave it empty.',
    sepa_debtor_iban: `${SAY.iban} Leave it empty for none.`,
    sepa_debtor_bic: SAY.bic,
  },
  codes: {
    currency_locked: { field: 'currency', sentence: 'The currency cannot change any more: orders exist, and their amounts are in the current currency.' },
  },
});

const EMPTY = { currency: '', payout_minimum: '', payout_schedule: 'manual', sepa_debtor_name: '', sepa_debtor_iban: '', sepa_debtor_bic: '' };

/** The Payouts card of the Settings page: its own form, saving only its own fields. */
export function PayoutSettings() {
  const settings = useAsync(() => adminApi.get<{ settings: Settings }>('/settings'), 'settings-payouts');
  const [form, setForm] = useFormFrom(
    settings.data,
    ({ settings: s }) => ({
      currency: s.currency,
      payout_minimum: s.payout_minimum === null ? '' : String(s.payout_minimum),
      payout_schedule: s.payout_schedule as string,
      sepa_debtor_name: s.sepa_debtor_name ?? '',
      sepa_debtor_iban: s.sepa_debtor_iban ?? '',
      sepa_debtor_bic: s.sepa_debtor_bic ?? '',
    }),
    EMPTY,
  );
  const { busy, error, notice, run } = useSubmit();
  const saved = settings.data?.settings.currency ?? '';
  const refused = refusalOf(error, payoutSentences(saved, form.currency !== saved));
  const digits = currencyDigits(saved || undefined);

  const set = (k: keyof typeof form) => (e: Event) => setForm({ ...form, [k]: (e.target as HTMLInputElement | HTMLSelectElement).value });

  const save = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const text = (v: string) => (v.trim() === '' ? null : v.trim());
      const minimum = form.payout_minimum.trim();
      await adminApi.patch('/settings', {
        currency: form.currency,
        // empty: no minimum (null); a non-number ("abc") goes as is, so the service's 400 names the field
        payout_minimum: minimum === '' ? null : Number.isFinite(Number(minimum)) ? Number(minimum) : minimum,
        payout_schedule: form.payout_schedule,
        sepa_debtor_name: text(form.sepa_debtor_name),
        sepa_debtor_iban: text(form.sepa_debtor_iban),
        sepa_debtor_bic: text(form.sepa_debtor_bic),
      });
      // the form starts over from the reloaded settings: "saved" only once it shows what was saved
      await settings.reload();
      return 'Saved.';
    });
  };

  const disabled = !settings.data || busy;
  return (
    <form class="card form-grid" onSubmit={save} aria-label="Payouts">
      <h2>Payouts</h2>
      {settings.loading && !settings.data && <Loading what="Loading settings" />}
      <ErrorBox error={settings.error} onRetry={settings.reload} />
      <Field label="Program currency" hint="every amount is in it; locked once an order exists" error={refused.at('currency')}>
        <select name="currency" disabled={disabled} value={form.currency} onChange={set('currency')}>
          {currencyOptions(form.currency).map((c) => (
            <option key={c.code} value={c.code}>
              {c.code} – {c.name}
            </option>
          ))}
        </select>
      </Field>
      <Field
        label={`Payout minimum${saved ? ` (${saved})` : ''}`}
        hint={`the smallest withdrawal${digits === 0 ? ', a whole amount' : `, up to ${digits} decimals`}; empty: no minimum`}
        error={refused.at('payout_minimum')}
      >
        <input name="payout_minimum" disabled={disabled} inputMode={digits === 0 ? 'numeric' : 'decimal'} value={form.payout_minimum} onInput={set('payout_minimum')} />
      </Field>
      <Field
        label="Payout schedule"
        hint="manual: each withdrawal is requested by hand; monthly: every balance reaching the minimum, on the 1st (UTC) or when svc first runs after it; the month you switch it on has no run, the first is on the next 1st"
        error={refused.at('payout_schedule')}
      >
        <select name="payout_schedule" disabled={disabled} value={form.payout_schedule} onChange={set('payout_schedule')}>
          <option value="manual">manual</option>
          <option value="monthly">monthly, on the 1st</option>
        </select>
      </Field>
      <Field label="SEPA debtor name" hint="the account SEPA payout files pay from; empty: none" error={refused.at('sepa_debtor_name')}>
        <input name="sepa_debtor_name" disabled={disabled} maxLength={70} autocomplete="off" value={form.sepa_debtor_name} onInput={set('sepa_debtor_name')} />
      </Field>
      <Field label="SEPA debtor IBAN" hint="spaces allowed; empty: none" error={refused.at('sepa_debtor_iban')}>
        <input name="sepa_debtor_iban" disabled={disabled} autocomplete="off" spellcheck={false} value={form.sepa_debtor_iban} onInput={set('sepa_debtor_iban')} />
      </Field>
      <Field label="SEPA debtor BIC" hint="optional: 8 or 11 characters" error={refused.at('sepa_debtor_bic')}>
        <input name="sepa_debtor_bic" disabled={disabled} autocomplete="off" spellcheck={false} maxLength={11} value={form.sepa_debtor_bic} onInput={set('sepa_debtor_bic')} />
      </Field>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={disabled}>
          {busy ? 'Saving…' : 'Save payout settings'}
        </button>
      </div>
      <ErrorBox error={refused.rest} />
      {notice && <Notice>{notice}</Notice>}
    </form>
  );
}
