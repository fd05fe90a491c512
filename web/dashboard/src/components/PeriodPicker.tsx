// A period chosen by chips (Hoje, 7 dias, ...) or, under "Período", typed as dd/mm/aaaa to dd/mm/aaaa
// (Início, Divisões). The typed range applies when "Ver" is pressed.
import { useState } from 'preact/hooks';
import { DateField } from './ui.tsx';

export type PeriodChoice<K> = { preset: K } | { from: string; to: string };

export function PeriodPicker<K extends string | number>({ presets, preset, range, pick }: { presets: [K, string][]; preset: K | null; range: { from: string; to: string }; pick: (p: PeriodChoice<K>) => void }) {
  const [showCustom, setShowCustom] = useState(preset === null);
  const [custom, setCustom] = useState(range);
  return (
    <>
      <div class="presets" role="group" aria-label="Período">
        {presets.map(([p, label]) => (
          <button
            key={p}
            type="button"
            class={!showCustom && preset === p ? 'chip chip-on' : 'chip'}
            aria-pressed={!showCustom && preset === p}
            onClick={() => {
              setShowCustom(false);
              pick({ preset: p });
            }}
          >
            {label}
          </button>
        ))}
        <button type="button" class={showCustom ? 'chip chip-on' : 'chip'} aria-pressed={showCustom} onClick={() => setShowCustom(true)}>
          Período
        </button>
      </div>
      {showCustom && (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            pick({ from: custom.from, to: custom.to });
          }}
        >
          <DateField label="De" name="from" value={custom.from} onValue={(v) => setCustom({ ...custom, from: v })} />
          <DateField label="Até" name="to" value={custom.to} onValue={(v) => setCustom({ ...custom, to: v })} />
          <button class="btn btn-primary" type="submit">
            Ver
          </button>
        </form>
      )}
    </>
  );
}
