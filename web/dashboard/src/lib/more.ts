// A list read a page at a time with "Carregar mais": cursor lists (the next cursor) and page-style
// lists (the next page number) alike. `load(next)` answers the items and what to ask for next (null
// at the end); the list starts again when `deps` change.
import { useState } from 'preact/hooks';
import { ApiError } from '../api/client.ts';
import { useAsync } from './async.ts';

export type Next = string | number | null;

export interface More<T> {
  items: T[];
  loading: boolean;
  error: ApiError | null;
  reload: () => void;
  /** Present when there is more to load. */
  more: (() => void) | null;
  loadingMore: boolean;
  moreError: ApiError | null;
}

export function useMore<T>(load: (next?: string | number) => Promise<{ items: T[]; next: Next }>, deps: unknown[]): More<T> {
  const [rows, setRows] = useState<{ items: T[]; next: Next }>({ items: [], next: null });
  const [loadingMore, setLoadingMore] = useState(false);
  const [moreError, setMoreError] = useState<ApiError | null>(null);
  const first = useAsync(async () => {
    const r = await load();
    setRows(r);
    return r;
  }, deps);
  const next = rows.next;
  return {
    items: first.data ? rows.items : [],
    loading: first.loading,
    error: first.error,
    reload: first.reload,
    loadingMore,
    moreError,
    more:
      next == null
        ? null
        : async () => {
            setLoadingMore(true);
            setMoreError(null);
            try {
              const r = await load(next);
              setRows((cur) => ({ items: [...cur.items, ...r.items], next: r.next }));
            } catch (err) {
              setMoreError(err instanceof ApiError ? err : new ApiError(0, String(err)));
            } finally {
              setLoadingMore(false);
            }
          },
  };
}

/** The next page of a page-style answer ({meta: {page, totalPages}}), or null after the last. */
export const nextPage = (meta: { page: number; totalPages: number }): Next => (meta.page < meta.totalPages ? meta.page + 1 : null);
