import { useState } from 'preact/hooks';
import { type Answer, request } from '../api';
import { type FormSentences, refusalOf } from '../refusal';
import { navigate, onLinkClick } from '../router';
import { ErrorBox, Loading, useAsync, useSubmit } from '../ui';
import { loadMailbox, type PublicConfig, saveMailbox } from './mailbox-store';

type CreatedMailbox = Answer<'POST /mailboxes'>;

const SENTENCES: FormSentences = {
  fields: {
    name: 'Choose a name of letters, digits and . _ + -, starting with a letter or digit, or leave it empty for a random one.',
    domain: 'Choose one of the domains in the list.',
  },
  codes: { mailbox_exists: { field: 'name', sentence: 'This address is taken. Choose another name, or leave it empty for a random one.' } },
};

/** One click to a mailbox; `?ref=` from the promotion link goes along (the svc_ref cookie is sent anyway). */
export function LandingPage() {
  const config = useAsync(() => request<PublicConfig & { success: boolean }>('/public/config'), 'config');
  const existing = loadMailbox();
  const [name, setName] = useState('');
  const [domain, setDomain] = useState('');
  const { busy, error, run } = useSubmit();
  const ref = new URLSearchParams(location.search).get('ref') ?? undefined;
  const refused = refusalOf(error, SENTENCES);
  const nameError = refused.at('name') ?? refused.at('domain');

  const create = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const body: Record<string, string> = {};
      if (name.trim()) body.name = name.trim();
      if (domain) body.domain = domain;
      if (ref) body.ref = ref;
      const res = await request<CreatedMailbox>('/mailboxes', { method: 'POST', body });
      saveMailbox(res.mailbox);
      navigate('/inbox');
    });
  };

  const domains = config.data?.domains ?? [];
  return (
    <main class="landing">
      <section class="hero">
        <h1>A fresh mailbox in one click</h1>
        <p class="lead">
          Receive mail at a temporary address — sign-ups, receipts, confirmations — without giving away your own. Messages
          {config.data ? ` are kept for ${config.data.mailbox_ttl_hours} hours` : ' expire on their own'}.
        </p>
        <form class="card create-form" onSubmit={create} aria-label="Create a mailbox">
          <div class="address-input">
            <label class="sr-only" for="mb-name">
              Name (optional)
            </label>
            <input
              id="mb-name"
              name="name"
              placeholder="random name"
              autocomplete="off"
              spellcheck={false}
              maxLength={64}
              aria-invalid={nameError ? 'true' : undefined}
              aria-describedby={nameError ? 'mb-name-error' : undefined}
              value={name}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
            />
            <span class="at">@</span>
            <label class="sr-only" for="mb-domain">
              Domain
            </label>
            <select id="mb-domain" name="domain" value={domain} onChange={(e) => setDomain((e.target as HTMLSelectElement).value)} disabled={!config.data}>
              {domains.map((d, i) => (
                <option key={d} value={i === 0 ? '' : d}>
                  {d}
                </option>
              ))}
            </select>
          </div>
          {nameError && (
            <p class="field-error" id="mb-name-error" role="alert">
              {nameError}
            </p>
          )}
          <button type="submit" class="btn btn-primary btn-large" disabled={busy || !config.data}>
            {busy ? 'Creating…' : name.trim() ? 'Create this mailbox' : 'Create a random mailbox'}
          </button>
          {config.loading && !config.data && <Loading what="Loading domains" />}
          <ErrorBox error={config.error} onRetry={config.reload} />
          <ErrorBox error={refused.rest} />
        </form>
        {existing && (
          <p class="continue">
            You already have <strong>{existing.address}</strong>.{' '}
            <a href="/inbox" onClick={onLinkClick}>
              Open its inbox →
            </a>
          </p>
        )}
      </section>
    </main>
  );
}
