/** A signed-in affiliate of the portal mount: who the request acts for, and its CSRF token (set by the portal's auth service). */
export interface PortalSession {
  readonly refCode: string;
  readonly csrfToken: string;
  readonly idHash: string;
}
