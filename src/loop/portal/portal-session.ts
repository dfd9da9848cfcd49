import type { PortalSession } from '../../platform/http/portal-session.js';

/** Who a portal request acts for: set by the session hook, and the only source of the affiliate's ref_code (the shape is the platform's: the hook that sets it is there). */
export type { PortalSession };

export interface SignedIn {
  readonly token: string;
  readonly session: PortalSession;
}
