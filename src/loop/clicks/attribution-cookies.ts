/** Cookie names of the attribution loop: /go sets them, mailbox creation reads them. */
export const REF_COOKIE = 'svc_ref';
/** Id of the click that carried affiliate-network click ids, so the referral can keep them. */
export const CLICK_COOKIE = 'svc_click';

/**
 * The Set-Cookie value for the attribution cookies (CONTRACT §4). Built by hand rather than through
 * @fastify/cookie because /go is the hot path; values are ref codes or numeric ids, which need no escaping.
 */
export function attributionCookie(name: string, value: string, lifetimeDays: number, secure: boolean): string {
  return `${name}=${value}; Path=/; Max-Age=${lifetimeDays * 86400}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
