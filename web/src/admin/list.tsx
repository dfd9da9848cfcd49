import type { ComponentChildren } from 'preact';
import type { PagedList } from '../paged-list';
import { Empty, ErrorBox, Field, Loading } from '../ui';

/** The filters above a list. They apply as they change; Enter runs `onSubmit` where a page has a search to start. */
export function FilterBar({ label, onSubmit, children }: { label: string; onSubmit?: () => void; children: ComponentChildren }) {
  return (
    <form
      class="filters"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        onSubmit?.();
      }}
    >
      {children}
    </form>
  );
}

/** "Status": all, or one of the list's statuses. */
export function StatusFilter({ value, options, onChange }: { value: string; options: readonly string[]; onChange: (status: string) => void }) {
  return (
    <Field label="Status">
      <select name="status" value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
        <option value="">all</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </Field>
  );
}

/** One affiliate's entries, or everyone's when empty. */
export function RefCodeFilter({ value, onChange }: { value: string; onChange: (refCode: string) => void }) {
  return (
    <Field label="ref_code">
      <input name="ref_code" placeholder="all affiliates" value={value} onChange={(e) => onChange((e.target as HTMLInputElement).value)} />
    </Field>
  );
}

/** The header of the row buttons' column: nothing to see, a name for screen readers. */
export function ActionsHeader() {
  return (
    <th scope="col">
      <span class="sr-only">Actions</span>
    </th>
  );
}

/**
 * The table of a paged admin list with the states around it: the error (with a retry), the first
 * load, the empty list and "Load more". `head` is the header row's cells, `children` the body rows.
 */
export function PagedTable({
  list,
  loading,
  empty,
  head,
  children,
}: {
  list: PagedList<unknown>;
  loading: string;
  empty: ComponentChildren;
  head: ComponentChildren;
  children: ComponentChildren;
}) {
  // A filter change or reload keeps the old rows until the answer comes: dimmed and marked busy, so
  // they are never taken for the new result.
  const refreshing = list.loading && list.loaded;
  return (
    <>
      <ErrorBox error={list.error} onRetry={list.reload} />
      {list.loading && !list.loaded && <Loading what={loading} />}
      {refreshing && (
        <p class="muted small" role="status">
          Updating…
        </p>
      )}
      {list.loaded && list.items.length === 0 && <Empty>{empty}</Empty>}
      {list.items.length > 0 && (
        <div class={`table-wrap ${refreshing ? 'is-stale' : ''}`} aria-busy={refreshing}>
          <table>
            <thead>
              <tr>{head}</tr>
            </thead>
            <tbody>{children}</tbody>
          </table>
        </div>
      )}
      {list.hasMore && (
        <button type="button" class="btn" onClick={list.loadMore}>
          Load more
        </button>
      )}
    </>
  );
}
