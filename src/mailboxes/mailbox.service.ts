import { z } from 'zod';
import type { AffiliateService } from '../affiliates/affiliate.service.js';
import type { Mailbox } from '../db/schema.js';
import { findClickNetworkIds } from '../clicks/click.repository.js';
import { type Clock, toIso, utcDay } from '../clock.js';
import { type Db, inTransaction, isUniqueViolation, type Tx } from '../db/database.js';
import { ConflictError, ValidationError } from '../errors.js';
import { newId, randomToken } from '../ids.js';
import { bumpDailyStats } from '../ledger/counters.repository.js';
import { newMailboxToken } from './mailbox-token.js';
import { insertMailbox, insertReferral } from './mailbox.repository.js';

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
 * CONTRACT §4 names the code `ref` on the public route and `ref_code` under /api; each route takes the
 * other name too (the same value, or 400), since a client mixing them up would otherwise lose the
 * attribution to an "unknown field" it might not read. Other unknown fields are still refused.
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
  readonly name?: string | null;
  readonly domain?: string | null;
  /** `ref` of the public route or `ref_code` of the API route. */
  readonly ref?: string | null;
  /** The svc_ref cookie, when the request carried one. */
  readonly cookieRef?: string;
  /** The svc_click cookie (id of the click with network click ids), when present. */
  readonly cookieClick?: string;
  /** A byte quota for its messages (a mail.tm account's, CONTRACT §16); none by default. */
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
    private readonly mailDomains: readonly string[],
    private readonly affiliates: AffiliateService,
  ) {}

  /**
   * Creates a mailbox and, when attributed, its one referral and the daily counter, all in one
   * transaction. Attribution: explicit ref naming an active affiliate > cookie naming one > none.
   * `alongside` writes what else a mailbox is created with (a mail.tm account) in that transaction.
   */
  async create(input: CreateMailboxInput, alongside?: (tx: Tx, address: string, now: number) => Promise<void>): Promise<CreatedMailbox> {
    const domainName = input.domain ?? this.mailDomains[0];
    if (!domainName || !this.mailDomains.includes(domainName)) {
      throw new ValidationError([{ field: 'domain', message: `must be one of ${this.mailDomains.join(', ')}` }]);
    }

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

    // A random name can collide (32^10 names, so practically never); try again with a fresh one.
    for (let attempt = 0; ; attempt++) {
      const name = input.name ?? randomToken(RANDOM_NAME_LENGTH);
      const address = `${name}@${domainName}`;
      const now = this.clock.now();
      const { token, hash } = newMailboxToken();
      const mailbox: Mailbox = {
        address,
        local_part: name,
        domain: domainName,
        ref_code: refCode,
        token_hash: hash,
        created_at: now,
        max_bytes: input.maxBytes ?? null,
        bytes_bound: input.maxBytes === undefined ? null : 0,
      };
      const inserted = await this.insert(mailbox, source, networkIds, alongside);
      if (inserted) return { address, refCode, source, token, createdAt: now };
      if (input.name || attempt >= 4) throw new ConflictError('mailbox_exists', `Mailbox ${address} already exists`);
    }
  }

  private async insert(
    mailbox: Mailbox,
    source: string | null,
    networkIds: string | null,
    alongside?: (tx: Tx, address: string, now: number) => Promise<void>,
  ): Promise<boolean> {
    const { address, ref_code: refCode, created_at: now } = mailbox;
    try {
      return await inTransaction(this.db, async (tx) => {
        const inserted = await insertMailbox(tx, mailbox);
        if (inserted && alongside) await alongside(tx, address, now);
        if (!inserted || !refCode || !source) return inserted;
        await insertReferral(tx, {
          id: newId('ref', now),
          mailbox_address: address,
          ref_code: refCode,
          source,
          network_click_ids: networkIds,
          created_at: now,
        });
        await bumpDailyStats(tx, refCode, utcDay(now), { mailboxes: 1 });
        return true;
      });
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  /** Network click ids of the click named by the svc_click cookie, only if that click was for this affiliate. */
  private async networkIdsFromClick(refCode: string, cookieClick: string | undefined): Promise<string | null> {
    if (!cookieClick || !/^\d{1,15}$/.test(cookieClick)) return null;
    const click = await findClickNetworkIds(this.db, Number(cookieClick));
    return click && click.ref_code === refCode ? click.network_click_ids : null;
  }
}
