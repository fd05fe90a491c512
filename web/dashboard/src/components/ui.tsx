// Shared pieces of every screen: states (loading, empty, error), form fields with the API's field
// errors beside them, status badges, the copy button.
import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { useEffect, useId, useState } from 'preact/hooks';
import type { ApiError } from '../api/client.ts';
import { STATUS_LABELS } from '../lib/format.ts';

export function Loading({ label = 'Carregando…' }: { label?: string }) {
  return (
    <div class="state" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" /> {label}
    </div>
  );
}

export function ErrorState({ error, retry }: { error: ApiError; retry?: () => void }) {
  return (
    <div class="state state-error" role="alert">
      <p>{error.message}</p>
      {retry && (
        <button type="button" class="btn btn-secondary" onClick={retry}>
          Tentar de novo
        </button>
      )}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="state state-empty">
      <p class="state-title">{title}</p>
      {children}
    </div>
  );
}

/** The form's error above its fields when the API named no field (or one not on the form). */
export function FormError({ error, fields = [] }: { error: ApiError | null; fields?: string[] }) {
  if (!error) return null;
  const others = Object.entries(error.fields).filter(([f]) => !fields.includes(f));
  return (
    <div class="form-error" role="alert">
      <p>{error.message}</p>
      {others.length > 0 && (
        <ul>
          {others.map(([f, m]) => (
            <li key={f}>
              {f}: {m}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, 'label' | 'onInput' | 'value' | 'name' | 'type' | 'error'> & {
  label: ComponentChildren;
  name: string;
  value: string;
  onValue: (v: string) => void;
  error?: ApiError | null;
  hint?: string;
  type?: string;
  required?: boolean;
  autoComplete?: string;
  inputMode?: string;
  placeholder?: string;
};

/** A labelled input; the API's error for `name` (or `errorField`) is shown under it and announced. */
export function Field({ label, name, value, onValue, error, hint, errorField, ...rest }: InputProps & { errorField?: string }) {
  const id = useId();
  const message = error?.fields[errorField ?? name];
  const describedBy = [hint ? `${id}-hint` : '', message ? `${id}-err` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class={`field${message ? ' field-invalid' : ''}`}>
      <label for={id}>{label}</label>
      <input id={id} name={name} value={value} onInput={(e) => onValue((e.target as HTMLInputElement).value)} aria-invalid={message ? 'true' : undefined} aria-describedby={describedBy} {...(rest as object)} />
      {hint && (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      )}
      {message && (
        <small id={`${id}-err`} class="field-message">
          {message}
        </small>
      )}
    </div>
  );
}

/** A labelled select; the API's error for `name` (or `errorField`) is shown under it. */
export function Select({ label, name, value, onValue, options, error, errorField }: { label: string; name: string; value: string; onValue: (v: string) => void; options: [string, string][]; error?: ApiError | null; errorField?: string }) {
  const id = useId();
  const message = error?.fields[errorField ?? name];
  return (
    <div class={`field${message ? ' field-invalid' : ''}`}>
      <label for={id}>{label}</label>
      <select id={id} name={name} value={value} onChange={(e) => onValue((e.target as HTMLSelectElement).value)} aria-invalid={message ? 'true' : undefined} aria-describedby={message ? `${id}-err` : undefined}>
        {options.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
      {message && (
        <small id={`${id}-err`} class="field-message">
          {message}
        </small>
      )}
    </div>
  );
}

const TONES: Record<string, string> = {
  PAID: 'ok', SUCCEEDED: 'ok', ACTIVE: 'ok', COMPLETED: 'ok', APPROVED: 'ok',
  PENDING: 'wait', AUTHORIZED: 'wait', PROCESSING: 'wait', SUBMITTED: 'wait',
  FAILED: 'bad', EXPIRED: 'off', CANCELLED: 'off', DISABLED: 'off', REJECTED: 'bad',
  REFUNDED: 'off', PARTIALLY_REFUNDED: 'wait', CHARGEBACK: 'bad',
};

export function Badge({ status }: { status: string }) {
  return <span class={`badge badge-${TONES[status] ?? 'off'}`}>{STATUS_LABELS[status] ?? status}</span>;
}

export function CopyButton({ text, label = 'Copiar' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      class="btn btn-secondary btn-small"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
        } catch {
          // Clipboard refused (insecure origin): select the text for a manual copy.
          const ta = document.createElement('textarea');
          ta.value = text;
          document.body.append(ta);
          ta.select();
          document.execCommand('copy');
          ta.remove();
        }
        setDone(true);
        setTimeout(() => setDone(false), 2000);
      }}
    >
      <span aria-live="polite">{done ? 'Copiado!' : label}</span>
    </button>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  return (
    <div class="page-header">
      <h1>{title}</h1>
      {children && <div class="page-actions">{children}</div>}
    </div>
  );
}

/** A small button that runs an action, after a confirmation question when `ask` is given. */
export function Action({ label, ask, run, busy, tone = 'secondary', ariaLabel }: { label: string; ask?: string; run: () => void; busy?: boolean; tone?: 'primary' | 'secondary' | 'danger'; ariaLabel?: string }) {
  return (
    <button type="button" class={`btn btn-${tone} btn-small`} disabled={busy} aria-label={ariaLabel} onClick={() => (!ask || confirm(ask)) && run()}>
      {label}
    </button>
  );
}

/** "dd/mm/aaaa" -> "aaaa-mm-dd" when it is a real calendar date, else null. */
export function parseDateBR(text: string): string | null {
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text.trim());
  if (!m) return null;
  const iso = `${m[3]}-${m[2]}-${m[1]}`;
  const d = new Date(`${iso}T12:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === iso ? iso : null;
}

/** A date typed as dd/mm/aaaa whatever the browser's language; `value` and `onValue` are YYYY-MM-DD ('' when empty); the API's error for `name` under it. */
export function DateField({ label, name, value, onValue, error }: { label: string; name: string; value: string; onValue: (iso: string) => void; error?: ApiError | null }) {
  const [text, setText] = useState(value ? value.split('-').reverse().join('/') : '');
  const [bad, setBad] = useState(false);
  const id = useId();
  // A value set from outside (a form emptied after it was sent) shows in the box.
  useEffect(() => {
    if (value !== (parseDateBR(text) ?? '')) setText(value ? value.split('-').reverse().join('/') : '');
  }, [value]);
  const apply = (t: string) => {
    const digits = t.replace(/\D/g, '').slice(0, 8);
    const masked = digits.replace(/^(\d{2})(\d)/, '$1/$2').replace(/^(\d{2}\/\d{2})(\d)/, '$1/$2');
    setText(masked);
    if (!masked) return setBad(false), onValue('');
    const iso = parseDateBR(masked);
    setBad(masked.length === 10 && !iso);
    if (iso && iso !== value) onValue(iso);
  };
  const message = bad ? 'Data inválida: use dd/mm/aaaa.' : error?.fields[name];
  return (
    <div class={`field${message ? ' field-invalid' : ''}`}>
      <label for={id}>{label}</label>
      <input id={id} name={name} inputMode="numeric" autoComplete="off" placeholder="dd/mm/aaaa" maxLength={10} value={text} onInput={(e) => apply((e.target as HTMLInputElement).value)} aria-invalid={message ? 'true' : undefined} aria-describedby={message ? `${id}-err` : undefined} />
      {message && (
        <small id={`${id}-err`} class="field-message">
          {message}
        </small>
      )}
    </div>
  );
}

/** One yes/no choice as a checkbox, the API's error for `name` under it. */
export function CheckField({ label, name, checked, onChecked, error }: { label: ComponentChildren; name: string; checked: boolean; onChecked: (v: boolean) => void; error?: ApiError | null }) {
  const id = useId();
  const message = error?.fields[name];
  return (
    <div class={`field${message ? ' field-invalid' : ''}`}>
      <label class="check" for={id}>
        <input id={id} type="checkbox" name={name} checked={checked} onChange={(e) => onChecked(e.currentTarget.checked)} aria-invalid={message ? 'true' : undefined} aria-describedby={message ? `${id}-err` : undefined} /> {label}
      </label>
      {message && (
        <small id={`${id}-err`} class="field-message">
          {message}
        </small>
      )}
    </div>
  );
}

/** A screen made of tabs kept in the address (?aba=...), so each tab can be linked and reloaded. */

