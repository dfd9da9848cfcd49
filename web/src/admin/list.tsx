import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Operations } from '../api';
import type { PagedList } from '../paged-list';
import { type AsyncState, Empty, ErrorBox, Field, Loading } from '../ui';
import { AffiliatePicker } from './affiliate-picker';

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

/** One affiliate's entries, or everyone's when empty: picked from the list of affiliates. */
export function RefCodeFilter({ value, onChange }: { value: string; onChange: (refCode: string) => void }) {
  return <AffiliatePicker value={value} onChange={onChange} />;
}

/**
 * A table that scrolls sideways inside its own box when it is wider than the screen, and shows that it
 * does: a fade on each side that has more columns, and a hint under it.
 */
export function ScrollTable({
  class: className,
  busy = false,
  testid,
  children,
}: {
  class?: string;
  busy?: boolean;
  testid?: string;
  children: ComponentChildren;
}) {
  const box = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState({ left: false, right: false });
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const update = () => {
      const left = el.scrollLeft > 1;
      const right = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
      setMore((m) => (m.left === left && m.right === right ? m : { left, right }));
    };
    update();
    el.addEventListener('scroll', update, { passive: true });
    const resize = new ResizeObserver(update);
    resize.observe(el);
    if (el.firstElementChild) resize.observe(el.firstElementChild);
    return () => {
      el.removeEventListener('scroll', update);
      resize.disconnect();
    };
  }, []);
  const scrolls = more.left || more.right;
  // the hint goes above the table: under a long list it would be out of sight
  return (
    <>
      {scrolls && (
        <p class="scroll-hint muted small" data-testid="scroll-hint">
          {more.right ? 'More columns: scroll the table sideways →' : '← More columns: scroll the table back'}
        </p>
      )}
      <div class="table-frame" data-more-left={more.left ? '' : undefined} data-more-right={more.right ? '' : undefined}>
        {/* focusable when it scrolls, so keyboard users can scroll it with the arrow keys */}
        <div class={`table-wrap ${busy ? 'is-stale' : ''}`} ref={box} aria-busy={busy} tabIndex={scrolls ? 0 : undefined}>
          <table class={className} data-testid={testid}>
            {children}
          </table>
        </div>
      </div>
    </>
  );
}

/** The header of the row buttons' column: nothing to see, a name for screen readers. */
/** A table's column heads: a name, or [name, class] for a styled one ("num"); the row actions' head last when `actions`. */
export function Heads({ cols, actions = false }: { cols: readonly (string | readonly [string, string])[]; actions?: boolean }) {
  return (
    <>
      {cols.map((c) =>
        typeof c === 'string' ? (
          <th key={c} scope="col">
            {c}
          </th>
        ) : (
          <th key={c[0]} scope="col" class={c[1]}>
            {c[0]}
          </th>
        ),
      )}
      {actions && <ActionsHeader />}
    </>
  );
}

export function ActionsHeader() {
  return (
    <th scope="col">
      <span class="sr-only">Actions</span>
    </th>
  );
}

/** What a list's table shows in its states (TableStates): the words while loading and when empty, its heads, its rows. */
interface TableParts {
  loading: string;
  empty: ComponentChildren;
  head: ComponentChildren;
  testid?: string;
  children: ComponentChildren;
}

/**
 * A list's table with the states around it: the error (with a retry), the first load, a refresh under way
 * (`busy`: the old rows stay, dimmed and marked busy, so they are never taken for the new result) and the
 * empty list. `head` is the header row's cells, `children` the body rows.
 */
function TableStates({
  error,
  onRetry,
  firstLoad,
  loaded,
  count,
  busy = false,
  loading,
  empty,
  head,
  testid,
  children,
}: TableParts & { error: unknown; onRetry: () => void; firstLoad: boolean; loaded: boolean; count: number; busy?: boolean }) {
  return (
    <>
      <ErrorBox error={error} onRetry={onRetry} />
      {firstLoad && <Loading what={loading} />}
      {busy && (
        <p class="muted small" role="status">
          Updating…
        </p>
      )}
      {loaded && count === 0 && <Empty>{empty}</Empty>}
      {count > 0 && (
        <ScrollTable busy={busy} testid={testid}>
          <thead>
            <tr>{head}</tr>
          </thead>
          <tbody>{children}</tbody>
        </ScrollTable>
      )}
    </>
  );
}

/** The table of a paged admin list (TableStates) and its "Load more". */
export function PagedTable({ list, ...parts }: TableParts & { list: PagedList<unknown> }) {
  return (
    <>
      <TableStates
        error={list.error}
        onRetry={list.reload}
        firstLoad={list.loading && !list.loaded}
        loaded={list.loaded}
        count={list.items.length}
        busy={list.loading && list.loaded}
        {...parts}
      />
      {list.hasMore && (
        <button type="button" class="btn" onClick={list.loadMore}>
          Load more
        </button>
      )}
    </>
  );
}

/** The table of a list that comes in one answer (useAsync), with its states (TableStates). `count` is how many rows the page shows of the answer. */
export function LoadedTable({ state, count, ...parts }: TableParts & { state: AsyncState<unknown>; count: number }) {
  return <TableStates error={state.error} onRetry={state.reload} firstLoad={state.loading && !state.data} loaded={state.data !== undefined} count={count} {...parts} />;
}

/** The CSV exports of the API (`GET /api/<list>.csv`), keyed as in the generated types. */
type CsvExport = Extract<keyof Operations, `GET /api/${string}.csv`>;

/**
 * "Export CSV": downloads every row the list shows for the filters on screen (`params`, the list's own
 * query without paging), from the admin mount of the export (the session cookie goes with the link).
 */
export function ExportCsvLink({ op, params }: { op: CsvExport; params: string }) {
  return (
    <a class="btn btn-small" href={`/admin${op.slice('GET '.length)}${params}`} download data-testid="export-csv">
      Export CSV
    </a>
  );
}
