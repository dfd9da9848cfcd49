import type { ColumnType, Generated, Selectable } from 'kysely';

// The mail area's tables: outbound mail, domains, mailboxes, messages, mail.tm accounts (the Database type and the row types are in schema.ts).

/** A mail svc sends (migration 0060); its sending state is the `deliveries` row with target `mail` and event_id = id. */
export interface OutboundMailTable {
  id: string;
  to_address: string;
  template: string;
  subject: string;
  text_body: string;
  html_body: string;
  message_id: string;
  created_at: number;
}

/**
 * A mail domain (0070): the order added (`position`), whether it takes new mailboxes, whether it catches all,
 * and (0102) whether anonymous clients may create mailboxes on it and see it listed (`public`, 1 by default).
 */
export interface MailDomainsTable {
  domain: string;
  position: number;
  active: number;
  catch_all: number;
  public: number;
  created_at: number;
}

export interface MailboxesTable {
  address: string;
  local_part: string;
  domain: string;
  ref_code: string | null;
  /** sha256 of its bearer token; '' for a mailbox with no token (created by a catch-all domain): no token matches it. */
  token_hash: string;
  created_at: number;
  /** The byte quota of its messages (docs/mailtm.md#the-quota: a mail.tm account's); null: none. Set at creation, never changed (0046). */
  max_bytes: ColumnType<number | null, number | null | undefined, never>;
  /** With a quota: never below the bytes its messages hold (byte-quota.ts); null otherwise. */
  bytes_bound: ColumnType<number | null, number | null | undefined, number | null>;
}

/** One copy of an inbound message in one mailbox (migration 0005-mail). */
export interface MessagesTable {
  seq: Generated<number>;
  id: string;
  mailbox_address: string;
  from_address: string | null;
  from_name: string | null;
  to_header: string | null;
  subject: string | null;
  size: number;
  attachments_count: number;
  received_at: number;
  /** 0 until read (or marked seen), 1 after; per mailbox copy (migration 0030). */
  seen: number;
  /** The verification code found at intake (0035-message-code), or null. */
  code: string | null;
}

/** none | raw (as received; sanitised on first read) | clean (sanitised) | dropped (too deeply nested, or could not be sanitised in time). */
export type HtmlState = 'none' | 'clean' | 'dropped' | 'raw';

/** The content of one message id, shared by its mailbox copies (migration 0007-mail-contents). */
export interface MessageContentsTable {
  id: string;
  /** How many `messages` rows (mailbox copies) share it; it goes with the last one. */
  refs: number;
  text: string | null;
  html: string | null;
  html_state: HtmlState;
  /** The raw RFC 822 source as received over SMTP, its first chunk (the rest: message_source_chunks; migration 0030); null when it is composed from the parts. */
  source: Buffer | null;
  /** The headers as JSON `[{name, value}]`, parsed once at intake (migration 0030); null before it. */
  headers: string | null;
  /** The Message-ID header (migration 0030); null before it or when the source has none. */
  msgid: string | null;
  /** The HTML as received, for a source composed from the parts (POST /api/inbound; migration 0032). */
  source_html: string | null;
  /** The message's http(s) links as a JSON array of strings (migration 0080); null before it. */
  links: string | null;
  /** The link that confirms (src/mail/messages/links.ts), or null (migration 0080). */
  verification_link: string | null;
}

/** Attachment bytes, once per message id (`copy_seq` is set only on rows stored before 0007). */
export interface MessageAttachmentsTable {
  id: string;
  message_id: string;
  copy_seq: number | null;
  position: number;
  filename: string;
  content_type: string;
  content_id: string | null;
  size: number;
  content: Buffer;
}

/** The chunks of a message's source after the first (which is message_contents.source), migration 0030. */
export interface MessageSourceChunksTable {
  message_id: string;
  position: number;
  bytes: Buffer;
}

/** A mail.tm-compatible account: a mailbox with a password (migration 0031). */
export interface MailtmAccountsTable {
  id: string;
  address: string;
  password_hash: string;
  created_at: number;
  updated_at: number;
}

/** A bearer token of the mail.tm API, stored as its sha256 (migration 0031). */
export interface MailtmTokensTable {
  token_hash: string;
  account_id: string;
  created_at: number;
  expires_at: number;
}

export type MailtmAccount = Selectable<MailtmAccountsTable>;
