import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { ValidationError } from '../errors.js';
import { rateBpField, rateFromBp } from '../../loop/ledger/rate.js';
import { toRateBp } from '../money.js';
import { httpUrlProblem } from '../safe-url.js';
import { readAllSettings, writeSetting } from './settings.repository.js';

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
}

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

export const settingsPatchSchema = z
  .object({
    // parsed exactly into basis points here, at the edge; stored as such (settings key commission_rate_bp)
    commission_rate: rateBpField,
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
  })
  .partial()
  .strict();

export type SettingsPatch = z.infer<typeof settingsPatchSchema>;

/** Extra check for URLs that leave the process (the SSRF guard of the events feature plugs in here). */
export type OutboundUrlCheck = (url: string) => Promise<string | undefined>;

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const CACHE_MS = 1000;

/** The global rate is stored as integer basis points under this key (migration 0020-ledger). */
const RATE_KEY = 'commission_rate_bp';

/** A stored rate is trusted only when it is a whole number of basis points in range; never replaced by a default. */
function storedRateBp(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 10_000) {
    throw new Error(`stored ${RATE_KEY} is not a rate in basis points: ${JSON.stringify(value)}`);
  }
  return value;
}

function toRateBpExact(percent: number): number {
  const bp = toRateBp(percent);
  if (bp === undefined) throw new Error(`global rate ${percent} is not exact`);
  return bp;
}

/**
 * Settings live in the database. Reads are cached for a second so hot paths (/go) do not query per
 * request; a change made through this instance is visible at once, one made elsewhere within a second.
 */
export class SettingsService {
  private cache?: { at: number; value: Settings };

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly baseUrl: string,
    private readonly outboundUrlCheck?: OutboundUrlCheck,
  ) {}

  defaults(): Settings {
    return {
      commission_rate: 10,
      cookie_lifetime_days: 30,
      landing_url: `${this.baseUrl}/`,
      webhook_url: null,
      webhook_secret: '',
      mailbox_ttl_hours: 24,
      mailbox_max_messages: 500,
      affiliate_signup: 'closed',
      holding_days: null,
      stripe_webhook_secret: '',
      paddle_webhook_secret: '',
      lemonsqueezy_webhook_secret: '',
      admin_email: null,
      message_events: false,
    };
  }

  async get(): Promise<Settings> {
    const now = this.clock.now();
    if (this.cache && now - this.cache.at < CACHE_MS && now >= this.cache.at) return this.cache.value;
    const stored = await readAllSettings(this.db);
    const d = this.defaults();
    const pick = <K extends keyof Settings>(k: K): Settings[K] => (stored.has(k) ? (stored.get(k) as Settings[K]) : d[k]);
    const storedBp = stored.get(RATE_KEY);
    const value: Settings = Object.freeze({
      commission_rate: storedBp === undefined ? d.commission_rate : rateFromBp(storedRateBp(storedBp)),
      cookie_lifetime_days: pick('cookie_lifetime_days'),
      landing_url: pick('landing_url'),
      webhook_url: pick('webhook_url'),
      webhook_secret: pick('webhook_secret'),
      mailbox_ttl_hours: pick('mailbox_ttl_hours'),
      mailbox_max_messages: pick('mailbox_max_messages'),
      affiliate_signup: pick('affiliate_signup'),
      holding_days: pick('holding_days'),
      stripe_webhook_secret: pick('stripe_webhook_secret'),
      paddle_webhook_secret: pick('paddle_webhook_secret'),
      lemonsqueezy_webhook_secret: pick('lemonsqueezy_webhook_secret'),
      admin_email: pick('admin_email'),
      message_events: pick('message_events'),
    });
    this.cache = { at: now, value };
    return value;
  }

  /** The global rate in basis points, exactly as stored (the default 10 % only when never set). */
  async globalRateBp(): Promise<number> {
    return toRateBpExact((await this.get()).commission_rate);
  }

  invalidate(): void {
    this.cache = undefined;
  }

  /** `patch` is validated at the edge with settingsPatchSchema (the route's body schema). */
  async update(patch: SettingsPatch): Promise<Settings> {
    if (patch.webhook_url && this.outboundUrlCheck) {
      const problem = await this.outboundUrlCheck(patch.webhook_url);
      if (problem) throw new ValidationError([{ field: 'webhook_url', message: problem }]);
    }
    const now = this.clock.now();
    await this.db.transaction().execute(async (tx) => {
      for (const [key, value] of Object.entries(patch)) {
        if (value === undefined) continue;
        await writeSetting(tx, key === 'commission_rate' ? RATE_KEY : key, value, now);
      }
    });
    this.invalidate();
    return this.get();
  }
}
