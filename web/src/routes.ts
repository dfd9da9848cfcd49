/**
 * Every page of the web app, in one table. The app renders from it (main.tsx, the admin and portal
 * frames), the service answers exactly these paths with the app (src/platform/web/web.routes.ts: the Chromium
 * sweep fails when the two lists differ), and the sweep visits each page (test/browser/sweep.test.ts).
 * A path that is not here is not a page: the service answers it with its not-found page.
 *
 * Plain data, no components: the tests import it.
 */

export interface PageRoute {
  readonly path: string;
  /** Its name in the navigation and the window title (and the heading of the admin and portal pages). */
  readonly label: string;
}

/** The start page and the mailbox; no session. */
export const PUBLIC_PAGES = [
  { path: '/', label: 'A fresh mailbox in one click' },
  { path: '/inbox', label: 'Inbox' },
] as const satisfies readonly PageRoute[];

/** The admin area; each shows the login form until an admin signs in. */
export const ADMIN_PAGES = [
  { path: '/admin', label: 'Dashboard' },
  { path: '/admin/affiliates', label: 'Affiliates' },
  { path: '/admin/commissions', label: 'Commissions' },
  { path: '/admin/review', label: 'Review' },
  { path: '/admin/withdrawals', label: 'Withdrawals' },
  { path: '/admin/payouts', label: 'Payouts' },
  { path: '/admin/orders', label: 'Orders' },
  { path: '/admin/rules', label: 'Rules' },
  { path: '/admin/webhooks', label: 'Webhooks' },
  { path: '/admin/integrations', label: 'Integrations' },
  { path: '/admin/mail', label: 'Mail' },
  { path: '/admin/domains', label: 'Domains' },
  { path: '/admin/mailboxes', label: 'Mail browser' },
  { path: '/admin/settings', label: 'Settings' },
] as const satisfies readonly PageRoute[];

/** The affiliate portal's signed-in pages; each shows the sign-in form until an affiliate signs in. */
export const PORTAL_PAGES = [
  { path: '/portal', label: 'Dashboard' },
  { path: '/portal/commissions', label: 'Commissions' },
  { path: '/portal/withdrawals', label: 'Withdrawals' },
  { path: '/portal/settings', label: 'Settings' },
] as const satisfies readonly PageRoute[];

/** The portal's pages for people not signed in (a signed-in affiliate gets the dashboard). */
export const PORTAL_ENTRY_PAGES = [
  { path: '/portal/signup', label: 'Sign up' },
  { path: '/portal/accept', label: 'Accept invitation' },
  { path: '/portal/forgot', label: 'Forgot password' },
  { path: '/portal/reset', label: 'Choose a new password' },
  { path: '/portal/confirm-email', label: 'Confirm your email address' },
] as const satisfies readonly PageRoute[];

export type AdminPath = (typeof ADMIN_PAGES)[number]['path'];
export type PortalPath = (typeof PORTAL_PAGES)[number]['path'];

/** Every path the app has a page for. */
export const APP_PATHS: readonly string[] = [...PUBLIC_PAGES, ...ADMIN_PAGES, ...PORTAL_PAGES, ...PORTAL_ENTRY_PAGES].map((p) => p.path);

export function findPage<P extends PageRoute>(pages: readonly P[], path: string): P | undefined {
  return pages.find((p) => p.path === path);
}
