/** Who a portal request acts for: set by the session hook, and the only source of the affiliate's ref_code. */
export interface PortalSession {
  readonly refCode: string;
  readonly csrfToken: string;
  readonly idHash: string;
}

export interface SignedIn {
  readonly token: string;
  readonly session: PortalSession;
}
