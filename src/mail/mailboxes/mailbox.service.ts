import { z } from 'zod';
import type { AffiliateService } from '../../loop/affiliates/affiliate.service.js';
import type { Mailbox } from '../../platform/db/schema.js';
import type { ClickService } from '../../loop/clicks/click.service.js';
import { type Clock, toIso, utcDay } from '../../platform/clock.js';
import { type Db, type Executor, inTransaction, isUniqueViolation, type Tx } from '../../platform/db/database.js';
import { ConflictError } from '../../platform/errors.js';
import { newId, randomToken } from '../../platform/ids.js';
import { bumpDailyStats } from '../../loop/ledger/executor.js';
import type { DomainService } from '../domains/domain.service.js';
import { normalizeDomain } from '../domains/domain-name.js';
import { NO_TOKEN, newMailboxToken } from './mailbox-token.js';
import { findMailbox, findMailboxesByAddresses, insertMailbox, insertReferral, listMailboxesWithoutToken, normalizeAddress } from './mailbox.repository.js';

// The mailbox reads the other mail features make in their own transaction (intake, reading, mail.tm):
// through this module, never the mailbox repository (test/unit/area-imports.test.ts).
export { normalizeAddress };

/** The mailbox at `address` (trimmed, lower case), read with `tx`. */
export function mailboxAt(tx: Executor, address: string): Promise<Mailbox | undefined> {
  return findMailbox(tx, address);
}

/** The mailboxes among `addresses` that exist, read with `tx`. */
export function mailboxesAt(tx: Executor, addresses: readonly string[]): Promise<Mailbox[]> {
  return findMailboxesByAddresses(tx, addresses);
}
import { decodeKey, keysetPage, type Page } from '../../platform/db/keyset.js';

// Starts with a letter or digit; then letters, digits, _ + - and single dots, never a dot at the end.
// Checked after lower-casing.
const LOCAL_PART_RE = /^[a-z0-9](?:[a-z0-9_+-]|\.(?=[a-z0-9_+-]))*$/;

export const localPart = z
  .string()
  .trim()
  .toLowerCase()
  .min(1)
  .max(64)
  .refine((v) => LOCAL_PART_RE.test(v), 'must be a mailbox name of letters, digits and . _ + -');

const domain = z.string().trim().toLowerCase().min(1).max(253);

/** A ref that is not a well-formed code is treated like an unknown one (falls through to the cookie). */
const refValue = z.string().max(200).nullable();

/**
 * docs/api.md#promotion-link-and-mailboxes names the code `ref` on the public route and `ref_code` under
 * /api; each route takes the other name too (the same value, or 400), since a client mixing them up would
 * otherwise lose the attribution to an "unknown field" it might not read. Other unknown fields are still
 * refused.
 */
const mailboxBody = z
  .object({ name: localPart.nullable(), domain: domain.nullable(), ref: refValue, ref_code: refValue })
  .partial()
  .strict()
  .refine((b) => b.ref == null || b.ref_code == null || b.ref === b.ref_code, { message: 'names another code than ref', path: ['ref_code'] });

export const publicMailboxSchema = mailboxBody;
export const apiMailboxSchema = mailboxBody;

/** The explicit code of either name. */
export function explicitRef(body: { ref?: string | null; ref_code?: string | null }): string | null | undefined {
  return body.ref ?? body.ref_code;
}

export interface CreateMailboxInput {
  /**
   * true for a client without the API key or an admin session (POST /mailboxes, the mail.tm `POST /accounts`):
   * it may create mailboxes on public domains only (docs/api.md#domains).
   */
  readonly anonymous: boolean;
  readonly name?: string | null;
  readonly domain?: string | null;
  /** `ref` of the public route or `ref_code` of the API route. */
  readonly ref?: string | null;
  /** The svc_ref cookie, when the request carried one. */
  readonly cookieRef?: string;
  /** The svc_click cookie (id of the click with network click ids), when present. */
  readonly cookieClick?: string;
  /** The client's address (never stored: its network's salted hash is, on an attributed mailbox's referral). */
  readonly ip?: string;
  /** A byte quota for its messages (a mail.tm account's, docs/mailtm.md#the-quota); none by default. */
  readonly maxBytes?: number;
}

export interface CreatedMailbox {
  readonly address: string;
  readonly refCode: string | null;
  /** 'ref' when the explicit parameter attributed it (the caller then sets the cookie), 'cookie', or null. */
  readonly source: 'ref' | 'cookie' | null;
  readonly token: string;
  readonly createdAt: number;
}

export function mailboxJson(m: CreatedMailbox) {
  return { address: m.address, ref_code: m.refCode, token: m.token, created_at: toIso(m.createdAt) };
}

const RANDOM_NAME_LENGTH = 10;

