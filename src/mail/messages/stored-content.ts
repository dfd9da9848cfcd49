import type { Db } from '../../platform/db/database.js';
import type { HtmlState, Mailbox } from '../../platform/db/schema.js';
import { type ContentPool, ContentJobFailed } from './content-pool.js';
import type { InlineImage } from './content-jobs.js';
import { type FullMessageRow, findAttachment, updateHtml } from './mail.repository.js';
import type { MailHeader } from './mail-source.js';
import { inlinable } from './stored-html.js';

/** The parts a source is composed from: the stored ones, with the HTML as given when it was kept. */
export function sourceParts<C>(
  mailbox: Mailbox,
  row: FullMessageRow,
  attachments: readonly { filename: string; content_type: string; content_id: string | null; content: C }[],
) {
  return {
    messageId: row.msgid ?? `<${row.id}@${mailbox.domain}>`,
    date: row.received_at,
    from: row.from_address,
    fromName: row.from_name,
    to: row.to_header,
    subject: row.subject,
    text: row.text,
    html: row.source_html ?? row.html,
    attachments: attachments.map((a) => ({ filename: a.filename, contentType: a.content_type, contentId: a.content_id, content: a.content })),
  };
}

/** What a read makes of a stored message in the content pool: its sanitised HTML (stored once), remote images shown, composed headers. */
export class StoredContent {
  constructor(
    private readonly db: Db,
    private readonly content: ContentPool,
  ) {}

  async composedHeaders(mailbox: Mailbox, row: FullMessageRow, attachments: readonly { filename: string; content_type: string; content_id: string | null }[]): Promise<MailHeader[]> {
    try {
      return await this.content.headers(sourceParts(mailbox, row, attachments.map((a) => ({ ...a, content: undefined }))));
    } catch (err) {
      if (err instanceof ContentJobFailed) return [];
      throw err;
    }
  }

  /** The rewrite runs in the content pool; over its limit the images simply stay blocked. */
  async withRemoteImages(html: string): Promise<string> {
    try {
      return await this.content.showRemoteImages(html);
    } catch (err) {
      if (err instanceof ContentJobFailed) return html;
      throw err;
    }
  }

  /**
   * A message's HTML is stored as received (`raw`) and sanitised in the content pool (within the time limit)
   * the first time it is read, its `cid:` images inlined; the result is stored, so each message is sanitised
   * once, and mail nobody reads never is. Over the limit: `dropped`, as at intake.
   */
  async storedHtml(
    mailbox: Mailbox,
    row: { id: string; html: string | null; html_state: HtmlState },
    attachments: readonly { id: string; content_id: string | null; content_type: string; size: number }[],
  ): Promise<{ html: string | null; state: HtmlState }> {
    if (row.html_state !== 'raw' || row.html === null) return { html: row.html, state: row.html_state };
    const inline = await this.inlineImages(mailbox, row.id, attachments);
    let result: { html: string | null; state: HtmlState };
    try {
      result = await this.content.sanitize({ html: row.html, inline });
    } catch (err) {
      if (!(err instanceof ContentJobFailed)) throw err;
      result = { html: null, state: 'dropped' };
    }
    await updateHtml(this.db, row.id, result.html, result.state);
    return result;
  }

  private async inlineImages(
    mailbox: Mailbox,
    messageId: string,
    attachments: readonly { id: string; content_id: string | null; content_type: string; size: number }[],
  ): Promise<InlineImage[]> {
    const images: InlineImage[] = [];
    for (const a of attachments) {
      if (!a.content_id || !inlinable(a.content_type, a.size)) continue;
      const row = await findAttachment(this.db, mailbox.address, messageId, a.id);
      if (row) images.push({ contentId: a.content_id, contentType: a.content_type, content: row.content });
    }
    return images;
  }
}
