import type { ComponentChildren } from 'preact';
import type { PagedList } from '../paged-list';
import { Empty, ErrorBox, Loading } from '../ui';

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
  return (
    <>
      <ErrorBox error={list.error} onRetry={list.reload} />
      {list.loading && !list.loaded && <Loading what={loading} />}
      {list.loaded && list.items.length === 0 && <Empty>{empty}</Empty>}
      {list.items.length > 0 && (
        <div class="table-wrap">
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
