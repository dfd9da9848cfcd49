import { z } from 'zod';
import { defineAdapter } from './adapter.js';
import { findNetworkClickIds } from './network-postback.repository.js';
import { CONTROL_CHARACTERS } from '../safe-url.js';

/**
 * Why a postback URL template is refused, or undefined when it is fine: it must be an absolute http(s)
 * URL and contain no control characters (they would end up in the request line of every postback).
 */
export function postbackTemplateProblem(template: string): string | undefined {
  // The same characters as every operator-given URL refuses (src/platform/safe-url.ts); a template is not a URL
  // until filled in, so its shape is checked by prefix.
  if (CONTROL_CHARACTERS.test(template)) return 'must not contain control characters';
  if (!/^https?:\/\/[^/]/.test(template)) return 'must be an absolute http(s) URL template';
  return undefined;
}

/** Picks one id from the stored JSON (the attribution feature stores e.g. `{"clickid":"…"}`): a string, the first of an array, or click_id/clickid/first value of an object. */
export function pickClickId(raw: string | null): string {
  if (!raw) return '';
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return raw;
  }
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return typeof v[0] === 'string' ? v[0] : '';
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    for (const k of ['click_id', 'clickid', 'clickId']) if (typeof o[k] === 'string') return o[k] as string;
    const first = Object.values(o).find((x) => typeof x === 'string');
    return typeof first === 'string' ? first : '';
  }
  return '';
}

/** The stored network ids as template values by parameter name, when they are a JSON object of strings. */
export function clickIdParams(raw: string | null): Record<string, string> {
  if (!raw) return {};
  try {
    const v: unknown = JSON.parse(raw);
    if (!v || typeof v !== 'object' || Array.isArray(v)) return {};
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).filter((e): e is [string, string] => typeof e[1] === 'string'));
  } catch {
    return {};
  }
}

/** Fills `{order_id}`, `{amount}`, `{commission}`, `{ref_code}`, `{click_id}`, `{event_id}` (URL-encoded). */
export function fillTemplate(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? encodeURIComponent(values[k] as string) : m));
}

/**
 * The network template (README.md#adapters): disabled until SVC_NETWORK_POSTBACK_URL is set; then every paid order
 * with a commission is reported to that conversion URL (GET) with the order id, amount and the network
 * click id stored at attribution. A non-2xx answer is a failed attempt and is retried.
 */
export const networkPostbackAdapter = defineAdapter({
  name: 'network-postback',
  description: 'Reports paid commissions to an affiliate network conversion URL (SVC_NETWORK_POSTBACK_URL)',
  events: ['order.paid'],
  env: {
    SVC_NETWORK_POSTBACK_URL: {
      schema: z
        .string()
        .max(2048)
        .superRefine((v, ctx) => {
          const problem = postbackTemplateProblem(v);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        })
        .optional(),
      description:
        'conversion URL template of the `network-postback` adapter, e.g. `https://network.example/postback?order={order_id}&amount={amount}&click={click_id}`; unset keeps the adapter disabled; an absolute http(s) URL without control characters',
    },
  },
  create: ({ SVC_NETWORK_POSTBACK_URL: template }, { db, http, timeoutMs }) => ({
    enabled: template !== undefined,
    async onEvent(_event, { order, commission }, meta) {
      // a commission held for fraud review (docs/api.md#fraud-review) is not reported: the network would pay it
      if (template === undefined || !commission || commission.hold !== null) return;
      const refCode = commission.ref_code;
      const clickIds = await findNetworkClickIds(db, order.email, refCode);
      const url = fillTemplate(template, {
        // Each stored network parameter by its own name too ({clickid}, {awc}, {irclickid}, …).
        ...clickIdParams(clickIds),
        order_id: order.id,
        amount: String(order.amount),
        commission: String(commission.commission),
        ref_code: refCode,
        click_id: pickClickId(clickIds),
        event_id: meta.id,
      });
      const res = await http.send({ method: 'GET', url, timeoutMs: timeoutMs() });
      if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode >= 300) {
        throw new Error(res.error ?? `network answered ${res.statusCode}`);
      }
    },
  }),
});
