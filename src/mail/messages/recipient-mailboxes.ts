import type { Db } from '../../platform/db/database.js';
import type { DomainService } from '../domains/domain.service.js';
import { mailboxesAt as findMailboxesByAddresses, normalizeAddress } from '../mailboxes/mailbox.service.js';
import type { MailboxService } from '../mailboxes/mailbox.service.js';
import type { CatchAllCap } from './catch-all-cap.js';
import { domainOf, isAddress } from './recipients.js';

const KNOWN_MAILBOX_CACHE = 100_000;

/** What SMTP answers a recipient (MailService.acceptsRecipient). */
export type RecipientCheck = { readonly kind: 'accepted' | 'unknown' } | { readonly kind: 'over_cap'; readonly retryAt: number };

/** Which recipients of a message are (or become, on a catch-all domain) mailboxes: SMTP's RCPT TO and the intake's. */
export class RecipientMailboxes {
  private readonly knownMailboxes = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly domains: DomainService,
    private readonly mailboxes: MailboxService,
    private readonly catchAllCap: CatchAllCap,
  ) {}

  /**
   * SMTP's RCPT TO: `accepted` for a mailbox on one of our domains (active or not), or for an unknown
   * address on an active catch-all domain while the connecting client (`client`, a clientKey of the SMTP
   * client's address) and the domain are under the catch-all cap (counted here: the mailbox is created
   * when the message is delivered); `over_cap` (retry at `retryAt`) when the cap refuses it; else
   * `unknown` (550).
   */
  async accepts(address: string, client: string): Promise<RecipientCheck> {
    const normalized = normalizeAddress(address);
    if (!isAddress(normalized)) return { kind: 'unknown' };
    if ((await this.known([normalized])).length > 0) return { kind: 'accepted' };
    const domain = (await this.domains.lookup([domainOf(normalized)])).get(domainOf(normalized));
    if (!domain?.active || !domain.catch_all || !this.mailboxes.catchable(normalized)) return { kind: 'unknown' };
    const refused = await this.catchAllCap.take(client, domain.domain);
    return refused ? { kind: 'over_cap', retryAt: refused.retryAt } : { kind: 'accepted' };
  }

  /**
   * The recipients the message is stored for: the known mailboxes on our domains, and the unknown
   * addresses on active catch-all domains, whose mailboxes are created now (each counted against the
   * catch-all cap unless the SMTP RCPT already counted it per client: POST /api/inbound counts against
   * the domain's cap only, see catch-all-cap.ts). `overCap`: a recipient the cap refused.
   */
  async storedFor(
    recipients: readonly string[],
    capCounted: boolean,
  ): Promise<{ addresses: string[]; overCap?: { retryAt: number } }> {
    const wanted = [...new Set(recipients.map(normalizeAddress))];
    const known = new Set(await this.known(wanted));
    const unknown = wanted.filter((a) => !known.has(a) && isAddress(a));
    let overCap: { retryAt: number } | undefined;
    if (unknown.length > 0) {
      const domains = await this.domains.lookup(unknown.map(domainOf));
      for (const address of unknown) {
        const domain = domains.get(domainOf(address));
        if (!domain?.active || !domain.catch_all || !this.mailboxes.catchable(address)) continue;
        if (!capCounted) {
          const refused = await this.catchAllCap.take(null, domain.domain);
          if (refused) {
            overCap = refused;
            continue;
          }
        }
        if (await this.mailboxes.createCaught(address)) {
          known.add(address);
          this.knownMailboxes.add(address);
        }
      }
    }
    return { addresses: wanted.filter((a) => known.has(a)), overCap };
  }

  /**
   * The recipients that are mailboxes on one of our domains, in recipient order. Mailboxes are never deleted (attribution
   * keeps them), so an address once found is remembered; only unknown ones are looked up, and a miss
   * is not remembered (the mailbox may be created a moment later).
   */
  private async known(recipients: readonly string[]): Promise<string[]> {
    const wanted = [...new Set(recipients.map(normalizeAddress))];
    const missing = wanted.filter((a) => !this.knownMailboxes.has(a));
    if (missing.length > 0) {
      if (this.knownMailboxes.size > KNOWN_MAILBOX_CACHE) this.knownMailboxes.clear();
      for (const m of await findMailboxesByAddresses(this.db, missing)) this.knownMailboxes.add(m.address);
    }
    const known: string[] = [];
    // A mailbox on a domain that is not (or no longer, for one that predates the list) ours takes no mail.
    for (const a of wanted) if (this.knownMailboxes.has(a) && (await this.domains.hasMailboxDomain(domainOf(a)))) known.push(a);
    return known;
  }
}
