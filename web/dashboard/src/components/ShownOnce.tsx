// A secret the API shows only once (an API key, a webhook signing secret), with a copy button:
// Desenvolvedores, and a sub-account's key in Subcontas.
import type { ComponentChildren } from 'preact';
import { CopyButton } from './ui.tsx';

export function ShownOnce({ title, note, value, copyLabel, close }: { title: string; note: ComponentChildren; value: string; copyLabel: string; close: () => void }) {
  return (
    <div class="card key-shown" role="status">
      <h2>{title}</h2>
      <p>{note}</p>
      <p class="mono secret" data-testid="secret-value">
        {value}
      </p>
      <div class="actions">
        <CopyButton text={value} label={copyLabel} />
        <button type="button" class="btn btn-ghost" onClick={close}>
          Pronto, copiei
        </button>
      </div>
    </div>
  );
}
