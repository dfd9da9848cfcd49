import { render } from 'preact';
import { AdminApp } from './admin/admin-app';
import { PortalApp } from './portal/portal-app';
import { InboxPage } from './public/inbox';
import { LandingPage } from './public/landing';
import { onLinkClick, usePath } from './router';
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
  if (path === '/admin' || path.startsWith('/admin/')) {
    return (
      <>
        <AdminApp path={path.replace(/\/$/, '') || '/admin'} />
        <ConfirmHost />
      </>
    );
  }
  if (path === '/portal' || path.startsWith('/portal/')) {
    return (
      <>
        <PortalApp path={path.replace(/\/$/, '') || '/portal'} />
        <ConfirmHost />
      </>
    );
  }
  return (
    <>
      <PublicHeader />
      {path.startsWith('/inbox') ? <InboxPage /> : <LandingPage />}
      <ConfirmHost />
    </>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
