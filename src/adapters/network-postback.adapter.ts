import type { AdapterFactory } from './adapter.js';
import { findNetworkClickIds } from './network-postback.repository.js';

interface OrderPaidData {
  order?: { id?: string; email?: string; amount?: number };
  commission?: { commission?: number; ref_code?: string } | null;
  ref_code?: string | null;
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
 * The network template (seed §6): disabled until SVC_NETWORK_POSTBACK_URL is set; then every paid order
 * with a commission is reported to that conversion URL (GET) with the order id, amount and the network
 * click id stored at attribution. A non-2xx answer is a failed attempt and is retried.
 */
export const networkPostbackAdapter: AdapterFactory = ({ config, db, http, timeoutMs }) => {
  const template = config.networkPostbackUrl;
  return {
    name: 'network-postback',
    description: 'Reports paid commissions to an affiliate network conversion URL (SVC_NETWORK_POSTBACK_URL)',
    enabled: !!template,
    async onEvent(event, data, meta) {
      if (!template || event !== 'order.paid') return;
      const d = data as OrderPaidData;
      if (!d.commission || !d.order?.id) return;
      const refCode = d.commission.ref_code ?? d.ref_code ?? null;
      const clickIds = d.order.email ? await findNetworkClickIds(db, d.order.email, refCode) : null;
      const url = fillTemplate(template, {
        // Each stored network parameter by its own name too ({clickid}, {awc}, {irclickid}, …).
        ...clickIdParams(clickIds),
        order_id: d.order.id,
        amount: String(d.order.amount ?? ''),
        commission: String(d.commission.commission ?? ''),
        ref_code: refCode ?? '',
        click_id: pickClickId(clickIds),
        event_id: meta.id,
      });
      const res = await http.send({ method: 'GET', url, timeoutMs: timeoutMs() });
      if (res.statusCode === undefined || res.statusCode < 200 || res.statusCode >= 300) {
        throw new Error(res.error ?? `network answered ${res.statusCode}`);
      }
    },
  };
};
