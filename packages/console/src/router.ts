// Path routing under /console/: the server answers every console path with index.html (src/http/console.ts),
// so a reload or a shared link opens the same page. Links push history entries; the back button pops them.
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/console';
const CHANGE = 'console:navigate';

export interface Location {
  /** The path below /console, always starting with "/". */
  path: string;
  query: URLSearchParams;
}

function current(): Location {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) || '/' : '/';
  return { path, query: new URLSearchParams(location.search) };
}

/** `/tags?status=created` → the browser's URL for it. */
export function href(to: string): string {
  return BASE + to;
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', href(to));
  else history.pushState(null, '', href(to));
  dispatchEvent(new Event(CHANGE));
}

export function useLocation(): Location {
  const [where, setWhere] = useState(current);
  useEffect(() => {
    const update = () => {
      setWhere(current());
      scrollTo(0, 0);
    };
    addEventListener('popstate', update);
    addEventListener(CHANGE, update);
    return () => {
      removeEventListener('popstate', update);
      removeEventListener(CHANGE, update);
    };
  }, []);
  return where;
}

/** `/tags/:id` against `/tags/tag_1` → { id: 'tag_1' }, or null when the path is another. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/');
  const have = path.replace(/\/+$/, '').split('/');
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(have[i]);
    else if (want[i] !== have[i]) return null;
  }
  return params;
}

/** A query string from the set values of `values` ("" and undefined are left out). */
export function queryOf(values: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) if (value) params.set(name, value);
  const text = params.toString();
  return text ? `?${text}` : '';
}
