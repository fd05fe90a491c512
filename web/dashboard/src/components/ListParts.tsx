// Pieces of the Assinaturas and Afiliados screens: the "Carregar mais" button of a list read a page
// at a time (lib/more.ts), a form opened on demand, and whole numbers typed in a field. (Forms and
// checkboxes: Resource.tsx.)
import { useState } from 'preact/hooks';
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

/** A whole number typed in a form field (null when left empty), or throws the field error the form shows. */
export function intOf(text: string, name: string): number | null {
  const t = text.trim();
  if (!t) return null;
  if (!/^\d+$/.test(t)) throw fieldError(name, 'Informe um número inteiro, sem pontos nem vírgulas.');
  return Number(t);
}
