import { useState } from 'preact/hooks';
import { adminApi, query } from '../api';
import { dateTime } from '../format';
import { usePagedList } from '../paged-list';
import { type FormSentences, refusalOf, SAY } from '../refusal';
import { CopyButton, confirmAction, ErrorBox, Field, Notice, StatusBadge, useSubmit } from '../ui';
import type { Affiliate } from './affiliate-picker';
import { Heads, PagedTable } from './list';
import { InviteButton } from './portal-admin';

function link(refCode: string): string {
  return `${location.origin}/go/${encodeURIComponent(refCode)}`;
}

/**
 * The rate field: empty means the global rate (null); "12.5", "12,5" and "12.5 %" mean 12.5. Anything
 * else throws, so a typo is refused instead of being sent as NaN (which JSON turns into null: global).
 */
function parseRate(text: string): number | null {
  const t = text.trim().replace(/\s*%$/, '').replace(',', '.');
  if (t === '') return null;
  const n = Number(t);
  if (!/^\d+(\.\d{1,2})?$/.test(t) || n > 100) throw new Error('Commission rate must be a percentage from 0 to 100 with at most 2 decimals, like 12.5, or empty for the global rate.');
  return n;
}

export function AffiliatesPage() {
  const list = usePagedList<Affiliate>('/affiliates', query({ limit: 100 }));
  // what the last action on this page came to: one message at a time, so a refusal never shows beside an older success
  const { error, notice, clear, tell, fail } = useSubmit();
  const done = (text: string) => {
    tell(text);
    list.reload();
  };
  const failed = (err: unknown) => (err === undefined ? clear() : fail(err));

  return (
    <>
      <CreateAffiliate onStart={clear} onCreated={(a) => done(`Affiliate ${a.ref_code} created. Its link: ${link(a.ref_code)}`)} />
      {notice && <Notice>{notice}</Notice>}
      <ErrorBox error={error} />
      {list.items.some((a) => a.status === 'pending') && (
        <Notice>
          Sign-ups waiting for approval: {list.items.filter((a) => a.status === 'pending').map((a) => a.ref_code).join(', ')}. Approve them in the list below.
        </Notice>
      )}
      <section class="card">
        <h2>All affiliates</h2>
        <PagedTable
          list={list}
          loading="Loading affiliates"
          empty="No affiliates yet. Create the first one above."
          head={<Heads cols={['ref_code', 'Name / email', 'Status', 'Rate', 'Link', 'Created']} actions />}
        >
          {list.items.map((a) => (
            <AffiliateRow key={a.ref_code} affiliate={a} onChanged={done} onError={failed} />
          ))}
        </PagedTable>
      </section>
    </>
  );
}

const CREATE_SENTENCES: FormSentences = {
  fields: {
    ref_code: SAY.refCode,
    name: 'Enter a name of at most 200 characters.',
    email: SAY.email,
    commission_rate: `${SAY.rate} Leave it empty for the global rate.`,
  },
  codes: { affiliate_exists: { field: 'ref_code', sentence: SAY.refCodeTaken } },
};