export class MailboxService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly domains: DomainService,
    private readonly affiliates: AffiliateService,
    private readonly clicks: ClickService,
  ) {}

  /**
   * Creates a mailbox and, when attributed, its one referral and the daily counter, all in one
   * transaction. Attribution: explicit ref naming an active affiliate > cookie naming one > none.
   * `alongside` writes what else a mailbox is created with (a mail.tm account) in that transaction.
   */
  async create(input: CreateMailboxInput, alongside?: (tx: Tx, address: string, now: number) => Promise<void>): Promise<CreatedMailbox> {
    // A name that is no domain cannot be one of ours; normalised (IDN to punycode) as the domains are stored.
    const wanted = input.domain == null ? null : (normalizeDomain(input.domain) ?? input.domain);

    let refCode: string | null = null;
    let source: CreatedMailbox['source'] = null;
    if (input.ref && (await this.affiliates.isActive(input.ref))) {
      refCode = input.ref;
      source = 'ref';
    } else if (input.cookieRef && (await this.affiliates.isActive(input.cookieRef))) {
      refCode = input.cookieRef;
      source = 'cookie';
    }
    const networkIds = refCode ? await this.networkIdsFromClick(refCode, input.cookieClick) : null;
    // docs/api.md#fraud-review: the network an attributed mailbox was made from (salted hash), for self_referral
    const ipHash = refCode && input.ip ? await this.clicks.publicNetworkHash(input.ip) : null;

    // A random name can collide (32^10 names, so practically never); try again with a fresh one.
    for (let attempt = 0; ; attempt++) {
      const name = input.name ?? randomToken(RANDOM_NAME_LENGTH);
      const now = this.clock.now();
      const { token, hash } = newMailboxToken();
      const outcome = await this.insert(wanted, input.anonymous, (domain) => ({
        address: `${name}@${domain}`,
        local_part: name,
        domain,
        ref_code: refCode,
        token_hash: hash,
        created_at: now,
        max_bytes: input.maxBytes ?? null,
        bytes_bound: input.maxBytes === undefined ? null : 0,
      }), source, networkIds, ipHash, alongside);
      if (outcome === 'no_domain') throw await this.domains.notAvailable('domain', wanted, input.anonymous);
      if (outcome !== 'taken') return { address: outcome, refCode, source, token, createdAt: now };
      if (input.name || attempt >= 4) {
        throw new ConflictError('mailbox_exists', `Mailbox ${name}@${wanted ?? 'the default domain'} already exists`);
      }
    }
  }

  /**
   * The mailbox of an unknown address on a catch-all domain (docs/api.md, "Catch-all"): no token, no
   * attribution; readable with the API key and in the admin area. Created only while its domain is active
   * and catches all (read in the transaction); true when the mailbox exists afterwards (also when another
   * delivery created it a moment before).
   */
  async createCaught(address: string): Promise<boolean> {
    if (!this.catchable(address)) return false;
    const at = address.lastIndexOf('@');
    const name = address.slice(0, at);
    const domain = address.slice(at + 1);
    const now = this.clock.now();
    return inTransaction(this.db, async (tx) => {
      const row = await this.domains.catchAll(tx, domain);
      if (!row) return false;
      await insertMailbox(tx, { address, local_part: name, domain, ref_code: null, token_hash: NO_TOKEN, created_at: now });
      return true;
    });
  }

  /** A page of the mailboxes with no token, newest first (the admin's mail browser). */
  async withoutToken(limit: number, cursor: string | undefined): Promise<Page<{ address: string; domain: string; created_at: string }>> {
    const after = cursor === undefined ? undefined : decodeKey(cursor, ['number', 'string'] as const, 'mailboxes-without-token');
    const rows = await listMailboxesWithoutToken(this.db, limit + 1, after && { createdAt: after[0], address: after[1] });
    return keysetPage(
      rows,
      limit,
      (r) => [Number(r.created_at), r.address],
      (r) => ({ address: r.address, domain: r.domain, created_at: toIso(Number(r.created_at)) }),
      'mailboxes-without-token',
    );
  }

  /** Whether a catch-all domain may create this (normalised) address: its local part is one a mailbox may have. */
  catchable(address: string): boolean {
    const at = address.lastIndexOf('@');
    const name = localPart.safeParse(address.slice(0, at));
    return at > 0 && name.success && name.data === address.slice(0, at);
  }

  /** Inserts the mailbox on the wanted (else the first public) active domain, in one transaction with its referral: its address, or why not. */
  private async insert(
    wanted: string | null,
    anonymous: boolean,
    mailboxOn: (domain: string) => Mailbox,
    source: string | null,
    networkIds: string | null,
    ipHash: string | null,
    alongside?: (tx: Tx, address: string, now: number) => Promise<void>,
  ): Promise<string | 'taken' | 'no_domain'> {
    try {
      return await inTransaction(this.db, async (tx) => {
        const domain = await this.domains.forNewMailbox(tx, wanted, anonymous);
        if (!domain) return 'no_domain' as const;
        const mailbox = mailboxOn(domain);
        const { address, ref_code: refCode, created_at: now } = mailbox;
        const inserted = await insertMailbox(tx, mailbox);
        if (!inserted) return 'taken' as const;
        if (alongside) await alongside(tx, address, now);
        if (!refCode || !source) return address;
        await insertReferral(tx, {
          id: newId('ref', now),
          mailbox_address: address,
          ref_code: refCode,
          source,
          network_click_ids: networkIds,
          created_at: now,
          ip_hash: ipHash,
        });
        await bumpDailyStats(tx, refCode, utcDay(now), { mailboxes: 1 });
        return address;
      });
    } catch (err) {
      if (isUniqueViolation(err)) return 'taken';
      throw err;
    }
  }

  /** Network click ids of the click named by the svc_click cookie, only if that click was for this affiliate. */
  private async networkIdsFromClick(refCode: string, cookieClick: string | undefined): Promise<string | null> {
    if (!cookieClick || !/^\d{1,15}$/.test(cookieClick)) return null;
    const click = await this.clicks.networkIdsOf(refCode, Number(cookieClick));
    return click ? click.network_click_ids : null;
  }
}
