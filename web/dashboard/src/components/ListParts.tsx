// Pieces of the Assinaturas and Afiliados screens: the "Carregar mais" button of a list read a page
// at a time (lib/more.ts), a group of checkboxes with the API's error for the group, an editor's
// buttons, and whole numbers typed in a field.
import { useId, useState } from 'preact/hooks';
import type { ApiError } from '../api/client.ts';
import type { More } from '../lib/more.ts';
import { fieldError } from './MoneyField.tsx';
import { FormError } from './ui.tsx';

export function MoreButton({ list }: { list: More<unknown> }) {
  return (
    <>
      <FormError error={list.moreError} />
      {list.more && (
        <button type="button" class="btn btn-secondary btn-block" disabled={list.loadingMore} onClick={list.more}>
          {list.loadingMore ? 'Carregando…' : 'Carregar mais'}
        </button>
      )}
    </>
  );
}

/** A form opened on demand: `open`, `show()`, and the `cancel` and `done` (closes and reloads) to give it. */
export function useOpenForm(reload: () => void) {
  const [open, setOpen] = useState(false);
  return {
    open,
    show: () => setOpen(true),
    cancel: () => setOpen(false),
    done: () => {
      setOpen(false);
      reload();
    },
  };
}

/** The buttons of a create/edit form: save (busy while it runs) and, when given, cancel. */
export function FormButtons({ busy, label, cancel }: { busy: boolean; label: string; cancel?: () => void }) {
  return (
    <div class="actions">
      <button class="btn btn-primary" type="submit" disabled={busy}>
        {busy ? 'Salvando…' : label}
      </button>
      {cancel && (
        <button class="btn btn-secondary" type="button" onClick={cancel}>
          Cancelar
        </button>
      )}
    </div>
  );
}

/** Checkboxes for a list field (`name` is the API's field: its error shows under the group). */
export function CheckGroup({ legend, name, options, value, onValue, error }: { legend: string; name: string; options: [string, string][]; value: string[]; onValue: (v: string[]) => void; error?: ApiError | null }) {
  const id = useId();
  const message = error?.fields[name];
  return (
    <fieldset class={message ? 'field-invalid' : undefined} aria-describedby={message ? `${id}-err` : undefined}>
      <legend>{legend}</legend>
      {options.map(([v, label]) => (
        <label key={v} class="check">
          <input type="checkbox" name={name} value={v} checked={value.includes(v)} onChange={(e) => onValue((e.target as HTMLInputElement).checked ? [...value, v] : value.filter((x) => x !== v))} /> {label}
        </label>
      ))}
      {message && (
        <small id={`${id}-err`} class="field-message">
          {message}
        </small>
      )}
    </fieldset>
  );
}

/** A whole number typed in a form field (null when left empty), or throws the field error the form shows. */
export function intOf(text: string, name: string): number | null {
  const t = text.trim();
  if (!t) return null;
  if (!/^\d+$/.test(t)) throw fieldError(name, 'Informe um número inteiro, sem pontos nem vírgulas.');
  return Number(t);
}
