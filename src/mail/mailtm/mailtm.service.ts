import { createHash, randomBytes } from 'node:crypto';
import { hashPassword, verifyPassword } from '../../platform/auth/password.js';
import { sha256Hex } from '../../platform/auth/secrets.js';
import type { Clock } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import type { Mailbox, MailtmAccount } from '../../platform/db/schema.js';
import { AppError, type FieldIssue, NotFoundError, UnauthorizedError } from '../../platform/errors.js';
import type { MailReader } from '../messages/mail-reader.service.js';
import type { MailService } from '../messages/mail.service.js';
import type { DomainService } from '../domains/domain.service.js';
import { type CreatedMailbox, localPart, type MailboxService, mailboxAt as findMailbox, normalizeAddress } from '../mailboxes/mailbox.service.js';
import {
  countMessages,
  deleteAccount,
  deleteExpiredTokens,
  deleteMailboxMessages,
  findAccountByAddress,
  findAccountByToken,
  findAccountById,
  findAccountMessageListRow,
  insertAccount,
  insertToken,
  listMessagePage,
  type MessageListRow,
} from './mailtm.repository.js';

/** mail.tm answers 30 items per page. */
export const MAILTM_PAGE_SIZE = 30;
/** How long a token of POST /token lets its holder in. */
export const MAILTM_TOKEN_TTL_MS = 7 * 24 * 3_600_000;
export const MAILTM_PASSWORD = Object.freeze({ min: 6, max: 200 });

/** mail.tm's 422: the request was understood but a value is not acceptable (bad address, taken, short password). */
export class UnprocessableError extends AppError {
  constructor(details: readonly FieldIssue[]) {
    super(422, 'invalid_request', details.map((d) => `${d.field}: ${d.message}`).join('; '), details);
  }
}

export interface MailtmUsage {
  /** Bytes (mail.tm's `quota`). */
  readonly quota: number;
  /** Bytes its messages hold (mail.tm's `used`), never above `quota` (docs/mailtm.md#the-quota). */
  readonly used: number;
}

/** An account's mailbox is created with its byte quota (register; 0046 for the accounts before). */
function quotaOf(mailbox: Mailbox): number {
  if (mailbox.max_bytes === null) throw new Error(`the mailbox of the account ${mailbox.address} has no byte quota`);
  return Number(mailbox.max_bytes);
}

export interface MailtmDomain {
  readonly id: string;
  readonly domain: string;
  /** When it was added (epoch ms). */
  readonly createdAt: number;
}

export interface RegisterInput {
  readonly address: string;
  readonly password: string;
  readonly ref?: string | null;
  readonly cookieRef?: string;
  readonly cookieClick?: string;
}

// A password check against this when the account does not exist, so a miss costs what a wrong password does.
const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/**
 * The mail.tm-compatible API over svc's mailboxes (docs/mailtm.md#the-mailtm-compatible-api): an account is a
 * mailbox created the way POST /mailboxes creates one (attributed the same way) plus a password; tokens are
 * looked up, not verified by signature; messages are the mailbox's, read through MailReader like the inbox
 * reads them.
 */
