import { useState } from 'preact/hooks';
import { adminApi, type Page } from './api';
import { useAsync } from './ui';

export interface PagedList<T> {
  items: T[];
  loading: boolean;
  /** The first page has answered at least once; until then "empty" means "not known yet". */
  loaded: boolean;
  error: unknown;
  hasMore: boolean;
  reload: () => void;
  loadMore: () => Promise<void>;
}

/** A cursor-paged list (the admin's, or with `get` the portal's): the first page loads with the filters, "Load more" appends the next. */
export function usePagedList<T>(path: string, params: string, get: <P>(path: string) => Promise<P> = adminApi.get): PagedList<T> {
  const [version, setVersion] = useState(0);
  const [extra, setExtra] = useState<{ key: string; items: T[]; next: string | null } | undefined>();
  const key = `${path}${params}#${version}`;
  const first = useAsync(() => get<Page<T>>(`${path}${params}`), key);
  const [moreError, setMoreError] = useState<unknown>();
  const own = extra?.key === key ? extra : undefined;
  const next = own ? own.next : (first.data?.next_cursor ?? null);
  const items = [...(first.data?.items ?? []), ...(own?.items ?? [])];
  const sep = params ? '&' : '?';
  return {
    items,
    loading: first.loading,
    loaded: first.data !== undefined,
    error: first.error ?? moreError,
    hasMore: !!next,
    reload: () => {
      setMoreError(undefined);
      setVersion((v) => v + 1);
    },
    async loadMore() {
      if (!next) return;
      try {
        const page = await get<Page<T>>(`${path}${params}${sep}cursor=${encodeURIComponent(next)}`);
        setExtra({ key, items: [...(own?.items ?? []), ...page.items], next: page.next_cursor });
      } catch (err) {
        setMoreError(err);
      }
    },
  };
}
