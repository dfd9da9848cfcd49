import { useState } from 'preact/hooks';
import { adminApi, ApiError, type ItemOf } from '../api';
import { dateTime } from '../format';
import { confirmAction, ErrorBox, Field, Notice, useAsync, useSubmit } from '../ui';
import { Heads, LoadedTable } from './list';

type Domain = ItemOf<'GET /api/domains'>;

const enc = encodeURIComponent;

/** The mail domains: add, activate or deactivate, catch-all on or off, public or not, delete one without mailboxes. */
export function DomainsPage() {
  const list = useAsync(() => adminApi.get<{ items: Domain[] }>('/domains?limit=500'), 'domains');
  const [name, setName] = useState('');
  const [catchAll, setCatchAll] = useState(false);
  const [isPublic, setIsPublic] = useState(true);
  const { running, error, notice, run } = useSubmit();

  const act = (what: () => Promise<unknown>, done: string, key?: string) =>
    run(async () => {
      await what();
      list.reload();
      return done;
    }, key);

  const add = (e: Event) => {
    e.preventDefault();
    return act(
      async () => {
        await adminApi.post('/domains', { domain: name, catch_all: catchAll, public: isPublic });
        setName('');
        setCatchAll(false);
        setIsPublic(true);
      },
      `${name.trim()} was added; new mailboxes can use it now.`,
      'add',
    );
  };

  const remove = async (d: Domain) => {
    if (!(await confirmAction(`Delete ${d.domain}?`, 'Delete', <p>Only a domain without mailboxes can be deleted.</p>))) return;
    await act(() => adminApi.del(`/domains/${enc(d.domain)}`), `${d.domain} was deleted.`);
  };

  const inUse = error instanceof ApiError && error.code === 'domain_in_use';
  const nameError = error instanceof ApiError && error.status === 400 ? 'Enter a domain name such as mail.example.com (international names are fine).' : undefined;
  const items = list.data?.items ?? [];
  // the default of a mailbox created without a domain: never a non-public one (docs/api.md#domains)
  const firstActive = items.find((d) => d.active && d.public)?.domain;

  return (
    <>
      <form class="card form-grid" onSubmit={add} aria-label="Add a domain">
        <h2>Add a mail domain</h2>
        <Field label="Domain" hint="Point its MX record at this service's SMTP port" error={nameError}>
          <input name="domain" required value={name} placeholder="mail.example.com" onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </Field>
        <label class="checkbox">
          <input type="checkbox" name="catch_all" checked={catchAll} onChange={(e) => setCatchAll((e.target as HTMLInputElement).checked)} /> Catch all: mail to any address creates its mailbox
        </label>
        <label class="checkbox">
          <input type="checkbox" name="public" checked={isPublic} onChange={(e) => setIsPublic((e.target as HTMLInputElement).checked)} /> Public: visitors (the landing page, mail.tm
          clients) can create mailboxes on it
        </label>
        <div>
          <button type="submit" class="btn btn-primary" disabled={running === 'add'}>
            {running === 'add' ? 'Adding…' : 'Add domain'}
          </button>
        </div>
      </form>
      <section class="card" aria-label="Domains">
        <h2>Domains</h2>
        <p class="muted small">
          New mailboxes without a chosen domain go to the first active public one. An inactive domain takes no new mailboxes; its mailboxes keep receiving. A private
          domain, for addresses you hand out yourself such as billing@, is not offered to visitors: only the API key, this admin area and catch-all create mailboxes
          on it.
        </p>
        {notice && <Notice>{notice}</Notice>}
        {inUse ? (
          <div class="alert alert-error" role="alert" data-testid="domain-in-use">
            {(error as ApiError).message}
          </div>
        ) : (
          !nameError && <ErrorBox error={error} />
        )}
        <LoadedTable
          state={list}
          count={items.length}
          loading="Loading the domains"
          empty="No domain yet: add one above, or no mailbox can be created."
          head={<Heads cols={['Domain', 'Status', 'Catch-all', 'Visibility', 'Added']} actions />}
        >
          {items.map((d) => (
            <tr key={d.domain} data-domain={d.domain}>
              <td>
                <strong>{d.domain}</strong>
                {d.domain === firstActive && <span class="muted small"> · default</span>}
              </td>
              <td>{d.active ? 'active' : 'inactive'}</td>
              <td>{d.catch_all ? 'on' : 'off'}</td>
              <td>{d.public ? 'public' : 'private'}</td>
              <td class="small">{dateTime(d.created_at)}</td>
              <td class="actions">
                <button type="button" class="btn btn-small" onClick={() => act(() => adminApi.patch(`/domains/${enc(d.domain)}`, { active: !d.active }), `${d.domain} is ${d.active ? 'inactive' : 'active'} now.`)}>
                  {d.active ? 'Deactivate' : 'Activate'}
                </button>
                <button type="button" class="btn btn-small" onClick={() => act(() => adminApi.patch(`/domains/${enc(d.domain)}`, { catch_all: !d.catch_all }), `Catch-all is ${d.catch_all ? 'off' : 'on'} for ${d.domain}.`)}>
                  {d.catch_all ? 'Catch-all off' : 'Catch-all on'}
                </button>
                <button
                  type="button"
                  class="btn btn-small"
                  onClick={() =>
                    act(
                      () => adminApi.patch(`/domains/${enc(d.domain)}`, { public: !d.public }),
                      d.public ? `${d.domain} is private now: visitors can no longer create mailboxes on it.` : `${d.domain} is public now: visitors can create mailboxes on it.`,
                    )
                  }
                >
                  {d.public ? 'Make private' : 'Make public'}
                </button>
                <button type="button" class="btn btn-small btn-danger" onClick={() => remove(d)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </LoadedTable>
      </section>
    </>
  );
}
