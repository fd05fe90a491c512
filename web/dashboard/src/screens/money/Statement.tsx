// Dinheiro › Extrato: the ledger entries, newest first, a page at a time, with one running total per
// balance (disponível, a receber, reservado) after each entry. An entry carries its own balance
// after it; the others are carried from their nearest entry in the list (or the current balance
// when none of theirs is listed), so each column reads as one balance over time and never mixes two.
import { api, ok } from '../../api/client.ts';
import { MoreButton } from '../../components/ListParts.tsx';
import { Empty, ErrorState, Loading } from '../../components/ui.tsx';
import { useAsync } from '../../lib/async.ts';
import { brl, dateTime, entryDescription } from '../../lib/format.ts';
import { useMore } from '../../lib/more.ts';

export type Entry = { id: string; account: string; amountCents: number; balanceAfterCents: number; kind: string; description: string | null; createdAt: string };
type Balance = 'available' | 'receivable' | 'reserved';

const BALANCES: [Balance, string, string][] = [
  ['available', 'Disponível', 'Saldo disponível depois'],
  ['receivable', 'A receber', 'Saldo a receber depois'],
  ['reserved', 'Reservado', 'Saldo reservado depois'],
];
const ACCOUNTS: Record<string, string> = Object.fromEntries(BALANCES.map(([b, label]) => [b, label]));
const KINDS: Record<string, string> = {
  payment: 'Venda',
  refund: 'Estorno',
  refund_reversal: 'Estorno não realizado',
  settlement: 'Liberação de recebível',
  withdrawal: 'Saque',
  withdrawal_cancelled: 'Saque cancelado',
  withdrawal_paid: 'Saque pago',
  withdrawal_failed: 'Saque devolvido',
  advance: 'Antecipação',
  commission: 'Comissão',
};

/**
 * Each entry's balances after it (entries newest first): walking from the oldest up, a balance
 * starts at what it was before its oldest listed entry (its current value when it has none listed)
 * and changes only at its own entries.
 */
export function runningBalances(entries: Entry[], current: Record<Balance, number>): Record<Balance, number>[] {
  const out = entries.map(() => ({}) as Record<Balance, number>);
  for (const [b] of BALANCES) {
    const oldest = entries.findLastIndex((e) => e.account === b);
    let value = oldest < 0 ? current[b] : entries[oldest].balanceAfterCents - entries[oldest].amountCents;
    for (let i = entries.length - 1; i >= 0; i--) {
      if (entries[i].account === b) value = entries[i].balanceAfterCents;
      out[i][b] = value;
    }
  }
  return out;
}

function StatementTable({ entries, current }: { entries: Entry[]; current: Record<Balance, number> }) {
  // A balance gets its column once it has moved in the list or holds money.
  const shown = BALANCES.filter(([b]) => b === 'available' || current[b] !== 0 || entries.some((e) => e.account === b));
  const after = runningBalances(entries, current);
  return (
    <table class="table-stack">
      <thead>
        <tr>
          <th scope="col">Data</th>
          <th scope="col">Lançamento</th>
          <th scope="col">Saldo</th>
          <th scope="col" class="num">
            Valor
          </th>
          {shown.map(([b, , heading]) => (
            <th key={b} scope="col" class="num">
              {heading}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {entries.map((e, i) => (
          <tr key={e.id}>
            <td data-label="Data">{dateTime(e.createdAt)}</td>
            <td data-label="Lançamento">
              <span>
                {KINDS[e.kind] ?? e.kind}
                {e.description && <span class="sub">{entryDescription(e.description)}</span>}
              </span>
            </td>
            <td data-label="Saldo">{ACCOUNTS[e.account] ?? e.account}</td>
            <td data-label="Valor" class={e.amountCents < 0 ? 'num neg' : 'num'}>
              {brl(e.amountCents)}
            </td>
            {shown.map(([b, , heading]) => (
              // The balance this entry moved stands out; the others are carried unchanged.
              <td key={b} data-label={heading} class={b === e.account ? 'num' : 'num muted'}>
                {brl(after[i][b])}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Statement() {
  const balance = useAsync(() => ok(api.GET('/api/v1/balance', {})), []);
  const list = useMore(async (cursor) => {
    const r = await ok(api.GET('/api/v1/wallet/statement', { params: { query: { limit: 50, ...(cursor ? { cursor: String(cursor) } : {}) } } }));
    return { items: r.entries as Entry[], next: r.pagination.nextCursor };
  }, []);
  if (list.loading || balance.loading) return <Loading />;
  if (list.error) return <ErrorState error={list.error} retry={list.reload} />;
  if (balance.error) return <ErrorState error={balance.error} retry={balance.reload} />;
  if (!list.items.length) return <Empty title="Nenhum lançamento ainda.">Cada venda paga, estorno, saque e antecipação aparece aqui com os saldos depois dele.</Empty>;
  const b = balance.data!;
  return (
    <div class="card table-wrap" tabIndex={0} role="region" aria-label="Extrato">
      <StatementTable entries={list.items} current={{ available: b.availableCents, receivable: b.receivableCents, reserved: b.reservedCents }} />
      <MoreButton list={list} />
    </div>
  );
}
