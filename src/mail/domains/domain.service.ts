import type { Clock } from '../../platform/clock.js';
import { type Db, type Executor, inTransaction } from '../../platform/db/database.js';
import { decodeKey, keysetPage, type Page } from '../../platform/db/keyset.js';
import { ConflictError, NotFoundError, ValidationError } from '../../platform/errors.js';
import {
  activeDomainForNewMailbox,
  catchAllDomain,
  type DomainRow,
  deleteDomainWithoutMailboxes,
  findDomains,
  insertDomain,
  listDomains,
  seedDomains,
  updateDomain,
} from './domain.repository.js';

/** A mail domain as the API shows it (times as epoch ms here; the route formats them). */
export interface MailDomain {
  readonly domain: string;
  readonly active: boolean;
  readonly catch_all: boolean;
  /** false: only the API key, the admin area and catch-all create mailboxes on it; anonymous clients do not see it. */
  readonly public: boolean;
  readonly created_at: number;
}

const LIST = 'domains';

function fromRow(r: DomainRow): MailDomain {
  return { domain: r.domain, active: Number(r.active) === 1, catch_all: Number(r.catch_all) === 1, public: Number(r.public) === 1, created_at: Number(r.created_at) };
}

/**
 * The mail domains (docs/api.md, "Domains"), read from the database by every instance. Nothing that can
 * change is cached: mailbox creation picks its domain inside its own transaction, and a recipient that is
 * not a known mailbox reads its domain's row fresh. The one cache is of domains seen to exist, asked only
 * for a recipient that is a mailbox: a domain with a mailbox cannot be deleted (409), so "it exists" never
 * goes stale for it (test/integration/domains.test.ts, "two instances").
 */
export class DomainService {
  private readonly seen = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** The domain a new mailbox goes to, read in the creating transaction (see activeDomainForNewMailbox). */
  forNewMailbox(tx: Executor, wanted: string | null, anonymous: boolean): Promise<string | undefined> {
    return activeDomainForNewMailbox(tx, wanted, anonymous);
  }

  /** `domain` when it is an active catch-all domain, read in the caller's transaction (see catchAllDomain). */
  catchAll(tx: Executor, domain: string): Promise<string | undefined> {
    return catchAllDomain(tx, domain);
  }

  /** SVC_MAIL_DOMAINS on a database that has no domain yet (every start; only the first on a database acts). */
  async seed(domains: readonly string[]): Promise<boolean> {
    return inTransaction(this.db, (tx) => seedDomains(tx, domains, this.clock.now()));
  }

  async list(): Promise<MailDomain[]> {
    return (await listDomains(this.db)).map(fromRow);
  }

  /** A page of the list, in the order added (GET /api/domains). */
  async page(limit: number, cursor: string | undefined): Promise<Page<MailDomain>> {
    const afterPosition = cursor === undefined ? undefined : decodeKey(cursor, ['number'] as const, LIST)[0];
    const rows = await listDomains(this.db, { afterPosition, limit: limit + 1 });
    return keysetPage(rows, limit, (r) => [Number(r.position)], fromRow, LIST);
  }

  async active(): Promise<MailDomain[]> {
    return (await this.list()).filter((d) => d.active);
  }

  /** The domains an anonymous client is offered (GET /public/config, the mail.tm `/domains`): active and public. */
  async offered(): Promise<MailDomain[]> {
    return (await this.active()).filter((d) => d.public);
  }

  async get(domain: string): Promise<MailDomain> {
    const [row] = await findDomains(this.db, [domain]);
    if (!row) throw new NotFoundError('domain_not_found', `No mail domain ${domain}`);
    return fromRow(row);
  }

  /** The current rows of these domains (fresh), by name. */
  async lookup(domains: readonly string[]): Promise<Map<string, MailDomain>> {
    const rows = await findDomains(this.db, [...new Set(domains)]);
    return new Map(rows.map((r) => [r.domain, fromRow(r)]));
  }

  /** Whether the domain of a known mailbox is one of ours (active or not). */
  async hasMailboxDomain(domain: string): Promise<boolean> {
    if (this.seen.has(domain)) return true;
    const found = (await this.lookup([domain])).has(domain);
    if (found) this.seen.add(domain);
    return found;
  }

  /** `domain` is normalised already (domain-name.ts, at the route's edge). */
  async add(input: { domain: string; active?: boolean; catch_all?: boolean; public?: boolean }): Promise<MailDomain> {
    const row = {
      domain: input.domain,
      active: input.active === false ? 0 : 1,
      catch_all: input.catch_all ? 1 : 0,
      public: input.public === false ? 0 : 1,
      created_at: this.clock.now(),
    };
    const inserted = await inTransaction(this.db, (tx) => insertDomain(tx, row));
    if (!inserted) throw new ConflictError('domain_exists', `The mail domain ${input.domain} exists already`);
    return this.get(input.domain);
  }

  async update(domain: string, patch: { active?: boolean; catch_all?: boolean; public?: boolean }): Promise<MailDomain> {
    const set: { active?: number; catch_all?: number; public?: number } = {};
    if (patch.active !== undefined) set.active = patch.active ? 1 : 0;
    if (patch.catch_all !== undefined) set.catch_all = patch.catch_all ? 1 : 0;
    if (patch.public !== undefined) set.public = patch.public ? 1 : 0;
    const row = await inTransaction(this.db, (tx) => updateDomain(tx, domain, set));
    if (!row) throw new NotFoundError('domain_not_found', `No mail domain ${domain}`);
    return fromRow(row);
  }

  /** Deletes a domain without mailboxes; one with mailboxes is 409 domain_in_use (deactivate it instead). */
  async remove(domain: string): Promise<void> {
    const outcome = await inTransaction(this.db, (tx) => deleteDomainWithoutMailboxes(tx, domain));
    if (outcome === 'missing') throw new NotFoundError('domain_not_found', `No mail domain ${domain}`);
    if (outcome === 'has_mailboxes') {
      throw new ConflictError('domain_in_use', `The mail domain ${domain} has mailboxes; deactivate it instead (its mailboxes keep receiving)`);
    }
    this.seen.delete(domain);
  }

  /**
   * The 400 of a mailbox asked for on a domain that takes none (`wanted`, or the default when null). An
   * anonymous client is told the domains it is offered, so a non-public domain is refused (and unnamed)
   * exactly like an unknown one.
   */
  async notAvailable(field: string, wanted: string | null, anonymous: boolean): Promise<ValidationError> {
    const names = (await (anonymous ? this.offered() : this.active())).map((d) => d.domain);
    let message = names.length > 0 ? `must be one of ${names.join(', ')}` : 'no mail domain takes new mailboxes (add or activate one)';
    // A trusted caller with only non-public domains active: the default picks public ones only, so name one.
    if (wanted === null && names.length > 0 && !anonymous) message = `no public mail domain is active to pick by default: name one of ${names.join(', ')}`;
    return new ValidationError([{ field, message }]);
  }
}
