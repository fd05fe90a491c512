// The split of a payment link, a checkout or a plan (lib/split-rule.ts): up to 10 recipients, each a
// wallet id, a percentage or a fixed amount, of the net or of the gross, and — of the gross only —
// whether its share bears the gateway fee. The percentages' sum is checked as they are typed; the
// API's errors show beside each field. The wallet field suggests the merchant's sub-accounts and
// accepted partners, and names the one typed.
import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import { api, ok, type ApiError } from '../api/client.ts';
import { useAsync } from '../lib/async.ts';
import { bp } from '../lib/fees.ts';
import { emptyRow, MAX_RECIPIENTS, percentSum, type SplitRow, sumMessage, valueField } from '../lib/split-rule.ts';
import { MoneyField } from './MoneyField.tsx';
import { CheckField, Field, Select } from './ui.tsx';

const KINDS: [SplitRow['kind'], string][] = [
  ['percent', 'Percentual'],
  ['fixed', 'Valor fixo'],
];
const BASES: [SplitRow['basis'], string][] = [
  ['NET', 'Líquido (depois da taxa)'],
  ['GROSS', 'Bruto (o que o cliente pagou)'],
];

/** Who may receive, by wallet id: the merchant's sub-accounts and the partners who accepted (offered as the wallet field's suggestions). */
type Known = Map<string, string>;

function useKnownRecipients(): Known {
  const known = useAsync(async () => {
    const [accounts, partners] = await Promise.all([
      ok(api.GET('/api/v1/accounts', { params: { query: { page: 1, limit: 100 } } })),
      ok(api.GET('/api/v1/split-partners', { params: { query: { role: 'sent', status: 'ACCEPTED', page: 1, limit: 100 } } })),
    ]);
    return new Map([...accounts.accounts.map((a): [string, string] => [a.walletId, `${a.name} (subconta)`]), ...partners.data.map((p): [string, string] => [p.partner.walletId, `${p.partner.name} (parceiro)`])]);
  }, []);
  // Without them (a key without accounts:read, a network error) the wallet is typed by hand.
  return known.data ?? new Map();
}

function RecipientRow({ row, i, set, remove, error, known, listId }: { row: SplitRow; i: number; set: (r: SplitRow) => void; remove: () => void; error: ApiError | null; known: Known; listId: string }) {
  const at = `split.${i}`;
  const message = error?.fields[at];
  const upd = (patch: Partial<SplitRow>) => set({ ...row, ...patch });
  // The wallet field's `list` (the suggestions) is spread in: Preact's input attribute types lack it.
  return (
    <fieldset class={`split-row${message ? ' field-invalid' : ''}`}>
      <legend>Recebedor {i + 1}</legend>
      {message && <small class="field-message">{message}</small>}
      <Field label="ID da carteira" name={`${at}.walletId`} value={row.walletId} onValue={(v) => upd({ walletId: v })} error={error} required autoComplete="off" spellcheck={false} {...{ list: listId }} placeholder="00000000-0000-0000-0000-000000000000" hint={known.get(row.walletId.trim().toLowerCase())} />
      <div class="split-terms">
        <Select label="Tipo" name={`${at}.kind`} value={row.kind} onValue={(v) => upd({ kind: v as SplitRow['kind'], value: '' })} options={KINDS} />
        {row.kind === 'percent' ? (
          <Field label="Percentual (%)" name={valueField(row, i)} inputMode="decimal" value={row.value} onValue={(v) => upd({ value: v })} error={error} required placeholder="20" />
        ) : (
          <MoneyField label="Valor fixo (R$)" name={valueField(row, i)} value={row.value} onValue={(v) => upd({ value: v })} error={error} required />
        )}
        <Select label="Base" name={`${at}.basis`} value={row.basis} onValue={(v) => upd({ basis: v as SplitRow['basis'], chargeFees: v === 'GROSS' && row.chargeFees })} options={BASES} error={error} />
      </div>
      {row.basis === 'GROSS' && <CheckField label="Cobrar taxas (a parte dele paga a taxa proporcional)" name={`${at}.chargeFees`} checked={row.chargeFees} onChecked={(v) => upd({ chargeFees: v })} error={error} />}
      <button type="button" class="btn btn-ghost btn-small" onClick={remove} aria-label={`Remover recebedor ${i + 1}`}>
        Remover
      </button>
    </fieldset>
  );
}

/** What the sum of the percentages says now: within 100%, or over it (the form will not send). */
function Sum({ rows, error }: { rows: SplitRow[]; error: ApiError | null }) {
  const sum = percentSum(rows);
  const over = sum > 10_000;
  // The form's own error for the whole split (the API's, or the same check on sending) wins.
  const message = error?.fields.split ?? (over ? sumMessage(sum) : null);
  return (
    <p class={message ? 'field-message' : 'muted'} role={over ? 'alert' : undefined} aria-live="polite">
      {message ?? (rows.some((r) => r.kind === 'percent') ? `Percentuais: ${bp(sum)} de 100%. O que sobra fica com você.` : 'O que sobra depois dos valores fixos fica com você.')}
    </p>
  );
}

/** The split's fieldset; `rows` empty: no split. `intro` says what an empty one means here. */
export function SplitEditor({ rows, onRows, error, intro }: { rows: SplitRow[]; onRows: (r: SplitRow[]) => void; error: ApiError | null; intro: ComponentChildren }) {
  const id = useId();
  const known = useKnownRecipients();
  const full = rows.length >= MAX_RECIPIENTS;
  return (
    <fieldset class="split-editor" aria-describedby={`${id}-intro`}>
      <legend>Divisão do pagamento</legend>
      <p id={`${id}-intro`} class="hint">
        {intro} Cada recebedor encontra o ID da carteira dele em Divisões de pagamento.
      </p>
      {rows.map((row, i) => (
        <RecipientRow key={i} row={row} i={i} error={error} known={known} listId={`${id}-wallets`} set={(r) => onRows(rows.map((x, j) => (j === i ? r : x)))} remove={() => onRows(rows.filter((_, j) => j !== i))} />
      ))}
      <datalist id={`${id}-wallets`}>
        {[...known].map(([walletId, name]) => (
          <option key={walletId} value={walletId} label={name} />
        ))}
      </datalist>
      {rows.length > 0 && <Sum rows={rows} error={error} />}
      <button type="button" class="btn btn-secondary btn-small" disabled={full} onClick={() => onRows([...rows, emptyRow()])}>
        Adicionar recebedor
      </button>
      {full && <span class="hint"> No máximo {MAX_RECIPIENTS} recebedores.</span>}
    </fieldset>
  );
}
