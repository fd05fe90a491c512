// Money typed as a person writes it in Brazil ("1.234,56"), sent as cents; the API's error for the
// cents field shows under it, and so does a local one when the text is not an amount.
import { ApiError } from '../api/client.ts';
import { parseMoney } from '../lib/format.ts';
import { Field } from './ui.tsx';

export function MoneyField({ label, name, value, onValue, error, hint, required }: { label: string; name: string; value: string; onValue: (v: string) => void; error?: ApiError | null; hint?: string; required?: boolean }) {
  return <Field label={label} name={name} value={value} onValue={onValue} error={error} hint={hint} inputMode="decimal" placeholder="0,00" required={required} />;
}

/** A form's error for one field, shown beside it like the API's. */
export function fieldError(name: string, message: string): ApiError {
  return new ApiError(400, 'Corrija os campos destacados.', 'VALIDATION_ERROR', { [name]: message });
}

/** Cents of a money field's text, or throws the field error the form shows (`name` is the API's field). */
export function centsOf(text: string, name: string): number {
  const cents = parseMoney(text);
  if (cents == null || cents <= 0) throw fieldError(name, 'Informe um valor em reais maior que zero, como 1.234,56.');
  return cents;
}
