import { useState } from 'preact/hooks';
import { type Answer, ApiError, portalApi } from '../api';
import { type FormSentences, refusalOf, SAY } from '../refusal';
import { onLinkClick } from '../router';
import { type AsyncState, ErrorBox, Field, Loading, Notice, useAsync } from '../ui';

type SignedIn = Answer<'POST /portal/api/login'>;
type SignedUp = Answer<'POST /portal/api/signup', 201>;

/** Whether sign-up is open, reviewed or closed (the admin's setting, readable without a session). */
function useSignupMode(): AsyncState<Answer<'GET /portal/api/signup'>> {
  return useAsync(() => portalApi.get<Answer<'GET /portal/api/signup'>>('/signup'), 'signup-mode');
}

interface Props {
  onSignedIn: (csrf: string, refCode: string) => void;
}

const value = (e: Event) => (e.target as HTMLInputElement).value;

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

const SIGNUP_SENTENCES: FormSentences = {
  fields: {
    ref_code: SAY.refCode,
    name: 'Enter your name, at most 200 characters.',
    email: SAY.email,
    password: SAY.newPassword,
  },
  codes: { affiliate_exists: { field: 'ref_code', sentence: 'This ref code is taken. Choose another one.' } },
};

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
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [confirmed, setConfirmed] = useState<Answer<'POST /portal/api/confirm-email'>>();
  const refused = refusalOf(error, CONFIRM_SENTENCES);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      // the fragment as it is now: a link opened over this page changes only the fragment
      const current = new URLSearchParams(location.hash.slice(1)).get('token') ?? token;
      setConfirmed(await portalApi.post<Answer<'POST /portal/api/confirm-email'>>('/confirm-email', { token: current }));
      history.replaceState(null, '', '/portal/confirm-email');
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form class="card login-card" onSubmit={submit} aria-label="Confirm your email address">
        <h1>Confirm your email address</h1>
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
            <button type="submit" class="btn btn-primary" disabled={busy || !token}>
              {busy ? 'Confirming…' : 'Confirm this address'}
            </button>
          </>
        )}
        <p class="muted small">
          <a href="/portal" onClick={onLinkClick}>
            Go to the portal
          </a>
        </p>
      </form>
    </main>
  );
}

/** Sign in with the ref code and password. */
export function LoginPage({ onSignedIn }: Props) {
  const mode = useSignupMode();
  const signup = mode.data?.signup;
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const res = await portalApi.post<SignedIn>('/login', { login: login.trim(), password });
      onSignedIn(res.csrf_token, res.ref_code);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form class="card login-card" onSubmit={submit} aria-label="Sign in">
        <h1>svc affiliates</h1>
        <p class="muted small">Sign in to see your link, your figures and your balance.</p>
        <Field label="Ref code or email">
          <input name="login" autocomplete="username" required maxLength={320} value={login} onInput={(e) => setLogin(value(e))} />
        </Field>
        <Field label="Password">
          <input name="password" type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(value(e))} />
        </Field>
        <ErrorBox error={error} />
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
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
      </form>
    </main>
  );
}

/** Forgot password: the same answer whether or not the login exists; the mail carries the link. */
export function ForgotPasswordPage() {
  const [login, setLogin] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [sent, setSent] = useState<Answer<'POST /portal/api/forgot-password', 202>['mail']>();
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const res = await portalApi.post<Answer<'POST /portal/api/forgot-password', 202>>('/forgot-password', { login: login.trim() });
      setSent(res.mail);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form class="card login-card" onSubmit={submit} aria-label="Forgot password">
        <h1>Forgot your password?</h1>
        {sent === 'queued' && (
          <Notice>If this ref code or email belongs to an affiliate, a mail with a link to choose a new password is on its way. The link works once, for an hour.</Notice>
        )}
        {sent === 'not_configured' && <Notice kind="error">This service sends no mail (its operator has not configured it). Ask the team that runs it for a new invitation link.</Notice>}
        <p class="muted small">Enter your ref code or your email; we mail you a link to choose a new password.</p>
        <Field label="Ref code or email">
          <input name="login" autocomplete="username" required maxLength={320} value={login} onInput={(e) => setLogin(value(e))} />
        </Field>
        <ErrorBox error={error} />
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Sending…' : 'Mail me a link'}
        </button>
        <SignInLink />
      </form>
    </main>
  );
}

