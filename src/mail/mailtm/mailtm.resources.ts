import { addressParser } from 'postal-mime';
import { toIso } from '../../platform/clock.js';
import type { MailtmAccount } from '../../platform/db/schema.js';
import type { MailHeader } from '../messages/mail-source.js';
import type { MessageListRow } from './mailtm.repository.js';
import type { MailtmDomain, MailtmUsage } from './mailtm.service.js';

/** JSON-LD (mail.tm's default) or plain JSON, as the client's Accept asks. */
export type MailtmFormat = 'jsonld' | 'json';

const INTRO_CHARS = 120;

/** `Accept: application/json` (without ld+json) asks for plain JSON; anything else gets JSON-LD, as on mail.tm. */
export function formatOf(accept: string | undefined): MailtmFormat {
  const value = (accept ?? '').toLowerCase();
  if (value.includes('application/ld+json')) return 'jsonld';
  return value.includes('application/json') ? 'json' : 'jsonld';
}

export function contentTypeOf(format: MailtmFormat): string {
  return format === 'jsonld' ? 'application/ld+json; charset=utf-8' : 'application/json; charset=utf-8';
}

/** A resource answered on its own: with `@context`, `@id` and `@type` in JSON-LD. */
export function single(format: MailtmFormat, type: string, iri: string, body: Record<string, unknown>): Record<string, unknown> {
  return format === 'jsonld' ? { '@context': `/contexts/${type}`, '@id': iri, '@type': type, ...body } : body;
}

/** A list: a Hydra collection (JSON-LD) with its pages, or a plain array (JSON). */
export function collection(
  format: MailtmFormat,
  type: string,
  path: string,
  members: readonly { iri: string; body: Record<string, unknown> }[],
  page: { page: number; total: number; size: number },
): unknown {
  if (format === 'json') return members.map((m) => m.body);
  const last = Math.max(1, Math.ceil(page.total / page.size));
  const at = (n: number) => `${path}?page=${n}`;
  return {
    '@context': `/contexts/${type}`,
    '@id': path,
    '@type': 'hydra:Collection',
    'hydra:member': members.map((m) => ({ '@id': m.iri, '@type': type, ...m.body })),
    'hydra:totalItems': page.total,
    ...(page.total > page.size
      ? {
          'hydra:view': {
            '@id': at(page.page),
            '@type': 'hydra:PartialCollectionView',
            'hydra:first': at(1),
            'hydra:last': at(last),
            ...(page.page > 1 ? { 'hydra:previous': at(Math.min(page.page - 1, last)) } : {}),
            ...(page.page < last ? { 'hydra:next': at(page.page + 1) } : {}),
          },
        }
      : {}),
  };
}

/** Only active domains are listed (an inactive one takes no new account); a domain is never edited but for that. */
export function domainBody(d: MailtmDomain) {
  return { id: d.id, domain: d.domain, isActive: true, isPrivate: false, createdAt: toIso(d.createdAt), updatedAt: toIso(d.createdAt) };
}

export function accountBody(a: MailtmAccount, usage: MailtmUsage) {
  return {
    id: a.id,
    address: a.address,
    quota: usage.quota,
    used: usage.used,
    isDisabled: false,
    isDeleted: false,
    createdAt: toIso(a.created_at),
    updatedAt: toIso(a.updated_at),
  };
}

/** Addresses of a header as mail.tm lists them ({address, name}); groups are flattened. */
export function addressList(header: string | null): { address: string; name: string }[] {
  if (!header) return [];
  const out: { address: string; name: string }[] = [];
  const visit = (list: ReturnType<typeof addressParser>) => {
    for (const a of list) {
      if ('group' in a && Array.isArray(a.group)) visit(a.group);
      else if ('address' in a) out.push({ address: a.address ?? '', name: a.name ?? '' });
    }
  };
  try {
    visit(addressParser(header));
  } catch {
    return [];
  }
  return out;
}

function intro(text: string | null): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > INTRO_CHARS ? `${flat.slice(0, INTRO_CHARS - 1)}…` : flat;
}

function messageId(msgid: string | null, id: string, address: string): string {
  return msgid ?? `<${id}@${address.slice(address.lastIndexOf('@') + 1)}>`;
}

function common(accountId: string, m: { id: string; mailbox: string; msgid: string | null; from: string | null; fromName: string | null; to: string | null; subject: string | null; seen: boolean; attachments: number; size: number; receivedAt: number }) {
  const created = toIso(m.receivedAt);
  return {
    id: m.id,
    accountId: `/accounts/${accountId}`,
    msgid: messageId(m.msgid, m.id, m.mailbox),
    from: { address: m.from ?? '', name: m.fromName ?? '' },
    to: addressList(m.to),
    subject: m.subject ?? '',
    seen: m.seen,
    isDeleted: false,
    hasAttachments: m.attachments > 0,
    size: m.size,
    downloadUrl: `/messages/${m.id}/download`,
    createdAt: created,
    updatedAt: created,
  };
}

/** A list item (also what the live stream sends for a new message). */
export function messageItemBody(accountId: string, r: MessageListRow) {
  return {
    ...common(accountId, {
      id: r.id,
      mailbox: r.mailbox_address,
      msgid: r.msgid,
      from: r.from_address,
      fromName: r.from_name,
      to: r.to_header,
      subject: r.subject,
      seen: Number(r.seen) !== 0,
      attachments: r.attachments_count,
      size: r.size,
      receivedAt: r.received_at,
    }),
    intro: intro(r.intro_text),
  };
}

export interface ReadMessage {
  readonly id: string;
  readonly mailbox: string;
  readonly from: string | null;
  readonly from_name: string | null;
  readonly to: string | null;
  readonly subject: string | null;
  readonly received_at: string;
  readonly size: number;
  readonly attachments_count: number;
  readonly seen: boolean;
  readonly text: string | null;
  readonly html: string | null;
  readonly attachments: readonly { id: string; filename: string; content_type: string; size: number }[];
  readonly headers: readonly MailHeader[];
}

/** The whole message; `retentionDate` is when retention (mailbox_ttl_hours) deletes it. */
export function messageBody(accountId: string, m: ReadMessage, contentIds: ReadonlyMap<string, string | null>, ttlHours: number) {
  const header = (name: string) => m.headers.find((h) => h.name.toLowerCase() === name)?.value ?? null;
  const receivedAt = Date.parse(m.received_at);
  return {
    ...common(accountId, {
      id: m.id,
      mailbox: m.mailbox,
      msgid: header('message-id'),
      from: m.from,
      fromName: m.from_name,
      to: m.to,
      subject: m.subject,
      seen: m.seen,
      attachments: m.attachments_count,
      size: m.size,
      receivedAt,
    }),
    cc: addressList(header('cc')).map((a) => a.address),
    bcc: [] as string[],
    flagged: false,
    verifications: [] as string[],
    retention: true,
    retentionDate: toIso(receivedAt + ttlHours * 3_600_000),
    text: m.text ?? '',
    html: m.html === null ? [] : [m.html],
    attachments: m.attachments.map((a) => ({
      id: a.id,
      filename: a.filename,
      contentType: a.content_type,
      disposition: contentIds.get(a.id) ? ('inline' as const) : ('attachment' as const),
      transferEncoding: 'base64',
      related: !!contentIds.get(a.id),
      size: a.size,
      downloadUrl: `/messages/${m.id}/attachment/${a.id}`,
    })),
    sourceUrl: `/sources/${m.id}`,
  };
}
