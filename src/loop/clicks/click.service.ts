import { createHash, randomBytes } from 'node:crypto';
import type { Logger } from '../../platform/logger.js';
import type { AffiliateService } from '../affiliates/affiliate.service.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { httpUrlProblem } from '../../platform/safe-url.js';
import { insertSettingIfAbsent, readSetting } from '../../platform/settings/settings.repository.js';
import type { SettingsService } from '../../platform/settings/settings.service.js';
import { ClickRecorder } from './click-recorder.js';
import type { FraudService } from '../fraud/fraud.service.js';
import { networksOf } from '../fraud/network.js';
import { type ClickBatchWriter, findClickNetworkIds } from './click.repository.js';

/** Click ids of affiliate networks (Awin, CJ, Impact, generic) kept with the click and the referral. */
export const NETWORK_CLICK_PARAMS = ['awc', 'cjevent', 'irclickid', 'clickid', 'transaction_id'] as const;

/**
 * Crawlers and link-preview fetchers: redirected but not counted. Generic words (bot, crawl, spider,
 * preview) catch most; the rest are named. curl, browsers and HTTP libraries match none of these.
 */
export const BOT_USER_AGENT_RE =
  /bot\b|crawl|spider|slurp|preview|facebookexternalhit|facebookcatalog|meta-externalagent|whatsapp|slack-imgproxy|embedly|iframely|vkshare|quora link|outbrain|mediapartners-google|google-inspectiontool|googleother|adsbot|ia_archiver|semrush|ahrefs|mj12|bytespider|mastodon/i;

export function isBot(userAgent: string | undefined): boolean {
  return !!userAgent && BOT_USER_AGENT_RE.test(userAgent);
}

export interface FollowInput {
  readonly refCode: string;
  /** false for HEAD: answer the same, record nothing. */
  readonly record: boolean;
  readonly ip: string;
  readonly userAgent?: string;
  readonly referer?: string;
  readonly query: Record<string, unknown>;
}

export interface FollowResult {
  readonly location: string;
  /** Set when the code is an active affiliate: the caller sets the svc_ref cookie. */
  readonly refCode: string | null;
  /** Id of the stored click when it carried network click ids (for the svc_click cookie). */
  readonly clickId: number | null;
  readonly cookieLifetimeDays: number;
}

const SALT_KEY = 'click_ip_salt';
const MAX_HEADER_CHARS = 512;