function CreateAffiliate({ onStart, onCreated }: { onStart: () => void; onCreated: (a: Affiliate) => void }) {
  const [form, setForm] = useState({ ref_code: '', name: '', email: '', rate: '' });
  const { busy, error, run } = useSubmit();
  const [rateError, setRateError] = useState<string>();
  const refused = refusalOf(error, CREATE_SENTENCES);
  const set = (k: keyof typeof form) => (e: Event) => setForm({ ...form, [k]: (e.target as HTMLInputElement).value });
  const submit = (e: Event) => {
    e.preventDefault();
    onStart();
    setRateError(undefined);
    return run(async () => {
      let rate: number | null;
      try {
        rate = parseRate(form.rate);
      } catch (err) {
        setRateError((err as Error).message);
        return;
      }
      const body: Record<string, unknown> = { ref_code: form.ref_code.trim() };
      if (form.name.trim()) body.name = form.name.trim();
      if (form.email.trim()) body.email = form.email.trim();
      if (rate !== null) body.commission_rate = rate;
      const res = await adminApi.post<{ affiliate: Affiliate }>('/affiliates', body);
      setForm({ ref_code: '', name: '', email: '', rate: '' });
      onCreated(res.affiliate);
    });
  };
  return (
    <form class="card form-grid" onSubmit={submit} aria-label="New affiliate">
      <h2>New affiliate</h2>
      <Field label="ref_code" hint="1–64 of A–Z a–z 0–9 _ -" error={refused.at('ref_code')}>
        <input name="ref_code" required maxLength={64} pattern="[A-Za-z0-9_\-]{1,64}" value={form.ref_code} onInput={set('ref_code')} />
      </Field>
      <Field label="Name" error={refused.at('name')}>
        <input name="name" value={form.name} onInput={set('name')} />
      </Field>
      <Field label="Email" error={refused.at('email')}>
        <input name="email" type="email" value={form.email} onInput={set('email')} />
      </Field>
      <Field label="Commission rate %" hint="empty: the global rate" error={rateError ?? refused.at('commission_rate')}>
        <input name="commission_rate" inputMode="decimal" value={form.rate} onInput={set('rate')} />
      </Field>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create affiliate'}
        </button>
      </div>
      <ErrorBox error={refused.rest} />
    </form>
  );
}

function AffiliateRow({ affiliate: a, onChanged, onError }: { affiliate: Affiliate; onChanged: (msg: string) => void; onError: (e: unknown) => void }) {
  const [editing, setEditing] = useState(false);
  const [rate, setRate] = useState(a.commission_rate === null ? '' : String(a.commission_rate));
  const patch = async (body: Record<string, unknown>, msg: string) => {
    onError(undefined);
    try {
      await adminApi.patch(`/affiliates/${encodeURIComponent(a.ref_code)}`, body);
      setEditing(false);
      onChanged(msg);
    } catch (err) {
      onError(err);
    }
  };
  const toggle = async () => {
    if (a.status === 'active') {
      const ok = await confirmAction(
        `Disable ${a.ref_code}?`,
        'Disable',
        <p>Its link stops attributing new visitors. Commissions it earned stay withdrawable.</p>,
      );
      if (ok) await patch({ status: 'disabled' }, `${a.ref_code} is disabled.`);
    } else {
      await patch({ status: 'active' }, a.status === 'pending' ? `${a.ref_code} is approved: it can sign in to the portal.` : `${a.ref_code} is active again.`);
    }
  };
  return (
    <tr data-ref={a.ref_code}>
      <th scope="row">
        <code>{a.ref_code}</code>
      </th>
      <td>
        {a.name || <span class="muted">—</span>}
        {a.email && <div class="muted small">{a.email}</div>}
      </td>
      <td>
        <StatusBadge status={a.status} />
      </td>
      <td>
        {editing ? (
          <form
            class="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              let value: number | null;
              try {
                value = parseRate(rate);
              } catch (err) {
                onError(err);
                return;
              }
              patch({ commission_rate: value }, `Rate of ${a.ref_code} saved.`);
            }}
          >
            <input aria-label={`Commission rate of ${a.ref_code} in percent`} inputMode="decimal" size={6} value={rate} onInput={(e) => setRate((e.target as HTMLInputElement).value)} />
            <button type="submit" class="btn btn-small btn-primary">
              Save
            </button>
            <button type="button" class="btn btn-small" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </form>
        ) : a.commission_rate === null ? (
          <span class="muted">global</span>
        ) : (
          `${a.commission_rate}%`
        )}
      </td>
      <td class="nowrap">
        <code class="small">/go/{a.ref_code}</code> <CopyButton text={link(a.ref_code)} label="Copy link" />
      </td>
      <td class="small">{dateTime(a.created_at)}</td>
      <td class="row-actions">
        {!editing && (
          <button type="button" class="btn btn-small" onClick={() => setEditing(true)}>
            Edit rate
          </button>
        )}
        <button type="button" class={`btn btn-small ${a.status === 'active' ? 'btn-danger' : ''}`} onClick={toggle}>
          {a.status === 'active' ? 'Disable' : a.status === 'pending' ? 'Approve' : 'Enable'}
        </button>
        <InviteButton refCode={a.ref_code} onError={onError} />
      </td>
    </tr>
  );
}
