import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { type Answer, portalApi, setPortalSession } from '../api';
import { AppShell, type ShellPage } from '../app-shell';
import { navigate } from '../router';
import { findPage, PORTAL_ENTRY_PAGES, PORTAL_PAGES, type PortalPath } from '../routes';
import { Loading } from '../ui';
import { ConfirmEmailPage } from './portal-confirm-email';
import { AcceptInvitePage, ForgotPasswordPage, LoginPage } from './portal-sign-in';
import { SignupPage } from './portal-signup';
import { CommissionsPage } from './portal-commissions';
import { DashboardPage } from './portal-dashboard';
import { SettingsPage } from './portal-settings';
import { WithdrawalsPage } from './portal-withdrawals';

const VIEWS: Record<PortalPath, FunctionComponent> = {
  '/portal': DashboardPage,
  '/portal/commissions': CommissionsPage,
  '/portal/withdrawals': WithdrawalsPage,
  '/portal/settings': SettingsPage,
};

const PAGES: readonly ShellPage[] = PORTAL_PAGES.map((p) => ({ ...p, view: VIEWS[p.path] }));
const HOME: ShellPage = { ...PORTAL_PAGES[0], view: VIEWS[PORTAL_PAGES[0].path] };

type SessionInfo = Answer<'GET /portal/api/session'>;
type SessionState = { kind: 'checking' } | { kind: 'out' } | { kind: 'in'; refCode: string };

/** The affiliate portal: its own session (cookie svc_portal, HttpOnly), asked for on every load. */
export function PortalApp({ path }: { path: string }) {
  const [session, setSession] = useState<SessionState>({ kind: 'checking' });

  useEffect(() => {
    const ended = () => {
      setPortalSession(undefined);
      setSession({ kind: 'out' });
    };
    portalApi.get<SessionInfo>('/session').then(
      (s) => {
        setPortalSession(s.csrf_token, ended);
        setSession({ kind: 'in', refCode: s.ref_code });
      },
      () => {
        setPortalSession(undefined, ended);
        setSession({ kind: 'out' });
      },
    );
  }, []);

  useEffect(() => {
    const page = session.kind === 'in' ? findPage(PAGES, path) : findPage(PORTAL_ENTRY_PAGES, path);
    document.title = `${page?.label ?? (session.kind === 'in' ? 'Dashboard' : 'Sign in')} · svc affiliates`;
  }, [path, session.kind]);

  const signedIn = (csrf: string, refCode: string) => {
    setPortalSession(csrf);
    setSession({ kind: 'in', refCode });
    if (!PAGES.some((p) => p.path === location.pathname)) navigate('/portal', true);
  };

  // the link mailed to an address works signed in or not (it may be opened in another browser)
  if (path === '/portal/confirm-email') return <ConfirmEmailPage />;
  if (session.kind === 'checking') return <Loading what="Checking your session" />;
  if (session.kind === 'out') {
    if (path === '/portal/accept') return <AcceptInvitePage onSignedIn={signedIn} />;
    if (path === '/portal/reset') return <AcceptInvitePage onSignedIn={signedIn} reset />;
    if (path === '/portal/forgot') return <ForgotPasswordPage />;
    if (path === '/portal/signup') return <SignupPage onSignedIn={signedIn} />;
    return <LoginPage onSignedIn={signedIn} />;
  }

  // a signed-in affiliate on the sign-up or invitation page gets the dashboard
  const page = findPage(PAGES, path) ?? HOME;
  const logout = async () => {
    try {
      await portalApi.post('/logout');
    } finally {
      setPortalSession(undefined);
      setSession({ kind: 'out' });
      navigate('/portal', true);
    }
  };

  return (
    <AppShell
      class="admin portal"
      brand="svc affiliates"
      home="/portal"
      navLabel="Portal sections"
      pages={PAGES}
      page={page}
      who={<code class="small">{session.refCode}</code>}
      signOutLabel="Sign out"
      onSignOut={logout}
    />
  );
}
