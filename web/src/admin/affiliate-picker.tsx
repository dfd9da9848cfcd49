import { useEffect, useState } from 'preact/hooks';
import { adminApi, type ItemOf, type Page } from '../api';
import { Field } from '../ui';

/** An affiliate as the admin API returns it. */
export type Affiliate = ItemOf<'GET /api/affiliates'>;

let cache: Promise<Affiliate[]> | undefined;

/** Every affiliate, newest first (all pages of 500), fetched once per page load and shared by the pickers. */
function allAffiliates(): Promise<Affiliate[]> {
  cache ??= (async () => {
    const all: Affiliate[] = [];
    let cursor: string | null = null;
    do {
      const page: Page<Affiliate> = await adminApi.get(`/affiliates?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      all.push(...page.items);
      cursor = page.next_cursor;
    } while (cursor);
    return all;
  })().catch((err: unknown) => {
    cache = undefined;
    throw err;
  });
  return cache;
}

/** Forget the list, e.g. after an affiliate was created. */
export function affiliatesChanged(): void {
  cache = undefined;
}

/** "Affiliate": everyone, or one picked from the list of affiliates (never typed). */
export function AffiliatePicker({ value, onChange }: { value: string; onChange: (refCode: string) => void }) {
  const [affiliates, setAffiliates] = useState<Affiliate[]>();
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let live = true;
    allAffiliates().then(
      (list) => live && setAffiliates(list),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, []);
  const known = affiliates?.some((a) => a.ref_code === value) ?? false;
  return (
    <Field label="Affiliate" hint={failed ? 'the list of affiliates could not be loaded' : undefined}>
      <select name="ref_code" value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)} aria-busy={!affiliates && !failed}>
        <option value="">all affiliates</option>
        {/* a code from the URL that is not (or not yet) in the list stays selectable */}
        {value && !known && <option value={value}>{value}</option>}
        {(affiliates ?? []).map((a) => (
          <option key={a.ref_code} value={a.ref_code}>
            {a.name ? `${a.ref_code} · ${a.name}` : a.ref_code}
            {a.status === 'disabled' ? ' (disabled)' : ''}
          </option>
        ))}
      </select>
    </Field>
  );
}
