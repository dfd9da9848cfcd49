import { useEffect, useState } from 'preact/hooks';
import { type Answer, portalApi, setPortalSession } from '../api';
import { AppShell } from '../app-shell';
import { navigate } from '../router';
import { Loading } from '../ui';
import { AcceptInvitePage, LoginPage, SignupPage } from './portal-auth';
import { CommissionsPage } from './portal-commissions';
import { DashboardPage } from './portal-dashboard';
import { SettingsPage } from './portal-settings';
import { WithdrawalsPage } from './portal-withdrawals';

const PAGES = [
  { path: '/portal', label: 'Dashboard', view: DashboardPage },
  { path: '/portal/commissions', label: 'Commissions', view: CommissionsPage },
  { path: '/portal/withdrawals', label: 'Withdrawals', view: WithdrawalsPage },
  { path: '/portal/settings', label: 'Settings', view: SettingsPage },
] as const;

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
    const page = PAGES.find((p) => p.path === path);
    document.title = `${page?.label ?? (path === '/portal/signup' ? 'Sign up' : path === '/portal/accept' ? 'Accept invitation' : 'Sign in')} · svc affiliates`;
  }, [path, session.kind]);

  const signedIn = (csrf: string, refCode: string) => {
    setPortalSession(csrf);
    setSession({ kind: 'in', refCode });
    if (!PAGES.some((p) => p.path === location.pathname)) navigate('/portal', true);
  };

  if (session.kind === 'checking') return <Loading what="Checking your session" />;
  if (session.kind === 'out') {
    if (path === '/portal/accept') return <AcceptInvitePage onSignedIn={signedIn} />;
    if (path === '/portal/signup') return <SignupPage onSignedIn={signedIn} />;
    return <LoginPage onSignedIn={signedIn} />;
  }

  const page = PAGES.find((p) => p.path === path) ?? PAGES[0];
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
