import { useEffect, useState } from 'preact/hooks';
import { ApiError, type ItemOf, request } from '../api';
import { dateTime, relative } from '../format';
import { navigate, setSearch, useSearch } from '../router';
import { CopyButton, confirmAction, Empty, ErrorBox, Loading, useAsync } from '../ui';
import { forgetMailbox, loadMailbox, type PublicConfig, type StoredMailbox } from './mailbox-store';
import { auth, CodeBadge, MessageView, mailboxUrl, tokenAccess } from './message-view';

type MessageSummary = ItemOf<'GET /mailboxes/{address}/messages'>;

const enc = encodeURIComponent;

/** What the event stream says of an arrival. */
interface Arrival {
  id: string;
  from: string | null;
  subject: string | null;
  code?: string | null;
}

/** Whether the open message was opened from the list in this page's history (then Back returns to it). */
let openedFromList = false;

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
  // The open message and its view live in the URL (?m=…&view=…): a reload shows it again, Back returns to the list.
  const search = useSearch();
  const selected = search.get('m') ?? undefined;
  const view = search.get('view') ?? undefined;
  const [announcement, setAnnouncement] = useState('');
  // Read state changed here since the list was loaded (opening marks read, "Mark unread"), shown at once.
  const [seenNow, setSeenNow] = useState<Record<string, boolean>>({});
  const open = (id: string) => {
    openedFromList = true;
    setSearch({ m: id });
  };
  const closeMessage = () => {
    if (openedFromList) {
      openedFromList = false;
      history.back();
    } else setSearch({}, true);
  };
  const config = useAsync(() => request<PublicConfig>('/public/config'), 'config');
  // The search box: what is typed, and (a moment after the typing stops) what the list is searched for.
  const [typed, setTyped] = useState('');
  const [query, setQuery] = useState('');
  useEffect(() => {
    const timer = setTimeout(() => setQuery(typed.trim()), 250);
    return () => clearTimeout(timer);
  }, [typed]);
  const list = useAsync(
    () => request<{ items: MessageSummary[] }>(mailboxUrl(mailbox, `/messages?limit=200${query ? `&q=${enc(query)}` : ''}`), { headers: auth(mailbox) }),
    `${mailbox.address}:${version}:${query}`,
  );

  // New mail arrives over server-sent events; the list reloads on each one (and after reconnects).
  useEffect(() => {
    const es = new EventSource(mailboxUrl(mailbox, `/events?token=${enc(mailbox.token)}`));
    es.addEventListener('open', () => {
      setLive('live');
      setVersion((v) => v + 1);
    });
    es.addEventListener('message', (e) => {
      setVersion((v) => v + 1);
      try {
        const a = JSON.parse((e as MessageEvent<string>).data) as Arrival;
        // Read out by screen readers (the live region below); a code is spelled out so it can be typed.
        setAnnouncement(
          `New message from ${a.from ?? 'unknown sender'}: ${a.subject ?? 'no subject'}${a.code ? `. Code ${a.code.split('').join(' ')}` : ''}`,
        );
      } catch {
        setAnnouncement('New message');
      }
    });
    es.addEventListener('error', () => setLive(es.readyState === EventSource.CLOSED ? 'offline' : 'connecting'));
    return () => es.close();
  }, [mailbox]);

  const ttlHours = config.data?.mailbox_ttl_hours;
  const items = list.data?.items ?? [];
  const unreadCount = items.filter((m) => !(seenNow[m.id] ?? m.seen)).length;
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
          <div class="muted small" id="address-label">
            Your temporary address
          </div>
          {/* the page's heading: the mailbox it is the inbox of */}
          <h1 class="address" data-testid="address" aria-describedby="address-label">
            {mailbox.address}
          </h1>
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
        <div class={`inbox-grid ${selected ? 'has-open' : ''}`}>
          <section class="card message-list" aria-label="Messages">
            <div class="section-head">
              <h2>
                Inbox {items.length > 0 && <span class="count">{items.length}</span>}
                {unreadCount > 0 && <span class="muted small unread-count"> {unreadCount} unread</span>}
              </h2>
              <button type="button" class="btn btn-small" onClick={list.reload} disabled={list.loading}>
                Refresh
              </button>
            </div>
            <form class="inbox-search" onSubmit={(e) => {
              e.preventDefault();
              setQuery(typed.trim());
            }}>
              <label class="sr-only" for="inbox-search">Search this inbox</label>
              <input
                id="inbox-search"
                type="search"
                placeholder="Search subject, sender, text"
                maxLength={200}
                value={typed}
                onInput={(e) => setTyped((e.target as HTMLInputElement).value)}
              />
            </form>
            <ErrorBox error={list.error} onRetry={list.reload} />
            {list.loading && !list.data && <Loading what="Loading messages" />}
            {list.data && items.length === 0 && !query && <Empty>No mail yet. Send something to {mailbox.address}; it shows up here by itself.</Empty>}
            {list.data && items.length === 0 && query && <Empty>No message matches “{query}”.</Empty>}
            <ul class="messages">
              {items.map((m) => {
                const unread = !(seenNow[m.id] ?? m.seen);
                return (
                <li key={m.id} class={`message-item ${unread ? 'unread' : ''}`} data-message={m.id} data-seen={String(!unread)}>
                  <button type="button" class={`message-row ${selected === m.id ? 'selected' : ''}`} onClick={() => open(m.id)} aria-current={selected === m.id}>
                    <span class="from">
                      {unread && <span class="unread-dot" aria-hidden="true" />}
                      {unread && <span class="sr-only">Unread: </span>}
                      {m.from_name || m.from || 'unknown sender'}
                    </span>
                    <span class="subject">{m.subject || '(no subject)'}</span>
                    <span class="muted small">
                      {dateTime(m.received_at)}
                      {m.attachments_count > 0 && ` · 📎 ${m.attachments_count}`}
                      {ttlHours !== undefined && ` · expires ${relative(Date.parse(m.received_at) + ttlHours * 3_600_000)}`}
                    </span>
                  </button>
                  {m.code && <CodeBadge code={m.code} />}
                </li>
                );
              })}
            </ul>
          </section>
          <section class={`card message-view ${selected ? '' : 'is-empty'}`} aria-label="Message">
            {selected ? (
              <MessageView
                key={selected}
                mailbox={tokenAccess(mailbox)}
                id={selected}
                ttlHours={ttlHours}
                tab={view}
                onTab={(tab) => setSearch({ m: selected, view: tab }, true)}
                onBack={closeMessage}
                onSeen={(id, seen) => setSeenNow((s) => (s[id] === seen ? s : { ...s, [id]: seen }))}
                onDeleted={() => {
                  closeMessage();
                  setVersion((v) => v + 1);
                }}
              />
            ) : (
              <Empty>Select a message to read it.</Empty>
            )}
          </section>
        </div>
      )}
      <div class="sr-only" role="status" aria-live="polite" aria-atomic="true" data-testid="announcer">
        {announcement}
      </div>
    </main>
  );
}
