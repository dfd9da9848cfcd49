import { domainToASCII } from 'node:url';
import type { FraudRules } from '../../platform/settings/settings.service.js';

/**
 * docs/api.md#fraud-review: the fraud signals as pure rules over facts svc already has. Each
 * takes what was just read where those facts are written (a payment, a click, payout details, a refund)
 * and says what it found, in words a person reads; the caller opens or adds to the case, in the same
 * transaction as the money it may hold. Nothing here sees a raw address.
 */

// the signals' names and their settings (off | flag | hold) are the settings' (a platform module)
export { FRAUD_SIGNALS } from '../../platform/settings/settings.service.js';
export type { FraudRules };

/** One piece of evidence, as a case keeps it. */
export interface Finding {
  readonly detail: string;
  readonly orderId?: string;
  readonly clickAt?: number;
}

const DAY_MS = 86_400_000;
/** How far apart a portal sign-in and the mailbox's creation may be for `self_referral`. */
export const SIGN_IN_WINDOW_MS = 30 * DAY_MS;
export const CLICK_BURST_WINDOW_MS = 10 * 60_000;
export const REFUND_RATE_WINDOW_MS = 30 * DAY_MS;
export const REFUND_RATE_MIN_ORDERS = 5;
/** More than this share of the amount refunded fires `refund_rate`. */
export const REFUND_RATE_SHARE = 0.3;

/**
 * Mail providers anyone can have an address at: an order's email there is not the affiliate's own domain.
 * Lower case; compared with the domain as mailboxKey reads it (googlemail.com is gmail.com there).
 */
export const PUBLIC_MAIL_DOMAINS: ReadonlySet<string> = new Set([
  'gmail.com', 'outlook.com', 'hotmail.com', 'hotmail.co.uk', 'hotmail.fr', 'hotmail.de', 'live.com', 'msn.com',
  'yahoo.com', 'yahoo.co.uk', 'yahoo.fr', 'yahoo.de', 'yahoo.co.jp', 'ymail.com', 'aol.com', 'icloud.com', 'me.com', 'mac.com',
  'proton.me', 'protonmail.com', 'pm.me', 'gmx.de', 'gmx.net', 'gmx.com', 'web.de', 't-online.de', 'mail.ru', 'yandex.ru', 'yandex.com',
  'qq.com', '163.com', '126.com', 'sina.com', 'naver.com', 'daum.net', 'zoho.com', 'fastmail.com', 'tutanota.com', 'tuta.io',
  'hey.com', 'orange.fr', 'free.fr', 'laposte.net', 'libero.it', 'seznam.cz', 'wp.pl', 'o2.pl', 'rambler.ru', 'mail.com', 'inbox.com',
]);

/**
 * An address as the signals compare it: lower case, the domain in its ASCII (punycode) form without a
 * trailing dot, the `+tag` of the local part dropped, and for Gmail the dots too (googlemail.com is
 * gmail.com), since each of those delivers to the same mailbox. Not an address to write to.
 */
export function mailboxKey(email: string): { local: string; domain: string } | null {
  const at = email.lastIndexOf('@');
  if (at <= 0) return null;
  let domain = email.slice(at + 1).trim().toLowerCase().replace(/\.+$/, '');
  domain = domainToASCII(domain) || domain;
  if (domain === 'googlemail.com') domain = 'gmail.com';
  let local = email.slice(0, at).trim().toLowerCase();
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  if (domain === 'gmail.com') local = local.replaceAll('.', '');
  return local === '' || domain === '' ? null : { local, domain };
}

/** The order's domain is the affiliate's own, or a subdomain of it (mail.example.com of example.com). */
function sameOrSubdomain(orderDomain: string, ownDomain: string): boolean {
  return orderDomain === ownDomain || orderDomain.endsWith(`.${ownDomain}`);
}

