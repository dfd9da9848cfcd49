import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Db, Executor } from '../db/database.js';
import { ConflictError, ValidationError } from '../errors.js';
import { type Currency, currencyOf, fromMinor, fromRateBp, rescaleMinor, toRateBp, USD } from '../money.js';
import { insertSettingIfAbsent, readAllSettings, readSetting, writeSetting } from './settings.repository.js';
import { type AreaSettingFields, DEFAULT_FRAUD_RULES, FRAUD_RULE_SETTINGS, FRAUD_SIGNALS, type FraudRules, type Settings, type SettingsPatch, settingsPatchSchema } from './settings.schemas.js';

// the settings' shapes live in settings.schemas.ts; this path keeps serving them
export * from './settings.schemas.js';

/** Extra check for URLs that leave the process (the SSRF guard of the events feature plugs in here). */
export type OutboundUrlCheck = (url: string) => Promise<string | undefined>;

// Values other features keep in the settings table (the API key, the first start's secrets) or read in
// their own transaction (the admin's address): through this module, never the settings repository.

/** The stored value under `key` (undefined: never set), read with `tx`. */
export function storedSetting(tx: Executor, key: string): Promise<unknown> {
  return readSetting(tx, key);
}

export function storeSetting(tx: Executor, key: string, value: unknown, now: number): Promise<void> {
  return writeSetting(tx, key, value, now);
}

/** Stores `value` under `key` unless one is there; true when it stored it. */
export function storeSettingIfAbsent(tx: Executor, key: string, value: unknown, now: number): Promise<boolean> {
  return insertSettingIfAbsent(tx, key, value, now);
}

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

/** Where the settings meet the rest of the money (set by the context): the lock, the amounts a currency change rescales, the schedule's start. */
export interface MoneyConfig {
  /** true once any order exists: the currency is locked (docs/api.md#payouts). */
  readonly anyOrder: (tx: Executor) => Promise<boolean>;
  /** Rescales stored money configuration (flat commission rules) from one currency's minor unit to another's; false when one would not be exact. */
  readonly rescale: (tx: Executor, from: Currency, to: Currency) => Promise<boolean>;
  /** payout_schedule switches to monthly (in the transaction that writes it): its first run is the next month's (docs/api.md#payouts). */
  readonly monthlyScheduleStarts: (tx: Executor, now: number) => Promise<void>;
}

const NO_MONEY_CONFIG: MoneyConfig = { anyOrder: async () => false, rescale: async () => true, monthlyScheduleStarts: async () => {} };

/** The payout minimum is stored in minor units under this key. */
const MINIMUM_KEY = 'payout_minimum_minor';

function storedCurrency(value: unknown): Currency {
  if (value === undefined) return USD;
  const cur = typeof value === 'string' ? currencyOf(value) : undefined;
  if (!cur) throw new Error(`stored currency is not an ISO 4217 code: ${JSON.stringify(value)}`);
  return cur;
}

function storedMinimum(value: unknown): number | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) throw new Error(`stored ${MINIMUM_KEY} is not minor units: ${JSON.stringify(value)}`);
  return value;
}

/**
 * Settings live in the database. Reads are cached for a second so hot paths (/go) do not query per
 * request; a change made through this instance is visible at once, one made elsewhere within a second.
 */
