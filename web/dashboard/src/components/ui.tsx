// Shared pieces of every screen: states (loading, empty, error), form fields with the API's field
// errors beside them, status badges, the copy button.
import type { ComponentChildren, InputHTMLAttributes } from 'preact';
import { useId, useState } from 'preact/hooks';
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
  const shown = Object.keys(error.fields).filter((f) => fields.includes(f));
  const others = Object.entries(error.fields).filter(([f]) => !fields.includes(f));
  if (shown.length && !others.length) return <p class="form-error" role="alert">Corrija os campos destacados.</p>;
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
  label: string;
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

export function Select({ label, name, value, onValue, options, error }: { label: string; name: string; value: string; onValue: (v: string) => void; options: [string, string][]; error?: ApiError | null }) {
  const id = useId();
  const message = error?.fields[name];
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
  REFUNDED: 'off', PARTIALLY_REFUNDED: 'wait',
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

export function Tabs({ tabs, current, onSelect }: { tabs: [string, string][]; current: string; onSelect: (t: string) => void }) {
  return (
    <nav class="tabs" aria-label="Seções">
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

/** A small button that runs an action, after a confirmation question when `ask` is given. */
export function Action({ label, ask, run, busy, tone = 'secondary', ariaLabel }: { label: string; ask?: string; run: () => void; busy?: boolean; tone?: 'primary' | 'secondary' | 'danger'; ariaLabel?: string }) {
  return (
    <button type="button" class={`btn btn-${tone} btn-small`} disabled={busy} aria-label={ariaLabel} onClick={() => (!ask || confirm(ask)) && run()}>
      {label}
    </button>
  );
}
