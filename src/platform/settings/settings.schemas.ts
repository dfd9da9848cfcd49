import { z } from 'zod';
import { currencyOf } from '../money.js';
import { moneyField } from '../http/money-input.js';
import { httpUrlProblem } from '../safe-url.js';
import type { FraudSignal } from '../db/schema.js';

// The settings at the edge (docs/api.md#settings): what an answer shows, what a change may send.

/** The admin-editable settings of docs/api.md#settings, as the API shows them. */
export interface Settings {
  readonly commission_rate: number;
  readonly cookie_lifetime_days: number;
  readonly landing_url: string;
  readonly webhook_url: string | null;
  readonly webhook_secret: string;
  readonly mailbox_ttl_hours: number;
  /** Per-mailbox quota (README.md#mail-limits): past it the oldest messages of that mailbox are deleted at intake. */
  readonly mailbox_max_messages: number;
  /** Portal self sign-up (docs/api.md#affiliate-portal): closed, review (new affiliates are pending), open. */
  readonly affiliate_signup: AffiliateSignup;
  /** Days after payment until a pending commission is approved automatically; null = manual (docs/ledger.md#holding-period). */
  readonly holding_days: number | null;
  /** Billing systems' webhook signing secrets (docs/api.md, "Integrations"); '' = unset (its endpoint refuses every event). */
  readonly stripe_webhook_secret: string;
  readonly paddle_webhook_secret: string;
  readonly lemonsqueezy_webhook_secret: string;
  /** Where svc sends the admin's mails (an affiliate awaiting review, the webhook failing); null: none. */
  readonly admin_email: string | null;
  /** Whether `message.received` is emitted for every mailbox copy of an arriving message (off by default: it can be a lot). */
  readonly message_events: boolean;
  /** docs/api.md#payouts: the program currency (ISO 4217); changes only while no order exists. */
  readonly currency: string;
  /** docs/api.md#payouts: the smallest withdrawal, in the currency's major unit; null: none. */
  readonly payout_minimum: number | null;
  /** docs/api.md#payouts: `monthly` requests every balance once a month, at the first schedule tick on or after the 1st (UTC). */
  readonly payout_schedule: PayoutSchedule;
  /** The debtor of SEPA payout files (docs/api.md#payouts); null: unset. */
  readonly sepa_debtor_name: string | null;
  readonly sepa_debtor_iban: string | null;
  readonly sepa_debtor_bic: string | null;
  /** docs/api.md#click-log: days raw clicks are kept (the daily counts behind every figure are kept for good). */
  readonly click_retention_days: number;
  /** docs/api.md#fraud-review: what each fraud signal does (off, flag: open a case, hold: open a case that holds commissions). */
  readonly fraud_rules: FraudRules;
  /** docs/api.md#fraud-review: counted clicks on one link from one IPv4 /24 or IPv6 /48 within 10 minutes; past it click_burst fires. */
  readonly fraud_click_burst: number;
}

/** The fraud signals of docs/api.md#fraud-review (the fraud feature's rules are named by these). */
export const FRAUD_SIGNALS = ['self_referral', 'duplicate_payout', 'click_burst', 'refund_rate'] as const satisfies readonly FraudSignal[];
const allSignals: Exclude<FraudSignal, (typeof FRAUD_SIGNALS)[number]> extends never ? true : never = true;
void allSignals;
export const FRAUD_RULE_SETTINGS = ['off', 'flag', 'hold'] as const;
export type FraudRuleSetting = (typeof FRAUD_RULE_SETTINGS)[number];
export type FraudRules = Readonly<Record<FraudSignal, FraudRuleSetting>>;
export const DEFAULT_FRAUD_RULES: FraudRules = { self_referral: 'hold', duplicate_payout: 'hold', click_burst: 'flag', refund_rate: 'flag' };

/**
 * The settings that hold a secret (docs/api.md#settings): write-only. Settings answers carry
 * secretState(value) in their place, whether one is set and its last four characters, never the value
 * (settingsView; test/integration/settings-secrets.test.ts).
 */
export const SECRET_SETTINGS = ['webhook_secret', 'stripe_webhook_secret', 'paddle_webhook_secret', 'lemonsqueezy_webhook_secret'] as const satisfies readonly (keyof Settings)[];
export type SecretSetting = (typeof SECRET_SETTINGS)[number];

/** What an answer says of a secret: set or not, and the last four characters of one that is. */
export interface SecretState {
  readonly set: boolean;
  readonly last4: string | null;
}

export function secretState(value: string): SecretState {
  return value === '' ? { set: false, last4: null } : { set: true, last4: value.slice(-4) };
}

/** The settings as an answer shows them: every secret replaced by its state. */
export type SettingsView = Omit<Settings, SecretSetting> & Record<SecretSetting, SecretState>;

export function settingsView(s: Settings): SettingsView {
  const view: Record<string, unknown> = { ...s };
  for (const key of SECRET_SETTINGS) view[key] = secretState(s[key]);
  return view as SettingsView;
}

