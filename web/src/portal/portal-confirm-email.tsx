import { useState } from 'preact/hooks';
import { type Answer, portalApi } from '../api';
import { type FormSentences, refusalOf } from '../refusal';
import { onLinkClick } from '../router';
import { SignInCard } from '../sign-in-card';
import { ErrorBox, Notice, SubmitButton, useSubmit } from '../ui';

const CONFIRM_SENTENCES: FormSentences = {
  fields: { token: 'This confirmation link does not work any more: it was used already, it is older than 24 hours, or the email address changed since. Sign in with your ref code and mail yourself a new one from Settings.' },
  codes: {
    email_taken: {
      field: 'token',
      sentence: 'Another affiliate already confirmed this email address, so it stays theirs. Sign in with your ref code; the team that runs this service can change your address.',
    },
  },
};

/**
 * The confirmation link's page: the token is in the fragment (#token=…). It confirms only when asked (a
 * button), so a mail scanner that opens links confirms nothing.
 */
export function ConfirmEmailPage() {
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
  const { busy, error, run } = useSubmit();
  const [confirmed, setConfirmed] = useState<Answer<'POST /portal/api/confirm-email'>>();
  const refused = refusalOf(error, CONFIRM_SENTENCES);
  const submit = () =>
    run(async () => {
      // the fragment as it is now: a link opened over this page changes only the fragment
      const current = new URLSearchParams(location.hash.slice(1)).get('token') ?? token;
      setConfirmed(await portalApi.post<Answer<'POST /portal/api/confirm-email'>>('/confirm-email', { token: current }));
      history.replaceState(null, '', '/portal/confirm-email');
    });
  return (
    <SignInCard title="Confirm your email address" label="Confirm your email address" onSubmit={submit}>
      {confirmed ? (
        <Notice>
          {confirmed.email} is confirmed for the affiliate account {confirmed.ref_code}: you can now sign in and reset your password with it, and notifications come to it.
        </Notice>
      ) : (
        <>
          {!token && <Notice kind="error">This page needs the link from your confirmation mail (it ends with #token=…).</Notice>}
          <p class="muted small">Confirm that this address is yours; until then, sign in with your ref code.</p>
          {refused.at('token') && <Notice kind="error">{refused.at('token')}</Notice>}
          <ErrorBox error={refused.rest} />
          <SubmitButton busy={busy} busyLabel="Confirming…" disabled={!token}>
            Confirm this address
          </SubmitButton>
        </>
      )}
      <p class="muted small">
        <a href="/portal" onClick={onLinkClick}>
          Go to the portal
        </a>
      </p>
    </SignInCard>
  );
}
