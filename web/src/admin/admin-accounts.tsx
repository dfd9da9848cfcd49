import { useState } from 'preact/hooks';
import { adminApi, type ItemOf } from '../api';
import { dateTime } from '../format';
import { type FormSentences, refusalOf, SAY } from '../refusal';
import { confirmAction, CopyButton, Empty, ErrorBox, Field, Loading, Notice, useAsync, useSubmit } from '../ui';

/** The settings page's accounts part: the signed-in admin's password and the other admin users. */

const PASSWORD_SENTENCES: FormSentences = {
  fields: {
    current_password: SAY.wrongPassword,
    new_password: `${SAY.newPassword} It must differ from the current one.`,
  },
};

const USER_SENTENCES: FormSentences = {
  fields: {
    username: 'Choose a user name of 1 to 64 letters, digits and _ . @ -.',
    password: `${SAY.newPassword} Leave it empty to have one generated.`,
  },
  codes: { admin_user_exists: { field: 'username', sentence: 'There is an admin user with this name already. Choose another one.' } },
};

/** The signed-in admin's own password; the service ends this admin's other sessions. */
export function ChangePassword() {
  const empty = { current: '', next: '', again: '' };
  const [form, setForm] = useState(empty);
  const { busy, error, notice, run, dismiss } = useSubmit();
  const [mismatch, setMismatch] = useState(false);
  const refused = refusalOf(error, PASSWORD_SENTENCES);
  const set = (k: keyof typeof form) => (e: Event) => {
    dismiss();
    setForm({ ...form, [k]: (e.target as HTMLInputElement).value });
  };
  const submit = (e: Event) => {
    e.preventDefault();
    const differ = form.next !== form.again;
    setMismatch(differ);
    // run even when they differ: it takes the last refusal and notice away
    return run(async () => {
      if (differ) return;
      await adminApi.post('/password', { current_password: form.current, new_password: form.next });
      setForm(empty);
      return 'Password changed. Your other sessions have been signed out.';
    });
  };
  return (
    <form class="card form-grid" onSubmit={submit} aria-label="Change your password">
      <h2>Your password</h2>
      <Field label="Current password" error={refused.at('current_password')}>
        <input name="current_password" type="password" autocomplete="current-password" required value={form.current} onInput={set('current')} />
      </Field>
      <Field label="New password" hint="10–200 characters" error={refused.at('new_password')}>
        <input name="new_password" type="password" autocomplete="new-password" required minLength={10} maxLength={200} value={form.next} onInput={set('next')} />
      </Field>
      <Field label="New password again" error={mismatch ? 'The two new passwords differ. Type the new one again.' : undefined}>
        <input name="new_password_again" type="password" autocomplete="new-password" required value={form.again} onInput={set('again')} />
      </Field>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Changing…' : 'Change password'}
        </button>
      </div>
      <ErrorBox error={refused.rest} />
      {notice && <Notice>{notice}</Notice>}
      <p class="muted small form-note">
        Lost the password of every admin? On the server: <code>npm run admin -- reset-password</code>.
      </p>
    </form>
  );
}

type AdminUser = ItemOf<'GET /admin/api/admin-users'>;

/** Further admin users, each with its own password; the last one cannot be removed. */
export function AdminUsers() {
  const users = useAsync(() => adminApi.get<{ items: AdminUser[] }>('/admin-users'), 'admin-users');
  const me = useAsync(() => adminApi.get<{ username: string }>('/session'), 'session');
  const [form, setForm] = useState({ username: '', password: '' });
  const { running, error, notice, run } = useSubmit();
  // a generated password, shown once under the notice that its user was added
  const [generated, setGenerated] = useState<string>();
  const refused = refusalOf(error, USER_SENTENCES);

  const add = (e: Event) => {
    e.preventDefault();
    setGenerated(undefined);
    return run(async () => {
      const body: Record<string, string> = { username: form.username.trim() };
      if (form.password) body.password = form.password;
      const res = await adminApi.post<{ admin_user: AdminUser; password?: string }>('/admin-users', body);
      setForm({ username: '', password: '' });
      setGenerated(res.password);
      users.reload();
      return `Admin user ${res.admin_user.username} added.`;
    }, 'add');
  };

  const remove = async (user: AdminUser) => {
    const self = user.username === me.data?.username;
    const ok = await confirmAction(
      `Remove admin user ${user.username}?`,
      'Remove',
      <p>{self ? 'That is you: you will be signed out at once.' : 'Their sessions end at once and they can no longer sign in.'}</p>,
    );
    if (!ok) return;
    setGenerated(undefined);
    await run(async () => {
      await adminApi.del(`/admin-users/${encodeURIComponent(user.username)}`);
      users.reload();
      return `Admin user ${user.username} removed.`;
    }, 'remove');
  };

  const list = users.data?.items ?? [];
  return (
    <section class="card" aria-label="Admin users">
      <h2>Admin users</h2>
      <ErrorBox error={users.error} onRetry={users.reload} />
      {users.loading && !users.data && <Loading what="Loading admin users" />}
      {users.data && list.length === 0 && <Empty>No admin users.</Empty>}
      {list.length > 0 && (
        <ul class="user-list">
          {list.map((u) => (
            <li key={u.username} data-user={u.username}>
              <span>
                <strong>{u.username}</strong>
                {u.username === me.data?.username && <span class="muted small"> (you)</span>}
                <span class="muted small"> · added {dateTime(u.created_at)}</span>
              </span>
              <button
                type="button"
                class="btn btn-small btn-danger"
                onClick={() => remove(u)}
                disabled={list.length === 1}
                title={list.length === 1 ? 'The last admin user cannot be removed' : undefined}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
      )}
      <form class="form-grid" onSubmit={add} aria-label="Add an admin user">
        <Field label="New user name" hint="1–64 of A–Z a–z 0–9 _ . @ -" error={refused.at('username')}>
          <input
            name="new_username"
            autocomplete="off"
            required
            maxLength={64}
            pattern="[A-Za-z0-9_.@\-]{1,64}"
            value={form.username}
            onInput={(e) => setForm({ ...form, username: (e.target as HTMLInputElement).value })}
          />
        </Field>
        <Field label="Their password" hint="10–200 characters; empty: one is generated and shown once" error={refused.at('password')}>
          <input
            name="new_user_password"
            type="password"
            autocomplete="new-password"
            minLength={10}
            maxLength={200}
            value={form.password}
            onInput={(e) => setForm({ ...form, password: (e.target as HTMLInputElement).value })}
          />
        </Field>
        <div class="form-actions">
          <button type="submit" class="btn" disabled={running === 'add'}>
            {running === 'add' ? 'Adding…' : 'Add admin user'}
          </button>
        </div>
      </form>
      <ErrorBox error={refused.rest} />
      {notice && (
        <Notice>
          <span>{notice}</span>
          {generated && (
            <span class="input-row">
              Their password (shown once):{' '}
              <code class="secret" data-testid="new-admin-password">
                {generated}
              </code>
              <CopyButton text={generated} />
            </span>
          )}
        </Notice>
      )}
    </section>
  );
}
