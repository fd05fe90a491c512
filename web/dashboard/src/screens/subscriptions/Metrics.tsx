// Assinaturas > Métricas: the month's MRR, subscribers, churn and MRR movements, and the MRR of the
// last months.
import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.ts';
import { MrrChart, monthLabel } from '../../components/Chart.tsx';
import { Link } from '../../components/Link.tsx';
import { Empty, ErrorState, Loading, Select } from '../../components/ui.tsx';
import { useAsync } from '../../lib/async.ts';
import { brl, integer, percent, todaySP } from '../../lib/format.ts';
import type { Metrics } from './common.ts';

/** The month `back` months before `month` (YYYY-MM). */
function monthBefore(month: string, back: number): string {
  const [y, m] = month.split('-').map(Number);
  const d = new Date(Date.UTC(y, m - 1 - back, 1));
  return d.toISOString().slice(0, 7);
}

const CHART_MONTHS = 6;

export function MetricsTab() {
  const current = todaySP().slice(0, 7);
  const [month, setMonth] = useState(current);
  const data = useAsync(
    () =>
      Promise.all(
        Array.from({ length: CHART_MONTHS }, (_, i) => monthBefore(month, CHART_MONTHS - 1 - i)).map(async (m) => (await ok(api.GET('/api/v1/subscriptions/metrics', { params: { query: { month: m } } }))).metrics),
      ),
    [month],
  );
  const m = data.data?.[CHART_MONTHS - 1];
  return (
    <div>
      <div class="filters">
        <Select label="Mês" name="month" value={month} onValue={setMonth} options={Array.from({ length: 24 }, (_, i) => monthBefore(current, i)).map((v) => [v, monthLabel(v)])} />
      </div>
      {data.loading && <Loading label="Calculando as métricas…" />}
      {data.error && <ErrorState error={data.error} retry={data.reload} />}
      {m && <MonthFigures m={m} />}
      {data.data && (
        <section class="card">
          <h2>MRR nos últimos {CHART_MONTHS} meses</h2>
          {data.data.some((x) => x.mrrCents > 0) ? (
            <MrrChart months={data.data} />
          ) : (
            <Empty title="Ainda sem receita recorrente.">
              O MRR aparece quando um assinante paga a primeira cobrança. Crie um plano em <Link to="/assinaturas">Planos</Link> e envie o link de assinatura.
            </Empty>
          )}
        </section>
      )}
    </div>
  );
}

function MonthFigures({ m }: { m: Metrics }) {
  return (
    <>
      <p class="muted period">{monthLabel(m.month)}: números ao fim do mês (ou agora, no mês corrente), horário de Brasília.</p>
      <StatCards m={m} />
      <MrrMovements m={m} />
    </>
  );
}

/** The month's figures, a card each. */
function StatCards({ m }: { m: Metrics }) {
  return (
    <div class="cards">
      <div class="card stat">
        <h2>MRR</h2>
        <p class="stat-value">{brl(m.mrrCents)}</p>
        <span class="muted">no início do mês: {brl(m.mrrAtStartCents)}</span>
      </div>
      <div class="card stat">
        <h2>Assinantes ativos</h2>
        <p class="stat-value">{integer(m.activeSubscribers)}</p>
        <span class="muted">pagando ao fim do mês</span>
      </div>
      <div class="card stat">
        <h2>Novos assinantes</h2>
        <p class="stat-value">{integer(m.newSubscribers)}</p>
        <span class="muted">{integer(m.totalCancelled)} cancelada(s) desde o início</span>
      </div>
      <div class="card stat">
        <h2>Em teste grátis</h2>
        <p class="stat-value">{integer(m.trialing)}</p>
        <span class="muted">ainda sem cobrança</span>
      </div>
      <div class="card stat">
        <h2>Em atraso</h2>
        <p class="stat-value">{integer(m.pastDue)}</p>
        <span class="muted">com cobrança recusada</span>
      </div>
      <div class="card stat">
        <h2>Pausadas</h2>
        <p class="stat-value">{integer(m.totalPaused)}</p>
        <span class="muted">nada é cobrado</span>
      </div>
      <div class="card stat">
        <h2>Churn</h2>
        <p class="stat-value">{percent(m.churnRate)}</p>
        <span class="muted">
          {integer(m.cancellations)} de {integer(m.activeAtStart)} ativos no início
        </span>
      </div>
      <div class="card stat">
        <h2>Churn de receita</h2>
        <p class="stat-value">{percent(m.revenueChurnRate)}</p>
        <span class="muted">cancelamentos e reduções sobre o MRR inicial</span>
      </div>
    </div>
  );
}

/** Where the MRR came from and went to in the month. */
function MrrMovements({ m }: { m: Metrics }) {
  const mv = m.movements;
  const rows: [string, number][] = [
    ['Novas assinaturas', mv.newCents],
    ['Aumentos de valor', mv.expansionCents],
    ['Reativações', mv.reactivationCents],
    ['Reduções de valor', -mv.contractionCents || 0],
    ['Cancelamentos e pausas', -mv.churnCents || 0],
  ];
  return (
    <section class="card">
      <h2>Movimentação do MRR</h2>
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Movimentação do MRR">
        <table>
          <tbody>
            {rows.map(([label, cents]) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                <td class={cents < 0 ? 'num neg' : 'num'}>{brl(cents)}</td>
              </tr>
            ))}
            <tr>
              <th scope="row">Variação líquida</th>
              <td class={mv.netCents < 0 ? 'num neg' : 'num'}>
                <strong>{brl(mv.netCents)}</strong>
              </td>
            </tr>
          </tbody>
        </table>
      </div>
    </section>
  );
}