/** What a payment knows when it checks `self_referral`. */
export interface SelfReferralFacts {
  readonly orderEmail: string;
  readonly affiliateEmail: string | null;
  /** The order's mailbox was created from a network the affiliate signed in from within 30 days of it: when, and the nearest sign-in. */
  readonly signedInNetwork: { readonly mailboxCreatedAt: number; readonly signedInAt: number } | undefined;
  /** svc's own mail domains: anyone can have an address there, as at a public provider. */
  readonly ownDomains: ReadonlySet<string>;
}

export function selfReferral(f: SelfReferralFacts, orderId: string): Finding | undefined {
  const order = mailboxKey(f.orderEmail);
  const own = f.affiliateEmail ? mailboxKey(f.affiliateEmail) : null;
  if (own && order && order.local === own.local && order.domain === own.domain) {
    return { detail: `Ordered with the affiliate's own email ${f.orderEmail}${f.affiliateEmail && f.orderEmail !== f.affiliateEmail.toLowerCase() ? ` (the affiliate's is ${f.affiliateEmail})` : ''}`, orderId };
  }
  if (own && order && sameOrSubdomain(order.domain, own.domain) && !PUBLIC_MAIL_DOMAINS.has(own.domain) && !f.ownDomains.has(own.domain)) {
    return { detail: `Ordered with ${f.orderEmail}, at the affiliate's own email domain ${own.domain}`, orderId };
  }
  const net = f.signedInNetwork;
  if (net) {
    return { detail: `The mailbox ${f.orderEmail}, attributed to the affiliate, was made from the network the affiliate signed in to the portal from ${apart(net.signedInAt, net.mailboxCreatedAt)}`, orderId, clickAt: net.mailboxCreatedAt };
  }
  return undefined;
}

/** "2 days earlier", "3 hours later", "the same hour": a sign-in as seen from the mailbox's creation. */
function apart(signedInAt: number, createdAt: number): string {
  const ms = Math.abs(createdAt - signedInAt);
  const when = signedInAt <= createdAt ? 'earlier' : 'later';
  if (ms < 3_600_000) return 'within the same hour';
  if (ms < DAY_MS) {
    const h = Math.round(ms / 3_600_000);
    return `${h} hour${h === 1 ? '' : 's'} ${when}`;
  }
  const d = Math.round(ms / DAY_MS);
  return `${d} day${d === 1 ? '' : 's'} ${when}`;
}

/** Payout email or IBAN as compared: case and spaces ignored; an email as mailboxKey reads it. */
export function payoutKey(value: string | null | undefined): string | null {
  if (!value) return null;
  const key = value.replace(/\s+/g, '').toLowerCase();
  if (key.includes('@')) {
    const m = mailboxKey(key);
    return m ? `${m.local}@${m.domain}` : null;
  }
  return key === '' ? null : key;
}

export interface PayoutTwin {
  readonly refCode: string;
  readonly field: 'payout email' | 'IBAN';
}

export function duplicatePayout(twins: readonly PayoutTwin[]): Finding | undefined {
  if (twins.length === 0) return undefined;
  const named = twins.slice(0, 5).map((t) => `${t.field} of affiliate ${t.refCode}`);
  return { detail: `Payout details are also the ${named.join(', ')}${twins.length > 5 ? ` and ${twins.length - 5} more` : ''}` };
}

/** An affiliate's orders paid in the last 30 days, with the refund just booked. */
export interface RefundFacts {
  readonly orders: number;
  readonly amountCents: number;
  readonly refundedCents: number;
}

export function refundRate(f: RefundFacts, orderId: string, format: (cents: number) => string): Finding | undefined {
  if (f.orders < REFUND_RATE_MIN_ORDERS || f.amountCents <= 0 || f.refundedCents <= f.amountCents * REFUND_RATE_SHARE) return undefined;
  const pct = Math.round((f.refundedCents / f.amountCents) * 100);
  return { detail: `${pct} % refunded over the last 30 days: ${format(f.refundedCents)} of ${format(f.amountCents)} on ${f.orders} orders`, orderId };
}

export function clickBurstFinding(wide: string, count: number, at: number): Finding {
  return { detail: `More than ${count} clicks within 10 minutes from the network ${wide}; the clicks past ${count} were not counted`, clickAt: at };
}
