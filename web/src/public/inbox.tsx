import { useEffect, useState } from 'preact/hooks';
import { type Answer, ApiError, type ItemOf, request } from '../api';
import { bytes, dateTime, relative } from '../format';
import { navigate } from '../router';
import { CopyButton, confirmAction, Empty, ErrorBox, Loading, useAsync } from '../ui';
import { forgetMailbox, loadMailbox, type PublicConfig, type StoredMailbox } from './mailbox-store';

type MessageSummary = ItemOf<'GET /mailboxes/{address}/messages'>;
type MessageDetail = Answer<'GET /mailboxes/{address}/messages/{id}'>['message'];
type Attachment = MessageDetail['attachments'][number];

const enc = encodeURIComponent;

function mailboxUrl(m: StoredMailbox, rest = ''): string {
  return `/mailboxes/${enc(m.address)}${rest}`;
}

function auth(m: StoredMailbox) {
  return { authorization: `Bearer ${m.token}` };
}

export function InboxPage() {
  const mailbox = loadMailbox();
  useEffect(() => {
    if (!mailbox) navigate('/', true);
  }, [mailbox]);
  if (!mailbox) return null;
  return <Inbox mailbox={mailbox} />;
}

function Inbox({ mailbox }: { mailbox: StoredMailbox }) {
  const [version, setVersion] = useState(0);
  const [live, setLive] = useState<'connecting' | 'live' | 'offline'>('connecting');
  const [selected, setSelected] = useState<string | undefined>();
  const config = useAsync(() => request<PublicConfig>('/public/config'), 'config');
  const list = useAsync(
    () => request<{ items: MessageSummary[] }>(mailboxUrl(mailbox, '/messages?limit=200'), { headers: auth(mailbox) }),
    `${mailbox.address}:${version}`,
  );

  // New mail arrives over server-sent events; the list reloads on each one (and after reconnects).
  useEffect(() => {
    const es = new EventSource(mailboxUrl(mailbox, `/events?token=${enc(mailbox.token)}`));
    es.addEventListener('open', () => {
      setLive('live');
      setVersion((v) => v + 1);
    });
    es.addEventListener('message', () => setVersion((v) => v + 1));
    es.addEventListener('error', () => setLive(es.readyState === EventSource.CLOSED ? 'offline' : 'connecting'));
    return () => es.close();
  }, [mailbox]);

  const ttlHours = config.data?.mailbox_ttl_hours;
  const items = list.data?.items ?? [];
  const unauthorized = list.error instanceof ApiError && (list.error.status === 401 || list.error.status === 404);

  const newMailbox = async () => {
    if (await confirmAction('Leave this mailbox?', 'Leave it', <p>This browser forgets {mailbox.address} and its token. Mail to it can no longer be read here.</p>)) {
      forgetMailbox();
      navigate('/');
    }
  };

  return (
    <main class="inbox">
      <section class="card mailbox-bar">
        <div>
          <div class="muted small">Your temporary address</div>
          <div class="address" data-testid="address">
            {mailbox.address}
          </div>
        </div>
        <div class="mailbox-actions">
          <CopyButton text={mailbox.address} label="Copy address" />
          <button type="button" class="btn btn-small" onClick={newMailbox}>
            New mailbox
          </button>
        </div>
        <p class="muted small mailbox-meta">
          <span class={`live live-${live}`} aria-live="polite">
            {live === 'live' ? '● Live: new mail appears here' : live === 'connecting' ? '○ Connecting…' : '○ Offline'}
          </span>
          {ttlHours !== undefined && <span> · Messages are deleted {ttlHours} hours after they arrive.</span>}
        </p>
      </section>

      {unauthorized ? (
        <div class="card">
          <ErrorBox error={list.error} />
          <p>This mailbox can no longer be read from this browser.</p>
          <button
            type="button"
            class="btn btn-primary"
            onClick={() => {
              forgetMailbox();
              navigate('/');
            }}
          >
            Create a new mailbox
          </button>
        </div>
      ) : (
        <div class="inbox-grid">
          <section class="card message-list" aria-label="Messages">
            <div class="section-head">
              <h2>Inbox {items.length > 0 && <span class="count">{items.length}</span>}</h2>
              <button type="button" class="btn btn-small" onClick={list.reload} disabled={list.loading}>
                Refresh
              </button>
            </div>
            <ErrorBox error={list.error} onRetry={list.reload} />
            {list.loading && !list.data && <Loading what="Loading messages" />}
            {list.data && items.length === 0 && <Empty>No mail yet. Send something to {mailbox.address}; it shows up here by itself.</Empty>}
            <ul class="messages">
              {items.map((m) => (
                <li key={m.id}>
                  <button type="button" class={`message-row ${selected === m.id ? 'selected' : ''}`} onClick={() => setSelected(m.id)} aria-current={selected === m.id}>
                    <span class="from">{m.from_name || m.from || 'unknown sender'}</span>
                    <span class="subject">{m.subject || '(no subject)'}</span>
                    <span class="muted small">
                      {dateTime(m.received_at)}
                      {m.attachments_count > 0 && ` · 📎 ${m.attachments_count}`}
                      {ttlHours !== undefined && ` · expires ${relative(Date.parse(m.received_at) + ttlHours * 3_600_000)}`}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          </section>
          <section class={`card message-view ${selected ? '' : 'is-empty'}`} aria-label="Message">
            {selected ? (
              <MessageView
                key={selected}
                mailbox={mailbox}
                id={selected}
                ttlHours={ttlHours}
                onDeleted={() => {
                  setSelected(undefined);
                  setVersion((v) => v + 1);
                }}
              />
            ) : (
              <Empty>Select a message to read it.</Empty>
            )}
          </section>
        </div>
      )}
    </main>
  );
}

function MessageView({ mailbox, id, ttlHours, onDeleted }: { mailbox: StoredMailbox; id: string; ttlHours?: number; onDeleted: () => void }) {
  const msg = useAsync(() => request<{ message: MessageDetail }>(mailboxUrl(mailbox, `/messages/${enc(id)}`), { headers: auth(mailbox) }), id);
  const [error, setError] = useState<unknown>();

  const remove = async () => {
    if (!(await confirmAction('Delete this message?', 'Delete', <p>It cannot be recovered.</p>))) return;
    try {
      await request(mailboxUrl(mailbox, `/messages/${enc(id)}`), { method: 'DELETE', headers: auth(mailbox) });
      onDeleted();
    } catch (err) {
      setError(err);
    }
  };

  const download = async (a: Attachment) => {
    setError(undefined);
    try {
      // The token travels in a header, so the download goes through fetch and a blob link.
      const res = await fetch(mailboxUrl(mailbox, `/messages/${enc(id)}/attachments/${enc(a.id)}`), { headers: auth(mailbox) });
      if (!res.ok) throw new Error(`Download failed (${res.status})`);
      const url = URL.createObjectURL(await res.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = a.filename || 'attachment';
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      setError(err);
    }
  };

  if (msg.loading && !msg.data) return <Loading what="Opening message" />;
  if (msg.error) return <ErrorBox error={msg.error} onRetry={msg.reload} />;
  const m = msg.data?.message;
  if (!m) return null;
  return (
    <article class="message">
      <header class="message-head">
        <h2>{m.subject || '(no subject)'}</h2>
        <p class="small">
          From <strong>{m.from_name || m.from || 'unknown sender'}</strong>
          {m.from_name && m.from && <span class="muted"> &lt;{m.from}&gt;</span>}
        </p>
        <p class="muted small">
          {dateTime(m.received_at)} · {bytes(m.size)}
          {ttlHours !== undefined && ` · deleted ${relative(Date.parse(m.received_at) + ttlHours * 3_600_000)}`}
        </p>
        <div class="actions">
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
      {m.html ? (
        // The service's sanitised document (its own sandbox CSP keeps inline styles, drops remote
        // content); no allow-scripts and no allow-same-origin here either, so the mail can neither
        // run code nor reach this page. The token goes in the query because a frame cannot send headers.
        <iframe
          class="mail-frame"
          title="Message content"
          sandbox="allow-popups allow-popups-to-escape-sandbox"
          referrerpolicy="no-referrer"
          src={mailboxUrl(mailbox, `/messages/${enc(id)}/html?token=${enc(mailbox.token)}`)}
        />
      ) : (
        <pre class="mail-text">{m.text ?? ''}</pre>
      )}
    </article>
  );
}