export class MailtmService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly mailDomains: DomainService,
    private readonly mailboxes: MailboxService,
    private readonly reader: MailReader,
    private readonly mail: MailService,
    /** The byte quota a new account's mailbox gets (config.mailtmQuotaBytes). */
    private readonly quotaBytes: number,
  ) {}

  /**
   * The mail domains an anonymous client is offered (active and public), read at each call (a domain added on
   * any instance is listed at once), with a stable id each (the first 24 hex digits of its sha256).
   */
  async domains(): Promise<MailtmDomain[]> {
    return (await this.mailDomains.offered()).map(({ domain, created_at }) => ({ id: createHash('sha256').update(domain).digest('hex').slice(0, 24), domain, createdAt: created_at }));
  }

  /** POST /accounts: a mailbox and its account in one transaction; 422 for an address or password mail.tm would refuse. */
  async register(input: RegisterInput): Promise<{ account: MailtmAccount; mailbox: CreatedMailbox; usage: MailtmUsage }> {
    const issues: FieldIssue[] = [];
    const address = normalizeAddress(input.address);
    const at = address.lastIndexOf('@');
    const name = localPart.safeParse(at > 0 ? address.slice(0, at) : '');
    const domain = at > 0 ? address.slice(at + 1) : '';
    if (!name.success) issues.push({ field: 'address', message: 'is not a valid address (letters, digits and . _ + - before the @)' });
    else {
      const active = (await this.domains()).map((d) => d.domain);
      if (!active.includes(domain)) issues.push({ field: 'address', message: `must be on one of the domains ${active.join(', ')}` });
    }
    if (input.password.length < MAILTM_PASSWORD.min) issues.push({ field: 'password', message: `must have at least ${MAILTM_PASSWORD.min} characters` });
    if (issues.length > 0 || !name.success) throw new UnprocessableError(issues);
    const passwordHash = await hashPassword(input.password);
    const id = randomBytes(12).toString('hex');
    let account: MailtmAccount | undefined;
    try {
      const wanted = { anonymous: true, name: name.data, domain, ref: input.ref, cookieRef: input.cookieRef, cookieClick: input.cookieClick, maxBytes: this.quotaBytes };
      const mailbox = await this.mailboxes.create(wanted, async (tx, created, now) => {
        account = { id, address: created, password_hash: passwordHash, created_at: now, updated_at: now };
        await insertAccount(tx, account);
      });
      if (!account) throw new Error('the account is inserted with its mailbox');
      return { account, mailbox, usage: { quota: this.quotaBytes, used: 0 } };
    } catch (err) {
      if (err instanceof AppError && err.code === 'mailbox_exists') throw new UnprocessableError([{ field: 'address', message: 'This value is already used.' }]);
      throw err;
    }
  }

  /** POST /token: a new bearer token for the account, or 401 (an unknown address costs the same time as a wrong password). */
  async issueToken(address: string, password: string): Promise<{ token: string; id: string }> {
    const account = await findAccountByAddress(this.db, normalizeAddress(address));
    const ok = await verifyPassword(password, account?.password_hash ?? DUMMY_HASH);
    if (!account || !ok) throw new UnauthorizedError('Invalid credentials.');
    const now = this.clock.now();
    const expires = now + MAILTM_TOKEN_TTL_MS;
    // JWT-shaped, as mail.tm's are (clients may read the id from the middle part); checked by lookup of its sha256.
    const token = [
      base64url({ typ: 'JWT', alg: 'HS256' }),
      base64url({
        iat: Math.floor(now / 1000),
        exp: Math.floor(expires / 1000),
        roles: ['ROLE_USER'],
        address: account.address,
        id: account.id,
        mercure: { subscribe: [`/accounts/${account.id}`] },
      }),
      randomBytes(32).toString('base64url'),
    ].join('.');
    await deleteExpiredTokens(this.db, now);
    await insertToken(this.db, { token_hash: sha256Hex(token), account_id: account.id, created_at: now, expires_at: expires });
    return { token, id: account.id };
  }

  /** The account of a bearer token; 401 when missing, unknown or expired. */
  async authenticate(token: string | undefined): Promise<MailtmAccount> {
    const account = token ? await findAccountByToken(this.db, sha256Hex(token), this.clock.now()) : undefined;
    if (!account) throw new UnauthorizedError('Invalid or expired JWT Token');
    return account;
  }

  /** The inbox routes accept a mail.tm token of the mailbox's own account too (an account is a mailbox). */
  async mailboxForToken(address: string, token: string | undefined): Promise<Mailbox | undefined> {
    if (!token) return undefined;
    const account = await findAccountByToken(this.db, sha256Hex(token), this.clock.now());
    if (!account || account.address !== normalizeAddress(address)) return undefined;
    return findMailbox(this.db, account.address);
  }

  /** The account named in a path, only when it is the token's own (another's is as unknown as a missing one). */
  ownAccount(account: MailtmAccount, id: string): MailtmAccount {
    if (id !== account.id) throw new NotFoundError('not_found', 'Not Found');
    return account;
  }

  /** The account's `quota` and `used`: its mailbox's byte quota and the bytes its messages hold, the measure the intake keeps within the quota. */
  async usage(account: MailtmAccount): Promise<MailtmUsage> {
    const mailbox = await this.mailbox(account);
    return { quota: quotaOf(mailbox), used: await this.reader.storedBytes(mailbox) };
  }

  /** DELETE /accounts/{id}: the account, its tokens and its messages; the mailbox stays (attribution keeps it) and its address stays taken. */
  async deleteAccount(account: MailtmAccount): Promise<void> {
    // Its live streams end with it, on every instance (docs/mailtm.md#deleting-an-account-ends-its-streams).
    await this.mail.endingStreams(account.address, async (tx) => {
      const ids = await deleteMailboxMessages(tx, account.address);
      await this.mail.releaseContents(tx, ids);
      await deleteAccount(tx, account.id);
    });
  }

  /** One page (from 1) of the account's messages, newest first, and how many there are in all. */
  async messages(account: MailtmAccount, page: number): Promise<{ rows: MessageListRow[]; total: number }> {
    const [rows, total] = await Promise.all([
      listMessagePage(this.db, account.address, MAILTM_PAGE_SIZE, (page - 1) * MAILTM_PAGE_SIZE),
      countMessages(this.db, account.address),
    ]);
    return { rows, total };
  }

  /**
   * A new message as the live stream sends it; undefined when it is already gone, 'account_gone' when the
   * account is (docs/mailtm.md#deleting-an-account-ends-its-streams: nothing more is sent on its streams,
   * whichever instance holds them).
   */
  async streamItem(account: MailtmAccount, id: string): Promise<MessageListRow | undefined | 'account_gone'> {
    const row = await findAccountMessageListRow(this.db, account.id, id);
    if (row) return row;
    return (await this.accountExists(account)) ? undefined : 'account_gone';
  }

  async accountExists(account: MailtmAccount): Promise<boolean> {
    return (await findAccountById(this.db, account.id)) !== undefined;
  }

  /**
   * One message (read like the inbox reads it, so reading marks it seen), with what mail.tm's Message
   * adds: the Message-ID and each attachment's content id (inline or attached).
   */
  async message(account: MailtmAccount, id: string) {
    const mailbox = await this.mailbox(account);
    const message = await this.reader.read(mailbox, id);
    return { message, contentIds: await this.reader.attachmentContentIds(mailbox, id) };
  }

  async setSeen(account: MailtmAccount, id: string, seen: boolean): Promise<void> {
    await this.reader.setSeen(await this.mailbox(account), id, seen);
  }

  async deleteMessage(account: MailtmAccount, id: string): Promise<void> {
    await this.reader.remove(await this.mailbox(account), id);
  }

  async source(account: MailtmAccount, id: string): Promise<Buffer> {
    return this.reader.source(await this.mailbox(account), id);
  }

  async attachment(account: MailtmAccount, id: string, attachmentId: string) {
    return this.reader.attachment(await this.mailbox(account), id, attachmentId);
  }

  async mailbox(account: MailtmAccount): Promise<Mailbox> {
    const mailbox = await findMailbox(this.db, account.address);
    if (!mailbox) throw new NotFoundError('not_found', 'Not Found');
    return mailbox;
  }
}
