// The shapes every management screen is made of, so that a screen declares what it lists and what
// its forms send instead of repeating the plumbing:
// - AsyncList: a list loaded from the API, with its loading, error (retry) and empty states;
// - FormCard: a form in a card named by its title, the API's error above (for what no field shows),
//   the submit button while busy (and cancel), and the error handed to the fields so each shows its
//   own message;
// - Checkboxes: a list field as checkboxes, with the API's error for the field under them;
// - Collection: a form to create above the list, each item edited in place with the same form;
// - SearchForm: the search box above a list;
// - ApiAction: a button on an item that calls the API (after a confirmation), its error beside it.
import type { ComponentChildren, JSX } from 'preact';
import { useId, useState } from 'preact/hooks';
import { ApiError } from '../api/client.ts';
import { useSubmit, type Async } from '../lib/async.ts';
import { Action, Empty, ErrorState, Field, FormError, Loading } from './ui.tsx';

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
  edit,
  children,
}: {
  title: string;
  /** Inside another card: no card of its own. */
  embedded?: boolean;
  /** The name of the item the form edits in place (title "Editar …", "Salvar alterações"); absent, it creates. */
  edit?: string;
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
  const titleId = useId();
  if (edit != null) [title, label, busyLabel, embedded] = [`Editar “${edit}”`, 'Salvar alterações', 'Salvando…', true];
  return (
    <form
      class={embedded ? 'edit-form' : 'card'}
      aria-labelledby={titleId}
      // The API validates (the browser's bubbles would not sit beside the field, nor in the API's words).
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        const el = e.currentTarget;
        void form.submit(() => submit().catch((err: unknown) => Promise.reject(withEmptyRequired(el, err))));
      }}
    >
      <h2 id={titleId}>{title}</h2>
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

/**
 * A form's field errors with every required field left empty among them: a local check (a money
 * field) or the API may have named only some, and the rest should not wait for the next submit.
 */
function withEmptyRequired(form: HTMLFormElement, err: unknown): unknown {
  if (!(err instanceof ApiError) || !Object.keys(err.fields).length) return err;
  for (const el of Array.from(form.elements) as HTMLInputElement[]) {
    if (el.required && el.name && !(el.name in err.fields) && typeof el.value === 'string' && !el.value.trim()) err.fields[el.name] = 'Preencha este campo.';
  }
  return err;
}

/**
 * A list field as checkboxes (payment methods, permissions, event types), the API's error for the
 * field (`name`) under them; `rows` groups them under a label each (a resource: ler, escrever), and
 * `class` lays them out (its `-grid` holds the boxes).
 */
export function Checkboxes<V extends string>({ legend, name, options = [], rows, value, onValue, error, class: cls }: { legend: string; name: string; options?: [V, ComponentChildren][]; rows?: [string, [V, ComponentChildren][]][]; value: V[]; onValue: (v: V[]) => void; error?: ApiError | null; class?: string }) {
  const id = useId();
  const message = error?.fields[name];
  const box = ([v, label]: [V, ComponentChildren]) => (
    <label key={v} class="check">
      <input type="checkbox" name={name} value={v} checked={value.includes(v)} onChange={(e) => onValue(e.currentTarget.checked ? [...value, v] : value.filter((x) => x !== v))} /> {label}
    </label>
  );
  const boxes = rows
    ? rows.map(([label, opts]) => (
        <div key={label} class="check-row">
          <span>{label}</span>
          {opts.map(box)}
        </div>
      ))
    : options.map(box);
  return (
    <fieldset class={[cls, message && 'field-invalid'].filter(Boolean).join(' ') || undefined} aria-describedby={message ? `${id}-err` : undefined}>
      <legend>{legend}</legend>
      {cls ? <div class={`${cls}-grid`}>{boxes}</div> : boxes}
      {message && (
        <small id={`${id}-err`} class="field-message">
          {message}
        </small>
      )}
    </fieldset>
  );
}

/** A form's values as one object: `set('name')` is the setter of one field, `reset()` empties them. */
export function useFields<F extends Record<string, string>>(initial: F) {
  const [values, setValues] = useState(initial);
  const set = (k: keyof F) => (v: string) => setValues((s) => ({ ...s, [k]: v }));
  return { values, set, reset: () => setValues(initial) };
}

/** The form of a collection's item: without `item` it creates one, with it it edits that one. */
export type ItemForm<T> = (props: { item?: T; done: () => void; cancel?: () => void }) => JSX.Element;

/** A list item that turns into its edit form when "Editar" is pressed. */
function Editable({ name, view, actions, edit }: { name: string; view: ComponentChildren; actions?: ComponentChildren; edit: (close: () => void) => ComponentChildren }) {
  const [editing, setEditing] = useState(false);
  if (editing) return <>{edit(() => setEditing(false))}</>;
  return (
    <>
      {view}
      <div class="actions">
        {actions}
        <button type="button" class="btn btn-secondary btn-small" aria-label={`Editar ${name}`} onClick={() => setEditing(true)}>
          Editar
        </button>
      </div>
    </>
  );
}

/** The form to create an item above the list of them; each item has "Editar", which opens the same form filled in. */
export function Collection<D, T extends { id: string }>({
  list,
  items,
  empty,
  hint,
  Form,
  name,
  actions,
  children: view,
}: {
  list: Async<D>;
  items: (data: D) => T[];
  empty: string;
  hint: string;
  Form: ItemForm<T>;
  /** What "Editar" edits, for screen readers ("Editar Vaso grande"). */
  name: (item: T) => string;
  actions?: (item: T) => ComponentChildren;
  /** An item as the list shows it. */
  children: (item: T) => ComponentChildren;
}) {
  return (
    <div>
      <Form done={list.reload} />
      <AsyncList list={list} items={items} empty={empty} hint={hint}>
        {(item) => <Editable name={name(item)} view={view(item)} actions={actions?.(item)} edit={(close) => <Form item={item} cancel={close} done={() => (close(), list.reload())} />} />}
      </AsyncList>
    </div>
  );
}

/** A search box above a list: `search` gets the trimmed text when the form is sent. */
export function SearchForm({ label, placeholder, search }: { label: string; placeholder: string; search: (text: string) => void }) {
  const [text, setText] = useState('');
  return (
    <form
      class="inline-form"
      role="search"
      onSubmit={(e) => {
        e.preventDefault();
        search(text.trim());
      }}
    >
      <Field label={label} name="search" value={text} onValue={setText} placeholder={placeholder} />
      <button class="btn btn-secondary" type="submit">
        Buscar
      </button>
    </form>
  );
}

/** A button that calls the API for one item (after the `ask` confirmation); a refusal shows beside it. */
export function ApiAction({ label, ask, tone, ariaLabel, call, done }: { label: string; ask?: string; tone?: 'primary' | 'secondary' | 'danger'; ariaLabel?: string; call: () => Promise<unknown>; done?: () => void }) {
  const { busy, error, submit } = useSubmit();
  return (
    <span class="api-action">
      <Action label={label} ask={ask} tone={tone} busy={busy} ariaLabel={ariaLabel} run={() => void submit(async () => (await call(), done?.()))} />
      {error && (
        <small class="field-message" role="alert">
          {error.message}
        </small>
      )}
    </span>
  );
}
