/** Calls to the service's own JSON API; every failure becomes an ApiError with words a person can read. */
import type { Operations } from './api-types';

export interface FieldIssue {
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  /** The fields a 400 names (`details: [{field, message}]`, docs/api.md#conventions), or none. */
  fieldIssues(): FieldIssue[] {
    if (!Array.isArray(this.details)) return [];
    return (this.details as unknown[]).filter(
      (d): d is FieldIssue => !!d && typeof d === 'object' && typeof (d as FieldIssue).field === 'string' && typeof (d as FieldIssue).message === 'string',
    );
  }

  /**
   * In words for a person (README.md#web). A refused field becomes a sentence naming it ("Amount must be a
   * number greater than 0."), never "Request validation failed — amount: …"; forms say it better at the
   * field itself (refusal.ts). Other refusals: the message plus what the details add.
   */
  describe(): string {
    const issues = this.fieldIssues();
    if (issues.length > 0) return issues.map(issueSentence).join(' ');
    const parts = [this.message];
    const d = this.details;
    if (d && typeof d === 'object' && !Array.isArray(d)) {
      const rec = d as Record<string, unknown>;
      if (typeof rec.available === 'number') parts.push(`available balance: ${rec.available.toFixed(2)}`);
      if (typeof rec.refundable === 'number') parts.push(`left to refund: ${rec.refundable.toFixed(2)}`);
      if (typeof rec.from === 'string' && typeof rec.to === 'string') parts.push(`it is ${rec.from}, not ${rec.to}`);
      else if (typeof rec.status === 'string') parts.push(`current status: ${rec.status}`);
    }
    return parts.join(' — ');
  }
}

/** "webhook_url" → "Webhook URL", "cookie_lifetime_days" → "Cookie lifetime days", "(body)" → "The form". */
export function fieldName(field: string): string {
  if (field === '(body)' || field === '') return 'The form';
  const words = field.replace(/[._,]+/g, ' ').trim().replace(/\burl\b/gi, 'URL').replace(/\bid\b/gi, 'ID');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** One refused field as a sentence: "Amount must be a number greater than 0." */
export function issueSentence(issue: FieldIssue): string {
  const message = issue.message.trim().replace(/[.\s]+$/, '');
  return `${fieldName(issue.field)} ${message}.`;
}

export function errorText(err: unknown): string {
  if (err instanceof ApiError) return err.describe();
  if (err instanceof TypeError) return 'The service cannot be reached. Check your connection and try again.';
  return err instanceof Error ? err.message : String(err);
}

let csrfToken: string | undefined;
let onUnauthorized: (() => void) | undefined;

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

// The affiliate portal's session is its own (cookie svc_portal): its own CSRF token and sign-out handler.
let portalCsrfToken: string | undefined;
let onPortalUnauthorized: (() => void) | undefined;

export function setPortalSession(token: string | undefined, onEnded?: () => void): void {
  portalCsrfToken = token;
  if (onEnded) onPortalUnauthorized = onEnded;
}

/** The admin UI goes back to the login form whenever the session has ended. */
export function setUnauthorizedHandler(fn: (() => void) | undefined): void {
  onUnauthorized = fn;
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export async function request<T>(url: string, opts: RequestOptions = {}): Promise<T> {
  const method = opts.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (url.startsWith('/admin/api/') && method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  if (url.startsWith('/portal/api/') && method !== 'GET' && portalCsrfToken) headers['x-csrf-token'] = portalCsrfToken;
  const res = await fetch(url, {
    method,
    headers,
    body: opts.body === undefined ? undefined : JSON.stringify(opts.body),
    credentials: 'same-origin',
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    throw new ApiError(res.status, 'bad_response', `The service answered ${res.status} ${res.statusText} without JSON.`);
  }
  if (!res.ok) {
    const error = (json as { error?: { code?: string; message?: string; details?: unknown } }).error ?? {};
    if (res.status === 401 && url.startsWith('/admin/api/') && !url.endsWith('/login')) onUnauthorized?.();
    if (res.status === 401 && url.startsWith('/portal/api/') && !/\/(login|accept-invite|signup|session)$/.test(url)) onPortalUnauthorized?.();
    throw new ApiError(res.status, error.code ?? 'error', error.message ?? `Request failed (${res.status})`, error.details);
  }
  return json as T;
}

export const adminApi = {
  get: <T>(path: string) => request<T>(`/admin/api${path}`),
  post: <T>(path: string, body: unknown = {}) => request<T>(`/admin/api${path}`, { method: 'POST', body }),
  patch: <T>(path: string, body: unknown) => request<T>(`/admin/api${path}`, { method: 'PATCH', body }),
  del: <T>(path: string) => request<T>(`/admin/api${path}`, { method: 'DELETE' }),
};

export const portalApi = {
  get: <T>(path: string) => request<T>(`/portal/api${path}`),
  post: <T>(path: string, body: unknown = {}, headers?: Record<string, string>) => request<T>(`/portal/api${path}`, { method: 'POST', body, headers }),
  patch: <T>(path: string, body: unknown) => request<T>(`/portal/api${path}`, { method: 'PATCH', body }),
};

/** Query string from the non-empty values only. */
export function query(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/**
 * The service's own types, generated from /openapi.json (api-types.ts, `npm run gen:web-types`): never
 * copy a server type by hand. The admin UI calls the /api operations under /admin/api; they are keyed
 * by their /api path.
 */
export type { ErrorBody, Operations } from './api-types';

/** The JSON answer of an operation (`'GET /api/orders'`) for a status (200, or the first 2xx it has). */
export type Answer<K extends keyof Operations, S extends keyof Operations[K]['responses'] = SuccessStatus<K>> = Operations[K]['responses'][S];

type SuccessStatus<K extends keyof Operations> = Extract<keyof Operations[K]['responses'], 200 | 201>;

/** The item of a list operation. */
export type ItemOf<K extends keyof Operations> = Answer<K> extends { items: (infer T)[] } ? T : never;

/** The JSON body an operation takes. */
export type BodyOf<K extends keyof Operations> = Operations[K]['body'];
