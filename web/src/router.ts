import { useEffect, useState } from 'preact/hooks';

/** A tiny history router: the server answers every page with the same index.html. */
const listeners = new Set<() => void>();

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  for (const fn of listeners) fn();
  window.scrollTo(0, 0);
}

/** A part of the location, kept in step with navigate(), setSearch() and the back button. */
function useLocationPart(read: () => string): string {
  const [value, setValue] = useState(read);
  useEffect(() => {
    const update = () => setValue(read());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return value;
}

/**
 * The path as the service routed it: percent-decoded, as its router decodes it (`/%61dmin` is `/admin`),
 * or as it is when it does not decode.
 */
export function routedPath(): string {
  try {
    return decodeURIComponent(location.pathname);
  } catch {
    return location.pathname;
  }
}

export function usePath(): string {
  return useLocationPart(routedPath);
}

/** The query string of the current page. */
export function useSearch(): URLSearchParams {
  return new URLSearchParams(useLocationPart(() => location.search));
}

/**
 * Puts a page's filters into its URL (empty values left out), so a reload or a shared link shows the same
 * view and the back button returns to the previous filters. Does nothing when they are already there.
 */
export function setSearch(params: Record<string, string | undefined>, replace = false): void {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const query = q.toString();
  const next = `${location.pathname}${query ? `?${query}` : ''}`;
  if (next === `${location.pathname}${location.search}`) return;
  if (replace) history.replaceState(null, '', next);
  else history.pushState(null, '', next);
  for (const fn of listeners) fn();
}

/** Same-app links navigate without a reload; modified clicks (new tab) behave as usual. */
export function onLinkClick(e: MouseEvent): void {
  const a = (e.currentTarget as HTMLAnchorElement | null) ?? null;
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  navigate(a.getAttribute('href') ?? '/');
}
