import type { LightMyRequestResponse } from 'fastify';
import type { TestService } from './service.js';

export const PORTAL_PASSWORD = 'portal-password-1';

export interface PortalClient {
  readonly refCode: string;
  readonly cookie: string;
  readonly csrf: string;
  /** Calls any path with this affiliate's portal cookie and CSRF token. */
  call(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
}

/** The `name=value` of a Set-Cookie header named `name`. */
export function cookieOf(res: LightMyRequestResponse, name: string): string | undefined {
  const raw = res.headers['set-cookie'];
  const all = Array.isArray(raw) ? raw : raw ? [raw] : [];
  return all.find((c) => c.startsWith(`${name}=`));
}

export function portalClient(t: TestService, refCode: string, res: LightMyRequestResponse): PortalClient {
  if (res.statusCode !== 200 && res.statusCode !== 201) throw new Error(`portal sign-in failed: ${res.statusCode} ${res.body}`);
  const cookie = (cookieOf(res, 'svc_portal') ?? '').split(';')[0] as string;
  const csrf = (res.json() as { csrf_token: string }).csrf_token;
  return {
    refCode,
    cookie,
    csrf,
    call: (method, url, body, headers = {}) => t.request(method, url, body, { cookie, 'x-csrf-token': csrf, ...headers }),
  };
}

/** Invites an existing affiliate (as the admin), returns the token of the invitation. */
export async function inviteToken(t: TestService, refCode: string): Promise<string> {
  const admin = await t.admin();
  const res = await admin.call('POST', `/admin/api/affiliates/${refCode}/invite`);
  if (res.statusCode !== 200) throw new Error(`invite ${refCode}: ${res.statusCode} ${res.body}`);
  return (res.json().invite_url as string).split('#token=')[1] as string;
}

/** Invites the affiliate, accepts with PORTAL_PASSWORD and answers the signed-in client. */
export async function portalSignIn(t: TestService, refCode: string, password = PORTAL_PASSWORD): Promise<PortalClient> {
  const token = await inviteToken(t, refCode);
  return portalClient(t, refCode, await t.request('POST', '/portal/api/accept-invite', { token, password }));
}

export function portalLogin(t: TestService, refCode: string, password: string, remoteAddress = '127.0.0.1'): Promise<LightMyRequestResponse> {
  return t.service.app.inject({ method: 'POST', url: '/portal/api/login', payload: { ref_code: refCode, password }, remoteAddress });
}
