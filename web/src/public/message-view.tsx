import { useState } from 'preact/hooks';
import { type Answer, request } from '../api';
import { bytes, dateTime, relative } from '../format';
import { CopyButton, confirmAction, ErrorBox, Loading, useAsync, useSubmit } from '../ui';
import type { StoredMailbox } from './mailbox-store';

export type MessageDetail = Answer<'GET /mailboxes/{address}/messages/{id}'>['message'];
type Attachment = MessageDetail['attachments'][number];

const enc = encodeURIComponent;

export function mailboxUrl(m: StoredMailbox, rest = ''): string {
  return `/mailboxes/${enc(m.address)}${rest}`;
}

export function auth(m: StoredMailbox) {
  return { authorization: `Bearer ${m.token}` };
}

/** How the reader reaches one mailbox: with its token (the inbox) or with the admin session (the admin's mail browser). */
export interface MailboxAccess {
  readonly address: string;
  /** The URL of `rest` under the mailbox (`/messages/…`). */
  url(rest: string): string;
  readonly headers: Record<string, string>;
  /** Query parameters a frame needs to authenticate (it cannot send headers): `token=…` or nothing. */
  readonly frameQuery: string;
}

export function tokenAccess(m: StoredMailbox): MailboxAccess {
  return { address: m.address, url: (rest) => mailboxUrl(m, rest), headers: auth(m), frameQuery: `token=${enc(m.token)}` };
}

/** The admin session reads any mailbox under /admin/api (its cookie goes with same-origin requests and frames). */
export function adminAccess(address: string): MailboxAccess {
  return { address, url: (rest) => `/admin/api/mailboxes/${enc(address)}${rest}`, headers: {}, frameQuery: '' };
}

/** The reader's views of one message; those the message has nothing for are left out. */
export type ReaderTab = 'html' | 'text' | 'source' | 'headers';

const TAB_LABELS: Record<ReaderTab, string> = { html: 'HTML', text: 'Text', source: 'Source', headers: 'Headers' };

export function availableTabs(m: MessageDetail): ReaderTab[] {
  const tabs: ReaderTab[] = [];
  if (m.html) tabs.push('html');
  if (m.text || !m.html) tabs.push('text');
  tabs.push('source', 'headers');
  return tabs;
}

/** The raw RFC 822 source, fetched with the token when its tab is opened. */
function SourceView({ mailbox, id }: { mailbox: MailboxAccess; id: string }) {
  const source = useAsync(async () => {
    const res = await fetch(mailbox.url(`/messages/${enc(id)}/source`), { headers: mailbox.headers, credentials: 'same-origin' });
    if (!res.ok) throw new Error(`The source could not be loaded (${res.status})`);
    return res.text();
  }, `source:${id}`);
  if (source.loading && source.data === undefined) return <Loading what="Loading the source" />;
  if (source.error) return <ErrorBox error={source.error} onRetry={source.reload} />;
  return (
    <pre class="mail-source" data-testid="source">
      {source.data}
    </pre>
  );
}