/** The invitation link's page, and the reset link's (`reset`): the token is in the fragment (#token=…), never sent to a server log. */
export function AcceptInvitePage({ onSignedIn, reset = false }: Props & { reset?: boolean }) {
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const mismatch = repeat !== '' && repeat !== password;
  const refused = refusalOf(error, reset ? RESET_SENTENCES : ACCEPT_SENTENCES);
  const submit = async (e: Event) => {
    e.preventDefault();
    if (mismatch) return;
    setBusy(true);
    setError(undefined);
    try {
      const res = await portalApi.post<SignedIn>(reset ? '/reset-password' : '/accept-invite', { token, password });
      history.replaceState(null, '', '/portal');
      onSignedIn(res.csrf_token, res.ref_code);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form class="card login-card" onSubmit={submit} aria-label={reset ? 'Choose a new password' : 'Accept invitation'}>
        <h1>{reset ? 'Choose a new password' : 'Welcome to svc affiliates'}</h1>
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
        <button type="submit" class="btn btn-primary" disabled={busy || !token || mismatch}>
          {busy ? 'Saving…' : 'Set password and sign in'}
        </button>
      </form>
    </main>
  );
}

/** Self sign-up, as the admin's setting allows: closed says so (and how to join) instead of showing the form. */
export function SignupPage({ onSignedIn }: Props) {
  const mode = useSignupMode();
  const [closedMeanwhile, setClosedMeanwhile] = useState(false);
  if (mode.data?.signup === 'closed' || closedMeanwhile) return <SignupClosed />;
  return (
    <main class="login">
      {mode.data ? (
        <SignupForm review={mode.data.signup === 'review'} onSignedIn={onSignedIn} onClosed={() => setClosedMeanwhile(true)} />
      ) : (
        <div class="card login-card">
          <h1>Become an affiliate</h1>
          {mode.error ? <ErrorBox error={mode.error} onRetry={mode.reload} /> : <Loading what="Checking whether sign-up is open" />}
        </div>
      )}
    </main>
  );
}

/** What a sign-up says about its email: a link was mailed to confirm it (or no mail goes at all). */
export function ConfirmationSent({ signedUp }: { signedUp: Pick<SignedUp, 'confirmation_mail' | 'affiliate'> }) {
  return signedUp.confirmation_mail === 'queued' ? (
    <p class="muted small">
      We mailed a confirmation link to {signedUp.affiliate.email}. Until you follow it, sign in with your ref code {signedUp.affiliate.ref_code}; then your email works too.
    </p>
  ) : (
    <p class="muted small">This service sends no mail, so your email cannot be confirmed yet: sign in with your ref code {signedUp.affiliate.ref_code}.</p>
  );
}

/** Under both sign-up views: the way to the sign-in form. */
function SignInLink() {
  return (
    <p class="muted small">
      Already an affiliate?{' '}
      <a href="/portal" onClick={onLinkClick}>
        Sign in
      </a>
    </p>
  );
}

function SignupClosed() {
  return (
    <main class="login">
      <section class="card login-card" aria-label="Sign-up is closed">
        <h1>Sign-up is closed</h1>
        <p>New affiliates join by invitation. Ask the team that runs this service for an invitation link; it lets you choose a password and start at once.</p>
        <SignInLink />
      </section>
    </main>
  );
}

function SignupForm({ review, onSignedIn, onClosed }: Props & { review: boolean; onClosed: () => void }) {
  const [form, setForm] = useState({ ref_code: '', name: '', email: '', password: '' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [pending, setPending] = useState<SignedUp>();
  const refused = refusalOf(error, SIGNUP_SENTENCES);
  const set = (k: keyof typeof form) => (e: Event) => setForm({ ...form, [k]: value(e) });
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const res = await portalApi.post<SignedUp>('/signup', { ...form, ref_code: form.ref_code.trim() });
      // signed in or waiting for approval: either way it first says where the confirmation link went
      setPending(res);
    } catch (err) {
      // the admin closed sign-up while the form was open
      if (err instanceof ApiError && err.code === 'signup_closed') onClosed();
      else setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card login-card" onSubmit={submit} aria-label="Sign up">
      <h1>Become an affiliate</h1>
      {pending ? (
        <>
          {pending.csrf_token ? (
            <Notice>Welcome! Your affiliate account {pending.affiliate.ref_code} is ready.</Notice>
          ) : (
            <Notice>Thanks! Your sign-up is waiting for approval. You can sign in with your ref code once it is approved.</Notice>
          )}
          <ConfirmationSent signedUp={pending} />
          {pending.csrf_token && (
            <button type="button" class="btn btn-primary" onClick={() => onSignedIn(pending.csrf_token as string, pending.affiliate.ref_code)}>
              Go to the portal
            </button>
          )}
        </>
      ) : (
        <>
          {review && <p class="muted small">New affiliates are approved by the team before they can sign in.</p>}
          <Field label="Ref code" hint="Your link will be /go/<ref code>: letters, digits, _ and -" error={refused.at('ref_code')}>
            <input name="ref_code" required maxLength={64} pattern="[A-Za-z0-9_\-]{1,64}" value={form.ref_code} onInput={set('ref_code')} />
          </Field>
          <Field label="Name" error={refused.at('name')}>
            <input name="name" autocomplete="name" required maxLength={200} value={form.name} onInput={set('name')} />
          </Field>
          <Field label="Email" error={refused.at('email')}>
            <input name="email" type="email" autocomplete="email" required maxLength={320} value={form.email} onInput={set('email')} />
          </Field>
          <Field label="Password" hint="At least 10 characters" error={refused.at('password')}>
            <input name="password" type="password" autocomplete="new-password" required minLength={10} maxLength={200} value={form.password} onInput={set('password')} />
          </Field>
          <ErrorBox error={refused.rest} />
          <button type="submit" class="btn btn-primary" disabled={busy}>
            {busy ? 'Signing up…' : 'Sign up'}
          </button>
        </>
      )}
      <SignInLink />
    </form>
  );
}