export class SettingsService {
  private cache?: { at: number; value: Settings };
  private minimumMinor: number | null = null;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly baseUrl: string,
    area: AreaSettingFields,
    private readonly outboundUrlCheck?: OutboundUrlCheck,
    private readonly money: MoneyConfig = NO_MONEY_CONFIG,
  ) {
    this.patchSchema = settingsPatchSchema(area);
  }

  /** PATCH /settings' body, with the validators the areas handed in (the admin route's schema). */
  readonly patchSchema: ReturnType<typeof settingsPatchSchema>;

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
      currency: 'USD',
      payout_minimum: null,
      payout_schedule: 'manual',
      sepa_debtor_name: null,
      sepa_debtor_iban: null,
      sepa_debtor_bic: null,
      click_retention_days: 90,
      fraud_rules: DEFAULT_FRAUD_RULES,
      fraud_click_burst: 30,
    };
  }

  async get(): Promise<Settings> {
    const now = this.clock.now();
    if (this.cache && now - this.cache.at < CACHE_MS && now >= this.cache.at) return this.cache.value;
    const stored = await readAllSettings(this.db);
    const d = this.defaults();
    const pick = <K extends keyof Settings>(k: K): Settings[K] => (stored.has(k) ? (stored.get(k) as Settings[K]) : d[k]);
    const storedBp = stored.get(RATE_KEY);
    const cur = storedCurrency(stored.get('currency'));
    const minimum = storedMinimum(stored.get(MINIMUM_KEY));
    this.minimumMinor = minimum;
    const value: Settings = Object.freeze({
      commission_rate: storedBp === undefined ? d.commission_rate : fromRateBp(storedRateBp(storedBp)),
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
      currency: cur.code,
      payout_minimum: minimum === null ? null : fromMinor(minimum, cur),
      payout_schedule: pick('payout_schedule'),
      sepa_debtor_name: pick('sepa_debtor_name'),
      sepa_debtor_iban: pick('sepa_debtor_iban'),
      sepa_debtor_bic: pick('sepa_debtor_bic'),
      click_retention_days: pick('click_retention_days'),
      // stored as the signals set so far: the defaults fill the others (a signal added later starts at its default)
      fraud_rules: Object.freeze({ ...d.fraud_rules, ...storedRules(stored.get('fraud_rules')) }),
      fraud_click_burst: pick('fraud_click_burst'),
    });
    this.cache = { at: now, value };
    return value;
  }

  /** The global rate in basis points, exactly as stored (the default 10 % only when never set). */
  async globalRateBp(): Promise<number> {
    return toRateBpExact((await this.get()).commission_rate);
  }

  /** The program currency (docs/api.md#payouts), USD on a database that never set one. */
  async currency(): Promise<Currency> {
    return storedCurrency((await this.get()).currency);
  }

  /** The payout minimum in minor units, null when unset. */
  async payoutMinimumMinor(): Promise<number | null> {
    await this.get();
    return this.minimumMinor;
  }

  invalidate(): void {
    this.cache = undefined;
  }

  /**
   * docs/api.md#payouts: the currency changes only while no order exists (checked in the transaction that writes
   * it); amounts already configured keep their value in the new currency's minor unit, or the change is
   * refused when one cannot (a minimum of 1.125 KWD has no JPY value).
   */
  private async changeCurrency(tx: Executor, code: string, minimumSent: boolean, now: number): Promise<{ from: Currency; to: Currency } | undefined> {
    const from = storedCurrency(await readSetting(tx, 'currency'));
    const to = storedCurrency(code);
    if (from.code === to.code) return undefined;
    if (await this.money.anyOrder(tx)) throw new ConflictError('currency_locked', `The currency is ${from.code} for good: orders exist`, { currency: from.code });
    if (from.digits !== to.digits) {
      const minimum = storedMinimum(await readSetting(tx, MINIMUM_KEY));
      if (minimum !== null && !minimumSent) {
        const moved = rescaleMinor(minimum, from, to);
        if (moved === undefined) throw new ValidationError([{ field: 'currency', message: `the payout minimum has no exact value in ${to.code}` }]);
        await writeSetting(tx, MINIMUM_KEY, moved, now);
      }
      if (!(await this.money.rescale(tx, from, to))) throw new ValidationError([{ field: 'currency', message: `a flat commission rule has no exact value in ${to.code}` }]);
    }
    await writeSetting(tx, 'currency', to.code, now);
    return { from, to };
  }

  /** `patch` is validated at the edge with settingsPatchSchema (the route's body schema). */
  async update(patch: SettingsPatch): Promise<Settings> {
    if (patch.webhook_url && this.outboundUrlCheck) {
      const problem = await this.outboundUrlCheck(patch.webhook_url);
      if (problem) throw new ValidationError([{ field: 'webhook_url', message: problem }]);
    }
    const now = this.clock.now();
    await this.db.transaction().execute(async (tx) => {
      let values: Record<string, unknown> = patch;
      if (patch.currency !== undefined) {
        const change = await this.changeCurrency(tx, patch.currency, patch.payout_minimum !== undefined, now);
        // a minimum sent with the currency was read in the old one (money-input.ts): same value, new unit
        if (change && typeof patch.payout_minimum === 'number') {
          const moved = rescaleMinor(patch.payout_minimum, change.from, change.to);
          if (moved === undefined) throw new ValidationError([{ field: 'payout_minimum', message: `must have at most ${change.to.digits} decimal places (${change.to.code})` }]);
          values = { ...patch, payout_minimum: moved };
        }
      }
      // only a switch: saving `monthly` again (a form sends every field it shows) must not skip the month's run (test/integration/payout-schedule.test.ts)
      if (patch.payout_schedule === 'monthly' && (await readSetting(tx, 'payout_schedule')) !== 'monthly') await this.money.monthlyScheduleStarts(tx, now);
      if (patch.fraud_rules !== undefined) values = { ...values, fraud_rules: { ...storedRules(await readSetting(tx, 'fraud_rules')), ...definedOnly(patch.fraud_rules) } };
      for (const [key, value] of Object.entries(values)) {
        if (value === undefined || key === 'currency') continue;
        await writeSetting(tx, key === 'commission_rate' ? RATE_KEY : key === 'payout_minimum' ? MINIMUM_KEY : key, value, now);
      }
    });
    this.invalidate();
    return this.get();
  }
}

/** The fraud rules as stored (an object of the signals set so far); anything else reads as none set. */
function storedRules(value: unknown): Partial<FraudRules> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const rules: Partial<Record<keyof FraudRules, FraudRules[keyof FraudRules]>> = {};
  for (const signal of FRAUD_SIGNALS) {
    const v = (value as Record<string, unknown>)[signal];
    if (FRAUD_RULE_SETTINGS.includes(v as FraudRules[keyof FraudRules])) rules[signal] = v as FraudRules[keyof FraudRules];
  }
  return rules;
}

function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
