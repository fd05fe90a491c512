// A screen of tabs: the current one in `?aba=`, a link each (they open in a new tab too).
import type { ComponentChildren } from 'preact';
import { navigate } from '../lib/router.ts';
import { useCurrentInView } from '../lib/scroll.ts';
import { NeedsKyc } from './NeedsKyc.tsx';
import { PageHeader } from './ui.tsx';

function Tabs({ tabs, current, onSelect }: { tabs: [string, string][]; current: string; onSelect: (t: string) => void }) {
  const nav = useCurrentInView<HTMLElement>(current);
  return (
    <nav class="tabs" aria-label="Seções" ref={nav}>
      {tabs.map(([key, label]) => (
        <a
          key={key}
          href={`?aba=${key}`}
          class={key === current ? 'tab tab-current' : 'tab'}
          aria-current={key === current ? 'page' : undefined}
          onClick={(e) => {
            e.preventDefault();
            onSelect(key);
          }}
        >
          {label}
        </a>
      ))}
    </nav>
  );
}

/** The screen's title, what it says before its tabs (`intro`), its tabs and the current tab's content; a tab marked `'kyc'` needs production released (NeedsKyc). */
export function TabbedScreen({ title, path, route, tabs, intro, footer }: { title: string; path: string; route: string; tabs: [string, string, () => preact.JSX.Element, 'kyc'?][]; intro?: ComponentChildren; footer?: ComponentChildren }) {
  const key = new URLSearchParams(route.split('?')[1] ?? '').get('aba') ?? tabs[0][0];
  const [, , Current, needs] = tabs.find((t) => t[0] === key) ?? tabs[0];
  return (
    <div>
      <PageHeader title={title} />
      {intro}
      <Tabs tabs={tabs.map(([k, label]) => [k, label])} current={key} onSelect={(t) => navigate(`${path}?aba=${t}`)} />
      {needs ? (
        <NeedsKyc>
          <Current />
        </NeedsKyc>
      ) : (
        <Current />
      )}
      {footer}
    </div>
  );
}
