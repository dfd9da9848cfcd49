import { useState } from 'preact/hooks';
import { adminApi, type ItemOf, query } from '../api';
import { dateTime, money } from '../format';
import { usePagedList } from '../paged-list';
import { type FormSentences, refusalOf, SAY } from '../refusal';
import { confirmAction, ErrorBox, Field, Notice, useSubmit } from '../ui';
import { Heads, PagedTable } from './list';

type Rule = ItemOf<'GET /api/commission-rules'>;

const RULE_SENTENCES: FormSentences = {
  fields: {
    ref_code: SAY.refCode,
    product: 'Enter the product name as orders carry it, at most 500 characters.',
    'ref_code,product': 'Name an affiliate, a product, or both: a rule for everyone is the global rate under Settings.',
    rate: SAY.rate,
    flat: SAY.amount,
    'rate,flat': 'Enter the rate or the amount.',
    duration_days: `${SAY.wholeNumber(1, 3650, 'days')} Leave it empty for no limit.`,
    max_orders: `${SAY.wholeNumber(1, 1000000)} Leave it empty for no limit.`,
  },
  codes: { affiliate_not_found: { field: 'ref_code', sentence: 'There is no affiliate with this ref code. Leave it empty for any affiliate.' } },
};

/** "12.5", "12,5" and "12.5 %" are 12.5; empty is undefined; anything else goes as typed so the service's 400 names the field. */
function number(text: string): number | string | undefined {
  const t = text.trim().replace(/\s*%$/, '').replace(',', '.');
  if (t === '') return undefined;
  return Number.isFinite(Number(t)) ? Number(t) : text;
}

/** Commission rules (docs/ledger.md#commission-rules): the first match decides (affiliate+product, product, affiliate). */
export function RulesPage() {
  const list = usePagedList<Rule>('/commission-rules', query({ limit: 100 }));
  const { error, notice, run, clear, tell } = useSubmit();

  const remove = async (r: Rule) => {
    if (!(await confirmAction('Delete this rule?', 'Delete', <p>Commissions already booked keep it as their rule; new orders no longer use it.</p>))) return;
    await run(async () => {
      await adminApi.del(`/commission-rules/${encodeURIComponent(r.id)}`);
      list.reload();
      return 'Rule deleted.';
    });
  };

  return (
    <>
      <CreateRule
        onStart={clear}
        onCreated={() => {
          tell('Rule created.');
          list.reload();
        }}
      />
      {notice && <Notice>{notice}</Notice>}
      <ErrorBox error={error} />
      <section class="card" aria-label="Commission rules">
        <p class="muted small">
          A paid order uses the first rule that matches: the affiliate and the product, then the product, then the affiliate; else the affiliate’s own rate, else the global rate.
        </p>
        <PagedTable
          list={list}
          loading="Loading rules"
          empty="No commission rules yet: every order earns the affiliate’s or the global rate."
          head={<Heads cols={['Affiliate', 'Product', ['Commission', 'num'], ['Days', 'num'], ['Max orders', 'num'], 'Created']} actions />}
        >
          {list.items.map((r) => (
            <tr key={r.id} data-id={r.id}>
              <td>{r.ref_code ? <code>{r.ref_code}</code> : <span class="muted">any</span>}</td>
              <td>{r.product ?? <span class="muted">any</span>}</td>
              <td class="num">{r.rate !== null ? `${r.rate}%` : `${money(r.flat ?? 0, r.currency)} flat`}</td>
              <td class="num">{r.duration_days ?? '—'}</td>
              <td class="num">{r.max_orders ?? '—'}</td>
              <td class="small nowrap">{dateTime(r.created_at)}</td>
              <td class="row-actions">
                <button type="button" class="btn btn-small btn-danger" onClick={() => remove(r)}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </PagedTable>
      </section>
    </>
  );
}

function CreateRule({ onStart, onCreated }: { onStart: () => void; onCreated: () => void }) {
  const empty = { ref_code: '', product: '', kind: 'rate', value: '', duration_days: '', max_orders: '' };
  const [form, setForm] = useState(empty);
  const { busy, error, run } = useSubmit();
  const refused = refusalOf(error, RULE_SENTENCES);
  const set = (k: keyof typeof form) => (e: Event) => setForm({ ...form, [k]: (e.target as HTMLInputElement).value });
  const submit = (e: Event) => {
    e.preventDefault();
    onStart();
    return run(async () => {
      const body: Record<string, unknown> = { [form.kind === 'flat' ? 'flat' : 'rate']: number(form.value) };
      if (form.ref_code.trim()) body.ref_code = form.ref_code.trim();
      if (form.product.trim()) body.product = form.product.trim();
      const days = number(form.duration_days);
      if (days !== undefined) body.duration_days = days;
      const max = number(form.max_orders);
      if (max !== undefined) body.max_orders = max;
      await adminApi.post('/commission-rules', body);
      setForm(empty);
      onCreated();
    });
  };
  return (
    <form class="card form-grid" onSubmit={submit} aria-label="New rule">
      <h2>New commission rule</h2>
      <Field label="Affiliate (ref_code)" hint="empty: any affiliate" error={refused.at('ref_code') ?? refused.at('ref_code,product')}>
        <input name="ref_code" maxLength={64} value={form.ref_code} onInput={set('ref_code')} />
      </Field>
      <Field label="Product" hint="empty: any product" error={refused.at('product')}>
        <input name="product" maxLength={500} value={form.product} onInput={set('product')} />
      </Field>
      <Field label="Kind">
        <select name="kind" value={form.kind} onChange={set('kind')}>
          <option value="rate">Percent of the order</option>
          <option value="flat">Flat amount per order</option>
        </select>
      </Field>
      <Field label={form.kind === 'flat' ? 'Amount' : 'Rate %'} hint={form.kind === 'flat' ? 'capped at the order amount' : '0–100, at most 2 decimals'}
        error={refused.at(form.kind === 'flat' ? 'flat' : 'rate') ?? refused.at('rate,flat')}
      >
        <input name="value" inputMode="decimal" required value={form.value} onInput={set('value')} />
      </Field>
      <Field label="Days after attribution" hint="optional: no commission for orders paid later" error={refused.at('duration_days')}>
        <input name="duration_days" inputMode="numeric" value={form.duration_days} onInput={set('duration_days')} />
      </Field>
      <Field label="Max orders per customer" hint="optional" error={refused.at('max_orders')}>
        <input name="max_orders" inputMode="numeric" value={form.max_orders} onInput={set('max_orders')} />
      </Field>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy}>
          {busy ? 'Creating…' : 'Create rule'}
        </button>
      </div>
      <ErrorBox error={refused.rest} />
    </form>
  );
}
