import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { adminApi, type Answer, setCsrfToken, setUnauthorizedHandler } from '../api';
import { AppShell, type ShellPage } from '../app-shell';
import { navigate } from '../router';
import { ADMIN_PAGES, type AdminPath, findPage } from '../routes';
import { SignInCard } from '../sign-in-card';
import { ErrorBox, Field, Loading, SubmitButton, useSubmit } from '../ui';
import { AffiliatesPage } from './affiliates';
import { CommissionsPage } from './commissions';
import { DashboardPage } from './dashboard';
import { IntegrationsPage } from './integrations';
import { DomainsPage } from './domains';
import { MailBrowserPage } from './mail-browser';
import { OrdersPage } from './orders';
import { RulesPage } from './rules';
import { SettingsPage } from './settings';
import { WebhooksPage } from './webhooks';
import { OutboundMailPage } from './outbound-mail';
import { WithdrawalsPage } from './withdrawals';
import { PayoutsPage } from './payouts';
import { CASES_CHANGED, ReviewPage } from './review';

const VIEWS: Record<AdminPath, FunctionComponent> = {
  '/admin': DashboardPage,
  '/admin/affiliates': AffiliatesPage,
  '/admin/commissions': CommissionsPage,
  '/admin/review': ReviewPage,
  '/admin/withdrawals': WithdrawalsPage,
  '/admin/payouts': PayoutsPage,
  '/admin/orders': OrdersPage,
  '/admin/rules': RulesPage,
  '/admin/webhooks': WebhooksPage,
  '/admin/integrations': IntegrationsPage,
  '/admin/mail': OutboundMailPage,
  '/admin/domains': DomainsPage,
  '/admin/mailboxes': MailBrowserPage,
  '/admin/settings': SettingsPage,
};

const PAGES: readonly ShellPage[] = ADMIN_PAGES.map((p) => ({ ...p, view: VIEWS[p.path] }));
const HOME: ShellPage = { ...ADMIN_PAGES[0], view: VIEWS[ADMIN_PAGES[0].path] };

type SessionInfo = Answer<'GET /admin/api/session'>;

type SessionState = { kind: 'checking' } | { kind: 'out'; error?: unknown } | { kind: 'in'; username: string };

/** The admin area: the session cookie is HttpOnly, so a reload asks /admin/api/session who is logged in. */
export function AdminApp({ path }: { path: string }) {
  const [session, setSession] = useState<SessionState>({ kind: 'checking' });

  useEffect(() => {
    setUnauthorizedHandler(() => {
      setCsrfToken(undefined);
      setSession({ kind: 'out' });
    });
    adminApi.get<SessionInfo>('/session').then(
      (s) => {
        setCsrfToken(s.csrf_token);
        setSession({ kind: 'in', username: s.username });
      },
      (error: unknown) => setSession({ kind: 'out', error: (error as { status?: number }).status === 401 ? undefined : error }),
    );
    return () => setUnauthorizedHandler(undefined);
  }, []);

  useEffect(() => {
    const page = findPage(PAGES, path);
    document.title = `${page?.label ?? 'Admin'} · svc admin`;
  }, [path]);

  const openCases = useOpenCaseCount(session.kind === 'in', path);

  if (session.kind === 'checking') return <Loading what="Checking your session" />;
  if (session.kind === 'out') return <LoginForm error={session.error} onLogin={(username) => setSession({ kind: 'in', username })} />;

  const page = findPage(PAGES, path) ?? HOME;
  const logout = async () => {
    try {
      await adminApi.post('/logout');
    } finally {
      setCsrfToken(undefined);
      setSession({ kind: 'out' });
    }
  };

  return (
    <AppShell
      class="admin"
      brand="svc admin"
      home="/admin"
      navLabel="Admin sections"
      pages={PAGES}
      page={page}
      who={<span class="muted small">{session.username}</span>}
      signOutLabel="Log out"
      onSignOut={logout}
      counts={openCases > 0 ? { '/admin/review': { count: openCases, label: `${openCases} open ${openCases === 1 ? 'case' : 'cases'} to review` } } : {}}
    />
  );
}

/**
 * The open fraud cases' count for the navigation (docs/api.md#fraud-review): asked when signed in, on every page
 * change and when the Review page resolves a case; a failure shows no count rather than an error.
 */
function useOpenCaseCount(signedIn: boolean, path: string): number {
  const [count, setCount] = useState(0);
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const bump = () => setVersion((v) => v + 1);
    window.addEventListener(CASES_CHANGED, bump);
    return () => window.removeEventListener(CASES_CHANGED, bump);
  }, []);
  useEffect(() => {
    if (!signedIn) return;
    let live = true;
    adminApi.get<{ open: number }>('/fraud/open-count').then(
      (r) => live && setCount(r.open),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [signedIn, path, version]);
  return count;
}

function LoginForm({ error: initialError, onLogin }: { error?: unknown; onLogin: (username: string) => void }) {
  const [username, setUsername] = useState('admin');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useSubmit(initialError);
  const submit = () =>
    run(async () => {
      const res = await adminApi.post<{ csrf_token: string }>('/login', { username, password });
      setCsrfToken(res.csrf_token);
      onLogin(username);
      if (!location.pathname.startsWith('/admin')) navigate('/admin');
    });

  return (
    <SignInCard title="svc admin" label="Log in" onSubmit={submit}>
      <Field label="User name">
        <input name="username" autocomplete="username" required value={username} onInput={(e) => setUsername((e.target as HTMLInputElement).value)} />
      </Field>
      <Field label="Password">
        <input
          name="password"
          type="password"
          autocomplete="current-password"
          required
          autofocus
          value={password}
          onInput={(e) => setPassword((e.target as HTMLInputElement).value)}
        />
      </Field>
      <ErrorBox error={error} />
      <SubmitButton busy={busy} busyLabel="Logging in…">
        Log in
      </SubmitButton>
    </SignInCard>
  );
}
