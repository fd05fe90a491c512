// Divisões › Enviadas, on top: my sales paid in a period (GET /api/v1/splits/summary) — gross, fees,
// what went to recipients, my own part — and what each recipient got, each opening its shares.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.ts';
import { PeriodPicker, type PeriodChoice } from '../../components/PeriodPicker.tsx';
import { type Column, StackTable } from '../../components/StackTable.tsx';
import { ErrorState, Loading } from '../../components/ui.tsx';
import { useAsync } from '../../lib/async.ts';
import { brl, date, integer, todaySP } from '../../lib/format.ts';
import { navigate } from '../../lib/router.ts';
import type { SplitSummary } from './common.ts';

const PRESETS: [number, string][] = [
  [7, '7 dias'],
  [30, '30 dias'],
  [90, '90 dias'],
];

/** The São Paulo calendar day `n` days before `day` (both YYYY-MM-DD). */
function daysBefore(day: string, n: number): string {
  return new Date(new Date(`${day}T12:00:00Z`).getTime() - n * 86_400_000).toISOString().slice(0, 10);
}

function Figure({ title, cents, note }: { title: string; cents: number; note?: ComponentChildren }) {
  return (
    <div class="card stat">
      <h3>{title}</h3>
      <p class={cents < 0 ? 'stat-value neg' : 'stat-value'}>{brl(cents)}</p>
      {note && <span class="muted">{note}</span>}
    </div>
  );
}

type Recipient = SplitSummary['recipients'][number];

const RECIPIENT_COLUMNS: Column<Recipient>[] = [
  [
    'Recebedor',
    (r) => (
      <button type="button" class="linklike" onClick={() => navigate(`/divisoes?aba=enviadas&carteira=${r.walletId}`)}>
        {r.name}
      </button>
    ),
  ],
  ['Vendas', (r) => integer(r.sales), true],
  ['Recebido', (r) => brl(r.amountCents), true],
  ['Estornado', (r) => (r.reversedCents ? `−${brl(r.reversedCents)}` : '—'), true],
  ['Líquido', (r) => <strong>{brl(r.amountCents - r.reversedCents)}</strong>, true],
];

function Recipients({ summary }: { summary: SplitSummary }) {
  if (!summary.recipients.length) return <p class="muted">Nenhuma venda do período foi dividida: tudo ficou com você.</p>;
  return <StackTable label="Por recebedor" caption="O que cada recebedor recebeu no período" card={false} columns={RECIPIENT_COLUMNS} rows={summary.recipients} rowKey={(r) => r.walletId} />;
}

/** The summary card of my sales in a period, 30 days to start. */
export function SplitSummaryCard() {
  const today = todaySP();
  const [period, setPeriod] = useState({ days: 30 as number | null, from: daysBefore(today, 29), to: today });
  const pick = (p: PeriodChoice<number>) => setPeriod('preset' in p ? { days: p.preset, from: daysBefore(today, p.preset - 1), to: today } : { days: null, ...p });
  const summary = useAsync(() => ok(api.GET('/api/v1/splits/summary', { params: { query: { from: period.from, to: period.to } } })), [period.from, period.to]);
  const s = summary.data?.data;
  return (
    <section class="card" aria-labelledby="split-summary">
      <h2 id="split-summary">Suas vendas e os repasses</h2>
      <PeriodPicker presets={PRESETS} preset={period.days} range={period} pick={pick} />
      {summary.loading && <Loading label="Calculando o período…" />}
      {summary.error && <ErrorState error={summary.error} retry={summary.reload} />}
      {s && (
        <>
          <p class="muted period">
            {date(s.from)} a {date(s.to)} (vendas pagas no período, horário de Brasília)
          </p>
          <div class="cards">
            <Figure title="Bruto" cents={s.grossCents} note={
                <>
                  {integer(s.sales)} venda(s)
                  {s.refundedCents > 0 && (
                    <>
                      {' '}
                      · estornos <span class="nowrap">−{brl(s.refundedCents)}</span>
                    </>
                  )}
                </>
              } />
            <Figure title="Taxas" cents={s.feeCents} />
            <Figure title="Para recebedores" cents={s.splitCents} note={`${integer(s.recipients.length)} recebedor(es)`} />
            <Figure title="Seu líquido" cents={s.netCents} note="antes de comissões de afiliados" />
          </div>
          <h3>Por recebedor</h3>
          <Recipients summary={s} />
        </>
      )}
    </section>
  );
}
