import { useState } from 'preact/hooks';
import { adminApi, type ItemOf, query } from '../api';
import { dateTime } from '../format';
import { usePagedList } from '../paged-list';
import { ErrorBox, Notice, StatusBadge, useAsync, useSubmit } from '../ui';
import { FilterBar, Heads, PagedTable, StatusFilter } from './list';

type Mail = ItemOf<'GET /admin/api/outbound-mail'>;

/** The mails svc sent or is sending: status, attempts, the last error, resend. */
export function OutboundMailPage() {
  const [status, setStatus] = useState('');
  const list = usePagedList<Mail>('/outbound-mail', query({ status, limit: 50 }));
  const configured = useAsync(() => adminApi.get<{ mail_configured: boolean }>('/outbound-mail?limit=1'), 'mail-configured').data?.mail_configured;
  return (
    <section class="card">
      <div class="section-head">
        <h2>Outbound mail</h2>
        <button type="button" class="btn btn-small" onClick={list.reload}>
          Refresh
        </button>
      </div>
      {configured === false && (
        <Notice kind="error">svc sends no mail: SVC_SMTP_URL and SVC_MAIL_FROM are not set. Invitation links must be copied by hand, and forgotten passwords cannot be reset by mail.</Notice>
      )}
      <FilterBar label="Filter mail">
        <StatusFilter value={status} options={['queued', 'sent', 'failed']} onChange={setStatus} />
      </FilterBar>
      <PagedTable
        list={list}
        loading="Loading mail"
        empty={status ? 'No mail matches this filter.' : 'No mail yet: invitations, password resets and notifications show here.'}
        head={<Heads cols={['To', 'Mail', 'Status', ['Attempts', 'num'], 'Created']} actions />}
      >
        {list.items.map((m) => (
          <MailRow key={m.id} mail={m} onChanged={list.reload} />
        ))}
      </PagedTable>
    </section>
  );
}

function MailRow({ mail: m, onChanged }: { mail: Mail; onChanged: () => void }) {
  const { error, notice, run } = useSubmit();
  const resend = () =>
    run(async () => {
      await adminApi.post(`/outbound-mail/${encodeURIComponent(m.id)}/resend`);
      onChanged();
      return 'Queued again.';
    });
  return (
    <tr data-id={m.id}>
      <td class="small break">{m.to}</td>
      <td class="small">
        <code>{m.template}</code>
        <div class="muted">{m.subject}</div>
        {m.last_error && <div class="muted break">Last error: {m.last_error}</div>}
      </td>
      <td>
        <StatusBadge status={m.status} />
      </td>
      <td class="num">{m.attempts}</td>
      <td class="small">
        {dateTime(m.created_at)}
        {m.sent_at && <div class="muted">sent {dateTime(m.sent_at)}</div>}
      </td>
      <td>
        <button type="button" class="btn btn-small" onClick={resend}>
          Resend
        </button>
        {notice && <div class="small muted">{notice}</div>}
        <ErrorBox error={error} />
      </td>
    </tr>
  );
}
