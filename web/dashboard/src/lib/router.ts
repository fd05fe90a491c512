// Client-side routes under /dashboard (the server answers index.html for each of them).
import { Cell } from './state.ts';

export const BASE = '/dashboard';

function current(): string {
  const p = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return (p || '/') + location.search;
}

/** The route: the path after /dashboard, with its query string. */
export const route = new Cell<string>(current());

addEventListener('popstate', () => route.set(current()));

export function navigate(to: string, opts: { replace?: boolean } = {}) {
  const url = BASE + (to === '/' ? '' : to);
  if (opts.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  route.set(current());
  if (!opts.replace) scrollTo(0, 0);
}

export function pathOf(r: string): string {
  return r.split('?')[0] || '/';
}

export function queryOf(r: string): URLSearchParams {
  const i = r.indexOf('?');
  return new URLSearchParams(i >= 0 ? r.slice(i + 1) : '');
}

/** Matches '/vendas/:id' against a path: the parameters, or null. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const a = pattern.split('/');
  const b = path.replace(/\/+$/, '').split('/');
  if (path === '/') return pattern === '/' ? {} : null;
  if (a.length !== b.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    if (a[i].startsWith(':')) params[a[i].slice(1)] = decodeURIComponent(b[i]);
    else if (a[i] !== b[i]) return null;
  }
  return params;
}
