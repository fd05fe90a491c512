// Rows that scroll sideways on a phone (the menu, a screen's tabs): the current item is brought
// into the row when it is out of sight, instead of being left off-screen.
import { useLayoutEffect, useRef } from 'preact/hooks';

/** A ref for the row; its `[aria-current="page"]` item is scrolled into it whenever `current` changes. */
export function useCurrentInView<T extends HTMLElement>(current: unknown) {
  const ref = useRef<T>(null);
  useLayoutEffect(() => {
    const row = ref.current;
    const item = row?.querySelector<HTMLElement>('[aria-current="page"]');
    if (!row || !item) return;
    const r = row.getBoundingClientRect();
    const i = item.getBoundingClientRect();
    if (i.left < r.left || i.right > r.right) row.scrollLeft += i.left - r.left - 16;
  }, [current]);
  return ref;
}
