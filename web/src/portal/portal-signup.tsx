import { useState } from 'preact/hooks';
import { type Answer, ApiError, portalApi } from '../api';
import { type FormSentences, refusalOf, SAY } from '../refusal';
import { SignInCard } from '../sign-in-card';
import { ErrorBox, Field, Loading, Notice, SubmitButton, useSubmit } from '../ui';
import { type SignInProps, SignInLink, useSignupMode, value } from './portal-sign-in';

type SignedUp = Answer<'POST /portal/api/signup', 201>;

const SIGNUP_SENTENCES: FormSentences = {
  fields: {
    ref_code: SAY.refCode,
    name: 'Enter your name, at most 200 characters.',
    email: SAY.email,
    password: SAY.newPassword,
  },
  codes: { affiliate_exists: { field: 'ref_code', sentence: 'This ref code is taken. Choose another one.' } },
};

/** Self sign-up, as the admin's setting allows: closed says so (and how to join) instead of showing the form. */
export function SignupPage({ onSignedIn }: SignInProps) {
  const mode = useSignupMode();
  const [closedMeanwhile, setClosedMeanwhile] = useState(false);
  if (mode.data?.signup === 'closed' || closedMeanwhile) return <SignupClosed />;
  if (mode.data) return <SignupForm review={mode.data.signup === 'review'} onSignedIn={onSignedIn} onClosed={() => setClosedMeanwhile(true)} />;
  return (
    <SignInCard title="Become an affiliate">
      {mode.error ? <ErrorBox error={mode.error} onRetry={mode.reload} /> : <Loading what="Checking whether sign-up is open" />}
    </SignInCard>
  );
}

/** What a sign-up says about its email: a link was mailed to confirm it (or no mail goes at all). */
function ConfirmationSent({ signedUp }: { signedUp: Pick<SignedUp, 'confirmation_mail' | 'affiliate'> }) {
  return signedUp.confirmation_mail === 'queued' ? (
    <p class="muted small">
      We mailed a confirmation link to {signedUp.affiliate.email}. Until you follow it, sign in with your ref code {signedUp.affiliate.ref_code}; then your email works too.
    </p>
  ) : (
    <p class="muted small">This service sends no mail, so your email cannot be confirmed yet: sign in with your ref code {signedUp.affiliate.ref_code}.</p>
  );
}

function SignupClosed() {
  return (
    <SignInCard title="Sign-up is closed" label="Sign-up is closed">
      <p>New affiliates join by invitation. Ask the team that runs this service for an invitation link; it lets you choose a password and start at once.</p>
      <SignInLink />
    </SignInCard>
  );
}

function SignupForm({ review, onSignedIn, onClosed }: SignInProps & { review: boolean; onClosed: () => void }) {
  const [form, setForm] = useState({ ref_code: '', name: '', email: '', password: '' });
  const { busy, error, run } = useSubmit();
  const [pending, setPending] = useState<SignedUp>();
  const refused = refusalOf(error, SIGNUP_SENTENCES);
  const set = (k: keyof typeof form) => (e: Event) => setForm({ ...form, [k]: value(e) });
  const submit = () =>
    run(async () => {
      try {
        // signed in or waiting for approval: either way it first says where the confirmation link went
        setPending(await portalApi.post<SignedUp>('/signup', { ...form, ref_code: form.ref_code.trim() }));
      } catch (err) {
        // the admin closed sign-up while the form was open
        if (err instanceof ApiError && err.code === 'signup_closed') onClosed();
        else throw err;
      }
    });
  return (
    <SignInCard title="Become an affiliate" label="Sign up" onSubmit={submit}>
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
          <SubmitButton busy={busy} busyLabel="Signing up…">
            Sign up
          </SubmitButton>
        </>
      )}
      <SignInLink />
    </SignInCard>
  );
}
