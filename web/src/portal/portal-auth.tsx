import { useState } from 'preact/hooks';
import { type Answer, portalApi } from '../api';
import { onLinkClick } from '../router';
import { ErrorBox, Field, Notice } from '../ui';

type SignedIn = Answer<'POST /portal/api/login'>;
type SignedUp = Answer<'POST /portal/api/signup', 201>;

interface Props {
  onSignedIn: (csrf: string, refCode: string) => void;
}

const value = (e: Event) => (e.target as HTMLInputElement).value;

/** Sign in with the ref code and password. */
export function LoginPage({ onSignedIn }: Props) {
  const [refCode, setRefCode] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const res = await portalApi.post<SignedIn>('/login', { ref_code: refCode.trim(), password });
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
        <Field label="Ref code">
          <input name="ref_code" autocomplete="username" required maxLength={64} value={refCode} onInput={(e) => setRefCode(value(e))} />
        </Field>
        <Field label="Password">
          <input name="password" type="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(value(e))} />
        </Field>
        <ErrorBox error={error} />
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
        <p class="muted small">
          Invited? Open the link you were sent. New here?{' '}
          <a href="/portal/signup" onClick={onLinkClick}>
            Sign up
          </a>
        </p>
      </form>
    </main>
  );
}

/** The invitation link's page: the token is in the fragment (#token=…), never sent to a server log. */
export function AcceptInvitePage({ onSignedIn }: Props) {
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const mismatch = repeat !== '' && repeat !== password;
  const submit = async (e: Event) => {
    e.preventDefault();
    if (mismatch) return;
    setBusy(true);
    setError(undefined);
    try {
      const res = await portalApi.post<SignedIn>('/accept-invite', { token, password });
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
      <form class="card login-card" onSubmit={submit} aria-label="Accept invitation">
        <h1>Welcome to svc affiliates</h1>
        {!token && <Notice kind="error">This page needs the link from your invitation (it ends with #token=…).</Notice>}
        <p class="muted small">Choose a password (10 to 200 characters) to finish your invitation.</p>
        <Field label="New password" hint="At least 10 characters">
          <input name="password" type="password" autocomplete="new-password" required minLength={10} maxLength={200} value={password} onInput={(e) => setPassword(value(e))} />
        </Field>
        <Field label="Repeat the password">
          <input name="repeat" type="password" autocomplete="new-password" required value={repeat} onInput={(e) => setRepeat(value(e))} />
        </Field>
        {mismatch && <Notice kind="error">The two passwords differ.</Notice>}
        <ErrorBox error={error} />
        <button type="submit" class="btn btn-primary" disabled={busy || !token || mismatch}>
          {busy ? 'Saving…' : 'Set password and sign in'}
        </button>
      </form>
    </main>
  );
}

/** Self sign-up; the service says whether it is open, reviewed or closed. */
export function SignupPage({ onSignedIn }: Props) {
  const [form, setForm] = useState({ ref_code: '', name: '', email: '', password: '' });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [pending, setPending] = useState(false);
  const set = (k: keyof typeof form) => (e: Event) => setForm({ ...form, [k]: value(e) });
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const res = await portalApi.post<SignedUp>('/signup', { ...form, ref_code: form.ref_code.trim() });
      if (res.csrf_token) onSignedIn(res.csrf_token, res.affiliate.ref_code);
      else setPending(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="login">
      <form class="card login-card" onSubmit={submit} aria-label="Sign up">
        <h1>Become an affiliate</h1>
        {pending ? (
          <Notice>Thanks! Your sign-up is waiting for approval. You can sign in once it is approved.</Notice>
        ) : (
          <>
            <Field label="Ref code" hint="Your link will be /go/<ref code>: letters, digits, _ and -">
              <input name="ref_code" required maxLength={64} pattern="[A-Za-z0-9_\-]{1,64}" value={form.ref_code} onInput={set('ref_code')} />
            </Field>
            <Field label="Name">
              <input name="name" autocomplete="name" required maxLength={200} value={form.name} onInput={set('name')} />
            </Field>
            <Field label="Email">
              <input name="email" type="email" autocomplete="email" required maxLength={320} value={form.email} onInput={set('email')} />
            </Field>
            <Field label="Password" hint="At least 10 characters">
              <input name="password" type="password" autocomplete="new-password" required minLength={10} maxLength={200} value={form.password} onInput={set('password')} />
            </Field>
            <ErrorBox error={error} />
            <button type="submit" class="btn btn-primary" disabled={busy}>
              {busy ? 'Signing up…' : 'Sign up'}
            </button>
          </>
        )}
        <p class="muted small">
          Already an affiliate?{' '}
          <a href="/portal" onClick={onLinkClick}>
            Sign in
          </a>
        </p>
      </form>
    </main>
  );
}