function HeadersView({ headers }: { headers: MessageDetail['headers'] }) {
  if (headers.length === 0) return <p class="muted">This message was stored before headers were kept.</p>;
  return (
    <div class="table-wrap">
      <table class="mail-headers">
        <tbody>
          {headers.map((h, i) => (
            // headers repeat (Received) and keep their order: the position is their identity
            <tr key={i}>
              <th scope="row">{h.name}</th>
              <td>{h.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A verification code, large and with a copy button (the inbox list shows the same). */
export function CodeBadge({ code, big = false }: { code: string; big?: boolean }) {
  return (
    <span class={`code-badge ${big ? 'code-big' : ''}`}>
      <span class="muted small">Code</span> <code data-testid="code">{code}</code> <CopyButton text={code} label="Copy code" />
    </span>
  );
}

export function MessageView({
  mailbox,
  id,
  ttlHours,
  tab,
  onTab,
  onDeleted,
  onBack,
  onSeen,
}: {
  mailbox: MailboxAccess;
  id: string;
  ttlHours?: number;
  tab?: string;
  onTab: (tab: ReaderTab) => void;
  onDeleted: () => void;
  onBack: () => void;
  /** The message was read (opening it marks it read) or marked unread again. */
  onSeen: (id: string, seen: boolean) => void;
}) {
  const msg = useAsync(async () => {
    // Reading the message marks it read on the service; the list is told at once.
    const answer = await request<{ message: MessageDetail }>(mailbox.url(`/messages/${enc(id)}`), { headers: mailbox.headers });
    onSeen(id, answer.message.seen);
    return answer;
  }, id);
  const { error, run } = useSubmit();
  // Remote images are this message's choice only: the view is keyed by message, so the next one starts blocked again.
  const [remoteImages, setRemoteImages] = useState(false);

  const remove = async () => {
    if (!(await confirmAction('Delete this message?', 'Delete', <p>It cannot be recovered.</p>))) return;
    await run(async () => {
      await request(mailbox.url(`/messages/${enc(id)}`), { method: 'DELETE', headers: mailbox.headers });
      onDeleted();
    });
  };

  const markUnread = () =>
    run(async () => {
      await request(mailbox.url(`/messages/${enc(id)}`), { method: 'PATCH', headers: mailbox.headers, body: { seen: false } });
      onSeen(id, false);
      onBack();
    });

  const download = (a: Attachment) =>
    run(async () => {
      // The token travels in a header, so the download goes through fetch and a blob link.
      const res = await fetch(mailbox.url(`/messages/${enc(id)}/attachments/${enc(a.id)}`), { headers: mailbox.headers, credentials: 'same-origin' });
      if (!res.ok) throw new Error(`Download failed (${res.status})`);
      const url = URL.createObjectURL(await res.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = a.filename || 'attachment';
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    });

  const back = (
    <button type="button" class="btn btn-small back-to-list" onClick={onBack}>
      ← Inbox
    </button>
  );
  if (msg.loading && !msg.data) return <>{back}<Loading what="Opening message" /></>;
  if (msg.error)
    return (
      <>
        {back}
        <ErrorBox error={msg.error} onRetry={msg.reload} />
      </>
    );
  const m = msg.data?.message;
  if (!m) return null;
  const tabs = availableTabs(m);
  const current: ReaderTab = tabs.includes(tab as ReaderTab) ? (tab as ReaderTab) : tabs[0]!;
  const frameQuery = [mailbox.frameQuery, remoteImages ? 'remote_images=true' : ''].filter(Boolean).join('&');
  return (
    <article class="message">
      {back}
      <header class="message-head">
        <h2>{m.subject || '(no subject)'}</h2>
        <p class="small">
          From <strong>{m.from_name || m.from || 'unknown sender'}</strong>
          {m.from_name && m.from && <span class="muted"> &lt;{m.from}&gt;</span>}
        </p>
        {m.to && <p class="small muted">To {m.to}</p>}
        <p class="muted small">
          {dateTime(m.received_at)} · {bytes(m.size)}
          {ttlHours !== undefined && (
            <>
              {' · '}
              {/* "in 24 h" stays on one line */}
              <span class="nowrap">deleted {relative(Date.parse(m.received_at) + ttlHours * 3_600_000)}</span>
            </>
          )}
        </p>
        {m.code && (
          <p class="message-code">
            <CodeBadge code={m.code} big />
          </p>
        )}
        <div class="actions">
          <button type="button" class="btn btn-small" onClick={markUnread}>
            Mark unread
          </button>
          <button type="button" class="btn btn-small btn-danger" onClick={remove}>
            Delete
          </button>
        </div>
      </header>
      <ErrorBox error={error} />
      {m.attachments.length > 0 && (
        <ul class="attachments" aria-label="Attachments">
          {m.attachments.map((a) => (
            <li key={a.id}>
              <button type="button" class="btn btn-small" onClick={() => download(a)}>
                ⬇ {a.filename || 'attachment'} <span class="muted">({bytes(a.size)})</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <div class="tabs" role="tablist" aria-label="View">
        {tabs.map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            id={`tab-${t}`}
            aria-selected={t === current}
            aria-controls="message-panel"
            class={`tab ${t === current ? 'active' : ''}`}
            onClick={() => onTab(t)}
          >
            {TAB_LABELS[t]}
          </button>
        ))}
      </div>
      <div id="message-panel" role="tabpanel" aria-labelledby={`tab-${current}`}>
        {current === 'html' && m.html ? (
          <>
            {m.remote_images > 0 && (
              <p class="remote-note small" data-testid="remote-note">
                {remoteImages ? (
                  <span>Remote images are shown for this message.</span>
                ) : (
                  <>
                    <span>
                      {m.remote_images === 1 ? '1 remote image was' : `${m.remote_images} remote images were`} blocked, so the sender cannot see that you opened this
                      message.
                    </span>{' '}
                    <button type="button" class="btn btn-small" onClick={() => setRemoteImages(true)}>
                      Show remote images
                    </button>
                  </>
                )}
              </p>
            )}
            {/*
              The service's sanitised document under its own sandbox CSP (inline styles and style sheets
              kept, nothing fetched unless this message's remote images are allowed); no allow-scripts and
              no allow-same-origin here either, so the mail can neither run code nor reach this page. The
              token goes in the query because a frame cannot send headers.
            */}
            <iframe
              key={frameQuery}
              class="mail-frame"
              title="Message content"
              sandbox="allow-popups allow-popups-to-escape-sandbox"
              referrerpolicy="no-referrer"
              src={mailbox.url(`/messages/${enc(id)}/html${frameQuery ? `?${frameQuery}` : ''}`)}
            />
          </>
        ) : current === 'source' ? (
          <SourceView mailbox={mailbox} id={id} />
        ) : current === 'headers' ? (
          <HeadersView headers={m.headers} />
        ) : (
          <pre class="mail-text">{m.text ?? (m.html_dropped ? 'This message’s HTML could not be shown safely, and it has no text part.' : '')}</pre>
        )}
      </div>
    </article>
  );
}