/** GET /go/{ref_code} (docs/api.md#promotion-link-and-mailboxes): click, cookie, redirect. The redirect target is only ever landing_url. */
export class ClickService {
  private readonly recorder: ClickRecorder;
  private salt?: Promise<string>;
  private landingCache?: { landing: unknown; unknown: string; url: URL; perCode: Map<string, string> };

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly settings: SettingsService,
    private readonly affiliates: AffiliateService,
    private readonly fraud: FraudService,
    private readonly logger: Logger,
    writer: ClickBatchWriter,
    /** Click batches written at once (docs/api.md#click-log: several on PostgreSQL, one on SQLite). */
    batchesInFlight = 1,
  ) {
    this.recorder = new ClickRecorder(writer, batchesInFlight);
  }

  async follow(input: FollowInput): Promise<FollowResult> {
    const settings = await this.settings.get();
    const landing = this.landing(settings.landing_url);
    const active = await this.affiliates.isActive(input.refCode);
    if (!active) return { location: landing.unknown, refCode: null, clickId: null, cookieLifetimeDays: settings.cookie_lifetime_days };

    const location = landing.perCode.get(input.refCode) ?? this.locationFor(landing, input.refCode);
    let clickId: number | null = null;
    // docs/api.md#fraud-review: past fraud_click_burst clicks from one network in 10 minutes are not counted
    if (input.record && !isBot(input.userAgent) && this.fraud.countClick(input.refCode, input.ip, settings.fraud_rules, settings.fraud_click_burst)) {
      const networkIds = networkClickIds(input.query);
      try {
        clickId = await this.recorder.record(
          {
            ref_code: input.refCode,
            created_at: this.clock.now(),
            ip_hash: await this.networkHash(input.ip),
            user_agent: clip(input.userAgent),
            referer: clip(input.referer),
            network_click_ids: networkIds,
          },
          networkIds !== null,
        );
      } catch (err) {
        // The visitor still gets where they were going; a lost click is logged, not shown.
        this.logger.error({ err, ref_code: input.refCode }, 'click not stored');
      }
    }
    return { location, refCode: input.refCode, clickId, cookieLifetimeDays: settings.cookie_lifetime_days };
  }

  /** The network click ids click `clickId` of `refCode` carried (a mailbox created after it inherits them). */
  networkIdsOf(refCode: string, clickId: number): ReturnType<typeof findClickNetworkIds> {
    return findClickNetworkIds(this.db, refCode, clickId);
  }

  /** landing_url with ref=<code> set (its own query and fragment kept), remembered per code. */

  private locationFor(landing: { url: URL; perCode: Map<string, string> }, refCode: string): string {
    const target = new URL(landing.url);
    target.searchParams.set('ref', refCode);
    const location = target.toString();
    if (landing.perCode.size >= 10_000) landing.perCode.clear();
    landing.perCode.set(refCode, location);
    return location;
  }

  /**
   * Parsed landing URL, and its form without any `ref` for unknown codes; re-parsed only when the
   * setting changes. Whatever is stored (a value saved before control characters were refused, one
   * written straight into the database), /go answers a redirect: a landing URL svc would not accept
   * today falls back to the base URL's landing page, and the Location is always the parser's ASCII
   * serialisation (a raw non-Latin-1 character in a header would be a 500).
   */
  private landing(landingUrl: unknown): { unknown: string; url: URL; perCode: Map<string, string> } {
    if (!this.landingCache || this.landingCache.landing !== landingUrl) {
      let url: URL;
      if (typeof landingUrl === 'string' && httpUrlProblem(landingUrl) === undefined) {
        url = new URL(landingUrl);
      } else {
        this.logger.warn({ landing_url: String(landingUrl).slice(0, 200) }, 'landing_url is not a usable http(s) URL; /go redirects to the default landing page');
        url = new URL(this.settings.defaults().landing_url);
      }
      const stripped = new URL(url);
      stripped.searchParams.delete('ref');
      const unknown = url.searchParams.has('ref') ? stripped.toString() : url.toString();
      this.landingCache = { landing: landingUrl, unknown, url, perCode: new Map() };
    }
    return this.landingCache;
  }

  /**
   * sha256(per-install salt ‖ network): clicks, mailboxes and portal sign-ins can be told apart and compared
   * (docs/api.md#fraud-review) without storing addresses. The network is the IPv4 address or the IPv6 /64.
   */
  async networkHash(ip: string): Promise<string> {
    return this.hashOf(networksOf(ip)?.exact ?? ip);
  }

  /** networkHash of a public address; null for a loopback or private one (no visitor's network: networksOf). */
  async publicNetworkHash(ip: string): Promise<string | null> {
    const nets = networksOf(ip);
    return nets ? this.hashOf(nets.exact) : null;
  }

  private async hashOf(network: string): Promise<string> {
    this.salt ??= this.loadSalt().catch((err: unknown) => {
      this.salt = undefined;
      throw err;
    });
    return createHash('sha256')
      .update(await this.salt)
      .update(network)
      .digest('hex');
  }

  private async loadSalt(): Promise<string> {
    // Conditional insert, then read: instances starting together agree on one salt.
    await insertSettingIfAbsent(this.db, SALT_KEY, randomBytes(32).toString('hex'), this.clock.now());
    const salt = await readSetting(this.db, SALT_KEY);
    if (typeof salt !== 'string') throw new Error('click ip salt missing');
    return salt;
  }
}

function clip(value: string | undefined): string | null {
  return value ? value.slice(0, MAX_HEADER_CHARS) : null;
}

/** The network click ids present in the query, as JSON, or null when there are none. */
export function networkClickIds(query: Record<string, unknown>): string | null {
  let found: Record<string, string> | null = null;
  for (const name of NETWORK_CLICK_PARAMS) {
    let v = query[name];
    if (Array.isArray(v)) v = v[0];
    if (typeof v === 'string' && v !== '') {
      found ??= {};
      found[name] = v.slice(0, 256);
    }
  }
  return found ? JSON.stringify(found) : null;
}