export const PAYOUT_SCHEDULES = ['manual', 'monthly'] as const;
export type PayoutSchedule = (typeof PAYOUT_SCHEDULES)[number];

/** The settings that hold a billing system's webhook secret, by provider. */
export const INTEGRATION_SECRET_KEYS = {
  stripe: 'stripe_webhook_secret',
  paddle: 'paddle_webhook_secret',
  lemonsqueezy: 'lemonsqueezy_webhook_secret',
} as const satisfies Record<string, keyof Settings>;

// '' clears it; leading or trailing space is refused (a pasted secret with a stray space never verifies)
const providerSecret = z
  .string()
  .max(256, 'must be at most 256 characters')
  .refine((v) => v === v.trim(), 'must not start or end with a space');

export const AFFILIATE_SIGNUP = ['closed', 'review', 'open'] as const;
export type AffiliateSignup = (typeof AFFILIATE_SIGNUP)[number];

// Checked as sent, before trimming: a trailing CR/LF must be refused, not trimmed into acceptance.
const httpUrl = z
  .string()
  .max(2048)
  .superRefine((v, ctx) => {
    const problem = httpUrlProblem(v);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .transform((v) => v.trim());

/**
 * The validators of the settings whose rules belong to an area (the rate to the ledger, the SEPA debtor to
 * payouts), handed in by the composition (src/context.ts): the platform does not know them.
 */
export interface AreaSettingFields {
  /** A commission rate in percent at the edge, parsed into basis points. */
  readonly rateBp: z.ZodType<number, unknown>;
  /** A name SEPA files can carry, at most `max` characters. */
  readonly sepaText: (max: number) => z.ZodType<string, unknown>;
  readonly iban: z.ZodType<string, unknown>;
  readonly bic: z.ZodType<string, unknown>;
}

/** PATCH /settings' body (docs/api.md#settings), with the areas' validators. */
export function settingsPatchSchema(area: AreaSettingFields) {
  return z
  .object({
    // parsed exactly into basis points here, at the edge; stored as such (settings key commission_rate_bp)
    commission_rate: area.rateBp,
    cookie_lifetime_days: z.number().int().min(1).max(365),
    landing_url: httpUrl,
    // '' clears it like null; anything else is checked as a URL (and its problem named, not "Invalid input")
    webhook_url: z.preprocess((v) => (v === '' ? null : v), httpUrl.nullable()),
    webhook_secret: z.string().min(16, 'must be at least 16 characters').max(256),
    mailbox_ttl_hours: z.number().int().min(1).max(720),
    mailbox_max_messages: z.number().int().min(1).max(10_000),
    affiliate_signup: z.enum(AFFILIATE_SIGNUP),
    holding_days: z.number().int().min(0).max(365).nullable(),
    // Stripe's endpoint signing secret; an API key (sk_…, rk_…) pasted here would never verify and must not be stored
    stripe_webhook_secret: providerSecret.refine((v) => v === '' || v.startsWith('whsec_'), "must be the endpoint's signing secret (whsec_…), not an API key"),
    paddle_webhook_secret: providerSecret,
    lemonsqueezy_webhook_secret: providerSecret,
    // '' clears it like null
    admin_email: z.preprocess(
      (v) => (v === '' ? null : v),
      z.string().trim().toLowerCase().max(320).regex(/^[^\s@<>,;"]+@[^\s@<>,;"]+$/, 'must be an email address').nullable(),
    ),
    message_events: z.boolean(),
    currency: z
      .string()
      .max(3, 'must be an ISO 4217 currency code in capitals, like USD, EUR or JPY')
      .refine((v) => currencyOf(v) !== undefined, 'must be an ISO 4217 currency code in capitals, like USD, EUR or JPY'),
    // parsed into minor units of the currency in force (money-input.ts); null clears it
    payout_minimum: moneyField.nullable(),
    payout_schedule: z.enum(PAYOUT_SCHEDULES),
    sepa_debtor_name: z.preprocess((v) => (v === '' ? null : v), area.sepaText(70).nullable()),
    sepa_debtor_iban: z.preprocess((v) => (v === '' ? null : v), area.iban.nullable()),
    sepa_debtor_bic: z.preprocess((v) => (v === '' ? null : v), area.bic.nullable()),
    click_retention_days: z.number().int().min(7).max(3650),
    // any of the four; the others keep their value
    fraud_rules: z
      .strictObject(Object.fromEntries(FRAUD_SIGNALS.map((k) => [k, z.enum(FRAUD_RULE_SETTINGS).optional()])) as Record<FraudSignal, z.ZodOptional<z.ZodEnum<{ off: 'off'; flag: 'flag'; hold: 'hold' }>>>),
    fraud_click_burst: z.number().int().min(1).max(100_000),
  })
  .partial()
  .strict();
}

export type SettingsPatch = z.infer<ReturnType<typeof settingsPatchSchema>>;

