// The two shapes every management screen is made of, so that a screen declares what it lists and
// what its forms send instead of repeating the plumbing:
// - AsyncList: a list loaded from the API, with its loading, error (retry) and empty states;
// - FormCard: a form in a card with its title, the API's error above (for what no field shows), the
//   submit button while busy, and the error handed to the fields so each shows its own message.
import type { ComponentChildren, JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { ApiError } from '../api/client.ts';
import { useSubmit, type Async } from '../lib/async.ts';
import { Empty, ErrorState, FormError, Loading } from './ui.tsx';

export function AsyncList<D, T extends { id: string }>({
  list,
  items,
  empty,
  hint,
  itemClass = 'card',
  children,
}: {
  list: Async<D>;
  itemClass?: string;
  items: (data: D) => T[];
  /** The empty state's title, and what to do next. */
  empty: string;
  hint?: ComponentChildren;
  children: (item: T) => JSX.Element;
}) {
  if (list.loading && !list.data) return <Loading />;
  if (list.error) return <ErrorState error={list.error} retry={list.reload} />;
  const rows = list.data ? items(list.data) : [];
  if (!rows.length) return <Empty title={empty}>{hint}</Empty>;
  return (
    <ul class="list cards-list">
      {rows.map((item) => (
        <li key={item.id} class={itemClass}>
          {children(item)}
        </li>
      ))}
    </ul>
  );
}

export function FormCard({
  title,
  fields,
  submit,
  label,
  busyLabel = 'Salvando…',
  cancel,
  embedded,
  children,
}: {
  title: string;
  /** Inside another card (an item edited in place): no card of its own. */
  embedded?: boolean;
  /** The fields the form shows (their API errors appear beside them, not above). */
  fields: string[];
  /** Sends the form; an ApiError it throws (the API's, or a local field check) is shown. */
  submit: () => Promise<void>;
  label: string;
  busyLabel?: string;
  cancel?: () => void;
  children: (error: ApiError | null) => ComponentChildren;
}) {
  const form = useSubmit();
  return (
    <form
      class={embedded ? 'edit-form' : 'card'}
      onSubmit={(e) => {
        e.preventDefault();
        void form.submit(submit);
      }}
    >
      <h2>{title}</h2>
      <FormError error={form.error} fields={fields} />
      {children(form.error)}
      <div class="actions">
        <button class="btn btn-primary" type="submit" disabled={form.busy}>
          {form.busy ? busyLabel : label}
        </button>
        {cancel && (
          <button type="button" class="btn btn-ghost" onClick={cancel}>
            Cancelar
          </button>
        )}
      </div>
    </form>
  );
}

/** A form's values as one object: `set('name')` is the setter of one field, `reset()` empties them. */
export function useFields<F extends Record<string, string>>(initial: F) {
  const [values, setValues] = useState(initial);
  const set = (k: keyof F) => (v: string) => setValues((s) => ({ ...s, [k]: v }));
  return { values, set, reset: () => setValues(initial) };
}
