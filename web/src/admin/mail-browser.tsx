import { useState } from 'preact/hooks';
import { adminApi, type ItemOf } from '../api';
import { dateTime } from '../format';
import { Empty, ErrorBox, Loading, useAsync } from '../ui';
import { adminAccess, CodeBadge, MessageView } from '../public/message-view';

type Caught = ItemOf<'GET /api/mailboxes/without-token'>;
type MessageSummary = ItemOf<'GET /api/mailboxes/{address}/messages'>;

const enc = encodeURIComponent;

/** The mailboxes with no token (created by catch-all domains), read with the admin session through the inbox's reader. */
export function MailBrowserPage() {
  const boxes = useAsync(() => adminApi.get<{ items: Caught[] }>('/mailboxes/without-token?limit=500'), 'caught');
  const [address, setAddress] = useState<string>();
  const [open, setOpen] = useState<string>();
  const [tab, setTab] = useState<string>();
  const [version, setVersion] = useState(0);
  const messages = useAsync(
    async () => (address ? adminApi.get<{ items: MessageSummary[] }>(`/mailboxes/${enc(address)}/messages?limit=200`) : { items: [] }),
    `${address ?? ''}:${version}`,
  );
  const items = boxes.data?.items ?? [];
  return (
    <div class="mail-browser">
      <section class="card" aria-label="Mailboxes without a token">
        <h2>Caught mailboxes</h2>
        <p class="muted small">Mailboxes a catch-all domain created when mail arrived for them. They have no token: only the API key and this page read them.</p>
        <ErrorBox error={boxes.error} onRetry={boxes.reload} />
        {boxes.loading && !boxes.data && <Loading what="Loading the mailboxes" />}
        {boxes.data && items.length === 0 && <Empty>No mailbox was caught yet. Turn catch-all on for a domain on the Domains page.</Empty>}
        <ul class="messages">
          {items.map((m) => (
            <li key={m.address} class="message-item" data-mailbox={m.address}>
              <button
                type="button"
                class={`message-row ${address === m.address ? 'selected' : ''}`}
                aria-current={address === m.address}
                onClick={() => {
                  setAddress(m.address);
                  setOpen(undefined);
                }}
              >
                <span class="from">{m.address}</span>
                <span class="muted small">created {dateTime(m.created_at)}</span>
              </button>
            </li>
          ))}
        </ul>
      </section>
      {address && (
        <div class={`inbox-grid ${open ? 'has-open' : ''}`}>
          <section class="card message-list" aria-label="Messages">
            <h2>{address}</h2>
            <ErrorBox error={messages.error} onRetry={messages.reload} />
            {messages.data && messages.data.items.length === 0 && <Empty>No messages (they expire like every mailbox's).</Empty>}
            <ul class="messages">
              {(messages.data?.items ?? []).map((m) => (
                <li key={m.id} class={`message-item ${m.seen ? '' : 'unread'}`} data-message={m.id}>
                  <button type="button" class={`message-row ${open === m.id ? 'selected' : ''}`} onClick={() => setOpen(m.id)} aria-current={open === m.id}>
                    <span class="from">{m.from_name || m.from || 'unknown sender'}</span>
                    <span class="subject">{m.subject || '(no subject)'}</span>
                    <span class="muted small">{dateTime(m.received_at)}</span>
                  </button>
                  {m.code && <CodeBadge code={m.code} />}
                </li>
              ))}
            </ul>
          </section>
          <section class={`card message-view ${open ? '' : 'is-empty'}`} aria-label="Message">
            {open ? (
              <MessageView
                key={open}
                mailbox={adminAccess(address)}
                id={open}
                tab={tab}
                onTab={setTab}
                onBack={() => setOpen(undefined)}
                onSeen={() => {}}
                onDeleted={() => {
                  setOpen(undefined);
                  setVersion((v) => v + 1);
                }}
              />
            ) : (
              <Empty>Select a message to read it.</Empty>
            )}
          </section>
        </div>
      )}
    </div>
  );
}
