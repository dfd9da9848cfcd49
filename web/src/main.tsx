import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import { AdminApp } from './admin/admin-app';
import { PortalApp } from './portal/portal-app';
import { InboxPage } from './public/inbox';
import { LandingPage } from './public/landing';
import { onLinkClick, usePath } from './router';
import { ADMIN_PAGES, findPage, PORTAL_ENTRY_PAGES, PORTAL_PAGES, PUBLIC_PAGES } from './routes';
import { ConfirmHost } from './ui';
import 'uplot/dist/uPlot.min.css';
import './styles.css';

function PublicHeader() {
  return (
    <header class="public-header">
      <a class="brand" href="/" onClick={onLinkClick}>
        ✉ svc
      </a>
      <span class="muted small">temporary mailboxes</span>
    </header>
  );
}

function App() {
  const path = usePath();
  if (findPage(ADMIN_PAGES, path)) {
    return (
      <>
        <AdminApp path={path} />
        <ConfirmHost />
      </>
    );
  }
  if (findPage(PORTAL_PAGES, path) || findPage(PORTAL_ENTRY_PAGES, path)) {
    return (
      <>
        <PortalApp path={path} />
        <ConfirmHost />
      </>
    );
  }
  if (findPage(PUBLIC_PAGES, path)) {
    return (
      <>
        <PublicHeader />
        {path === '/inbox' ? <InboxPage /> : <LandingPage />}
        <ConfirmHost />
      </>
    );
  }
  return <NotAPage />;
}

/**
 * A path the app has no page for, reached without a reload (the service never answers one with the
 * app): load it, so the service's own not-found page shows. Once per address: should the service answer
 * it with the app after all, a reload would come back here for ever; then a short note shows instead.
 */
function NotAPage() {
  const reloaded = sessionStorage.getItem(RELOADED) === location.href;
  useEffect(() => {
    if (reloaded) return;
    sessionStorage.setItem(RELOADED, location.href);
    location.replace(location.href);
  }, [reloaded]);
  if (!reloaded) return null;
  return (
    <>
      <PublicHeader />
      <main class="landing">
        <div class="card">
          <h1>Page not found</h1>
          <p>
            There is no page at this address. <a href="/">Go to the start page</a>
          </p>
        </div>
      </main>
    </>
  );
}

const RELOADED = 'svc:reloaded-for-not-found';

const root = document.getElementById('app');
if (root) render(<App />, root);
