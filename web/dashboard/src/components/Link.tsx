import type { ComponentChildren } from 'preact';
import { BASE, navigate } from '../lib/router.ts';

/** A link inside the app: a real href (opens in a new tab, works without JS routing), routed in place on a plain click. */
export function Link({ to, children, class: cls, current }: { to: string; children: ComponentChildren; class?: string; current?: boolean }) {
  return (
    <a
      href={BASE + (to === '/' ? '' : to)}
      class={cls}
      aria-current={current ? 'page' : undefined}
      onClick={(e) => {
        if (e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
