import { useState } from 'preact/hooks';
import { type Answer, portalApi } from '../api';
import { type FormSentences, refusalOf, SAY } from '../refusal';
import { onLinkClick } from '../router';
import { SignInCard } from '../sign-in-card';
import { type AsyncState, ErrorBox, Field, Notice, SubmitButton, useAsync, useSubmit } from '../ui';

type SignedIn = Answer<'POST /portal/api/login'>;

/** Whether sign-up is open, reviewed or closed (the admin's setting, readable without a session). */
export function useSignupMode(): AsyncState<Answer<'GET /portal/api/signup'>> {
  return useAsync(() => portalApi.get<Answer<'GET /portal/api/signup'>>('/signup'), 'signup-mode');
}

export interface SignInProps {
  onSignedIn: (csrf: string, refCode: string) => void;
}

export const value = (e: Event) => (e.target as HTMLInputElement).value;

const ACCEPT_SENTENCES: FormSentences = {
  fields: {
    token: 'This invitation link does not work any more: it was used already, or it is older than 72 hours. Ask for a new one.',
    password: SAY.newPassword,
  },
};

const RESET_SENTENCES: FormSentences = {
  fields: {
    token: 'This reset link does not work any more: it was used already, it is older than an hour, or the password changed since. Ask for a new one.',
    password: SAY.newPassword,
  },
};

/** Sign in with the ref code and password. */
export function LoginPage({ onSignedIn }: SignInProps) {
  const mode = useSignupMode();
  const signup = mode.data?.signup;
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useSubmit();
  const submit = () =>
    run(async () => {
      const res = await portalApi.post<SignedIn>('/login', { login: login.trim(), password });
      onSignedIn(res.csrf_token, res.ref_code);
    });
  return (
    <SignInCard title="svc affiliates" label="Sign in" onSubmit={submit}>
      <p class="muted small">Sign in to see your link, your figures and your balance.</p>
      <Field label="Ref code or email">
        <input name="login" autocomplete="username" required maxLength={320} value={login} onInput={(e) => setLogin(value(e))} />
      </Field>
      <Field label="Password">
        <input name="password" type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(value(e))} />
      </Field>
      <ErrorBox error={error} />
      <SubmitButton busy={busy} busyLabel="Signing in…">
        Sign in
      </SubmitButton>
      <p class="muted small">
        <a href="/portal/forgot" onClick={onLinkClick}>
          Forgot your password?
        </a>
      </p>
      {/* once the service has said whether sign-up is open: sign-up is offered only then, never a link to a closed door */}
      {(mode.data || mode.error) && (
        <p class="muted small">
          Invited? Open the link you were sent.
          {signup !== undefined && signup !== 'closed' && (
            <>
              {' '}
              New here?{' '}
              <a href="/portal/signup" onClick={onLinkClick}>
                Sign up
              </a>
            </>
          )}
        </p>
      )}
    </SignInCard>
  );
}

/** Forgot password: the same answer whether or not the login exists; the mail carries the link. */
export function ForgotPasswordPage() {
  const [login, setLogin] = useState('');
  const { busy, error, run } = useSubmit();
  const [sent, setSent] = useState<Answer<'POST /portal/api/forgot-password', 202>['mail']>();
  const submit = () =>
    run(async () => {
      const res = await portalApi.post<Answer<'POST /portal/api/forgot-password', 202>>('/forgot-password', { login: login.trim() });
      setSent(res.mail);
    });
  return (
    <SignInCard title="Forgot your password?" label="Forgot password" onSubmit={submit}>
      {sent === 'queued' && (
        <Notice>If this ref code or email belongs to an affiliate, a mail with a link to choose a new password is on its way. The link works once, for an hour.</Notice>
      )}
      {sent === 'not_configured' && <Notice kind="error">This service sends no mail (its operator has not configured it). Ask the team that runs it for a new invitation link.</Notice>}
      <p class="muted small">Enter your ref code or your email; we mail you a link to choose a new password.</p>
      <Field label="Ref code or email">
        <input name="login" autocomplete="username" required maxLength={320} value={login} onInput={(e) => setLogin(value(e))} />
      </Field>
      <ErrorBox error={error} />
      <SubmitButton busy={busy} busyLabel="Sending…">
        Mail me a link
      </SubmitButton>
      <SignInLink />
    </SignInCard>
  );
}

/** The invitation link's page, and the reset link's (`reset`): the token is in the fragment (#token=…), never sent to a server log. */
export function AcceptInvitePage({ onSignedIn, reset = false }: SignInProps & { reset?: boolean }) {
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const { busy, error, run } = useSubmit();
  const mismatch = repeat !== '' && repeat !== password;
  const refused = refusalOf(error, reset ? RESET_SENTENCES : ACCEPT_SENTENCES);
  const submit = () => {
    if (mismatch) return;
    return run(async () => {
      const res = await portalApi.post<SignedIn>(reset ? '/reset-password' : '/accept-invite', { token, password });
      history.replaceState(null, '', '/portal');
      onSignedIn(res.csrf_token, res.ref_code);
    });
  };
  return (
    <SignInCard title={reset ? 'Choose a new password' : 'Welcome to svc affiliates'} label={reset ? 'Choose a new password' : 'Accept invitation'} onSubmit={submit}>
      {!token && <Notice kind="error">This page needs the link from your {reset ? 'reset mail' : 'invitation'} (it ends with #token=…).</Notice>}
      <p class="muted small">
        {reset ? 'Choose a new password (10 to 200 characters); every other session of your account ends.' : 'Choose a password (10 to 200 characters) to finish your invitation.'}
      </p>
      {refused.at('token') && <Notice kind="error">{refused.at('token')}</Notice>}
      <Field label="New password" hint="At least 10 characters" error={refused.at('password')}>
        <input name="password" type="password" autocomplete="new-password" required minLength={10} maxLength={200} value={password} onInput={(e) => setPassword(value(e))} />
      </Field>
      <Field label="Repeat the password" error={mismatch ? 'The two passwords differ.' : undefined}>
        <input name="repeat" type="password" autocomplete="new-password" required value={repeat} onInput={(e) => setRepeat(value(e))} />
      </Field>
      <ErrorBox error={refused.rest} />
      <SubmitButton busy={busy} busyLabel="Saving…" disabled={!token || mismatch}>
        Set password and sign in
      </SubmitButton>
    </SignInCard>
  );
}

/** Under the sign-up views and the forgotten-password form: the way to the sign-in form. */
export function SignInLink() {
  return (
    <p class="muted small">
      Already an affiliate?{' '}
      <a href="/portal" onClick={onLinkClick}>
        Sign in
      </a>
    </p>
  );
}
