// Início: the period's figures against the period before (reports API), the daily chart stacked by
// method, the wallet's balances and the carts left behind.
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { summary, timeseries, type Period, type Preset, type Totals } from '../api/reports.ts';
import { SalesChart } from '../components/Chart.tsx';
import { Link } from '../components/Link.tsx';
import { PeriodPicker } from '../components/PeriodPicker.tsx';
import { Empty, ErrorState, Loading, PageHeader } from '../components/ui.tsx';
import { useAsync } from '../lib/async.ts';
import { brl, date, dateTime, integer, percent, todaySP } from '../lib/format.ts';

const PRESETS: [Preset, string][] = [
  ['today', 'Hoje'],
  ['7d', '7 dias'],
  ['30d', '30 dias'],
  ['90d', '90 dias'],
];

function Delta({ now, before, money }: { now: number; before: number; money?: boolean }) {
  if (before === 0 && now === 0) return <span class="delta">sem variação</span>;
  if (before === 0) return <span class="delta delta-up">novo no período</span>;
  const change = (now - before) / Math.abs(before);
  const cls = change > 0 ? 'delta delta-up' : change < 0 ? 'delta delta-down' : 'delta';
  const sign = change > 0 ? '+' : '';
  return (
    <span class={cls}>
      {sign}
      {percent(change)} vs. período anterior{money ? ` (${brl(before)})` : ` (${integer(before)})`}
    </span>
  );
}

function RateDelta({ now, before }: { now: number | null; before: number | null }) {
  if (now == null || before == null) return <span class="delta">{before == null ? 'sem base anterior' : `antes: ${percent(before)}`}</span>;
  const pts = (now - before) * 100;
  return <span class={pts > 0 ? 'delta delta-up' : pts < 0 ? 'delta delta-down' : 'delta'}>{`${pts > 0 ? '+' : ''}${pts.toFixed(1).replace('.', ',')} p.p. vs. período anterior`}</span>;
}

function RateCard({ title, rate, before, detail }: { title: string; rate: number | null; before: number | null; detail: string }) {
  return (
    <div class="card stat">
      <h2>{title}</h2>
      <p class="stat-value">{percent(rate)}</p>
      <span class="muted">{detail}</span>
      <RateDelta now={rate} before={before} />
    </div>
  );
}

function Figures({ cur, prev }: { cur: Totals; prev: Totals }) {
  return (
    <div class="cards">
      <div class="card stat">
        <h2>Vendas brutas</h2>
        <p class="stat-value">{brl(cur.grossCents)}</p>
        <Delta now={cur.grossCents} before={prev.grossCents} money />
      </div>
      <div class="card stat">
        <h2>Líquido</h2>
        <p class="stat-value">{brl(cur.netCents)}</p>
        <Delta now={cur.netCents} before={prev.netCents} money />
        <span class="muted">Taxas: {brl(cur.feeCents)}</span>
      </div>
      <div class="card stat">
        <h2>Vendas pagas</h2>
        <p class="stat-value">{integer(cur.paidCount)}</p>
        <Delta now={cur.paidCount} before={prev.paidCount} />
      </div>
      <div class="card stat">
        <h2>Ticket médio</h2>
        <p class="stat-value">{brl(cur.averageTicketCents)}</p>
        <Delta now={cur.averageTicketCents} before={prev.averageTicketCents} money />
      </div>
      <RateCard title="Aprovação no cartão" rate={cur.card.approvalRate} before={prev.card.approvalRate} detail={`${integer(cur.card.approved)} de ${integer(cur.card.attempted)} tentativas`} />
      <RateCard title="Conversão PIX" rate={cur.pix.conversionRate} before={prev.pix.conversionRate} detail={`pagos: ${integer(cur.pix.paid)} de ${integer(cur.pix.issued)} gerados`} />
      <RateCard title="Conversão boleto" rate={cur.boleto.conversionRate} before={prev.boleto.conversionRate} detail={`pagos: ${integer(cur.boleto.paid)} de ${integer(cur.boleto.issued)} emitidos`} />
      <div class="card stat">
        <h2>Estornos</h2>
        <p class="stat-value">{brl(cur.refundedCents)}</p>
        <span class="muted">{integer(cur.refundCount)} estorno(s)</span>
        <Delta now={cur.refundedCents} before={prev.refundedCents} money />
      </div>
      <div class="card stat">
        <h2>Chargebacks</h2>
        <p class="stat-value">{brl(cur.chargebackCents)}</p>
        <span class="muted">{integer(cur.chargebackCount)} contestação(ões) aberta(s)</span>
        <Delta now={cur.chargebackCents} before={prev.chargebackCents} money />
        <span class="muted">
          Revertidos: {brl(cur.chargebackWonCents)} ({integer(cur.chargebackWonCount)})
        </span>
      </div>
    </div>
  );
}

function Balance() {
  const bal = useAsync(() => ok(api.GET('/api/v1/balance', {})), []);
  if (bal.loading) return <Loading label="Carregando saldo…" />;
  if (bal.error) return <ErrorState error={bal.error} retry={bal.reload} />;
  const b = bal.data!;
  return (
    <>
      <section class="cards cards-3" aria-label="Saldo">
        <div class="card stat">
          <h2>Disponível</h2>
          <p class={(b.availableCents ?? 0) < 0 ? 'stat-value neg' : 'stat-value'}>{brl(b.availableCents ?? 0)}</p>
          {(b.availableCents ?? 0) < 0 ? <span class="muted">Saldo negativo (chargeback): as próximas vendas cobrem</span> : <Link to="/dinheiro?aba=saques">Sacar</Link>}
        </div>
        <div class="card stat">
          <h2>A receber</h2>
          <p class="stat-value">{brl(b.receivableCents ?? 0)}</p>
          <Link to="/dinheiro?aba=antecipacoes">Antecipar</Link>
        </div>
        <div class="card stat">
          <h2>Reservado</h2>
          <p class="stat-value">{brl(b.reservedCents ?? 0)}</p>
          <span class="muted">Saques em andamento</span>
        </div>
      </section>
      <Releases />
    </>
  );
}

const RELEASES_SHOWN = 6;

/** The receivable balance by the day it becomes available (card instalments, 30 days apart). */
function Releases() {
  const rel = useAsync(() => ok(api.GET('/api/v1/balance/releases', { params: { query: { limit: RELEASES_SHOWN } } })), []);
  if (rel.loading) return <Loading label="Carregando liberações…" />;
  if (rel.error) return <ErrorState error={rel.error} retry={rel.reload} />;
  const { releases, totalCents } = rel.data!;
  const later = totalCents - releases.reduce((s, r) => s + r.amountCents, 0);
  return (
    <section class="card" aria-labelledby="releases-title">
      <h2 id="releases-title">Próximas liberações</h2>
      {releases.length === 0 ? (
        <p class="muted">Nada a receber: vendas no cartão aparecem aqui, cada parcela no dia em que fica disponível para saque.</p>
      ) : (
        <ul class="list releases">
          {releases.map((r) => (
            <li key={r.date}>
              <span>
                {date(r.date)} <span class="muted">· {r.instalments} parcela(s)</span>
              </span>
              <strong class="num">{brl(r.amountCents)}</strong>
            </li>
          ))}
          {later > 0 && (
            <li>
              <span class="muted">Depois disso</span>
              <strong class="num">{brl(later)}</strong>
            </li>
          )}
        </ul>
      )}
    </section>
  );
}

function Carts() {
  const carts = useAsync(() => ok(api.GET('/api/v1/cart-abandonments', { params: { query: { limit: 5, recovered: false } } })), []);
  if (carts.loading) return <Loading />;
  if (carts.error) return <ErrorState error={carts.error} retry={carts.reload} />;
  const list = carts.data!.cartAbandonments;
  if (!list.length) return <Empty title="Nenhum carrinho abandonado.">Quando alguém sair do checkout de um link sem pagar, aparece aqui para você recuperar a venda.</Empty>;
  return (
    <ul class="list">
      {list.map((c) => (
        <li key={c.id}>
          <span>
            <strong>{c.clientName ?? c.clientEmail}</strong> · {dateTime(c.createdAt)}
          </span>
          <a class="btn btn-secondary btn-small" href={`mailto:${encodeURIComponent(c.clientEmail)}?subject=${encodeURIComponent('Sua compra ficou pela metade')}`}>
            Enviar e-mail
          </a>
        </li>
      ))}
    </ul>
  );
}

export function Home() {
  const [period, setPeriod] = useState<Period>({ preset: 'today' });
  const data = useAsync(() => Promise.all([summary(period), timeseries(period)]), [period.preset, period.from, period.to]);
  return (
    <div>
      <PageHeader title="Início" />
      <PeriodPicker presets={PRESETS} preset={period.preset ?? null} range={{ from: todaySP(), to: todaySP() }} pick={setPeriod} />
      {data.loading && <Loading label="Calculando o período…" />}
      {data.error && <ErrorState error={data.error} retry={data.reload} />}
      {data.data && (
        <>
          <p class="muted period">
            {data.data[0].from === data.data[0].to ? date(data.data[0].from) : `${date(data.data[0].from)} a ${date(data.data[0].to)}`} (horário de Brasília)
          </p>
          <Figures cur={data.data[0].current} prev={data.data[0].previous} />
          <section class="card">
            <h2>Vendas por dia</h2>
            {data.data[1].days.some((d) => d.PIX + d.CARD + d.BOLETO > 0) ? (
              <SalesChart days={data.data[1].days} />
            ) : (
              <Empty title="Nenhuma venda paga neste período.">
                Crie um <Link to="/catalogo?aba=links">link de pagamento</Link> ou faça uma venda pela API para ver o gráfico.
              </Empty>
            )}
          </section>
        </>
      )}
      <h2 class="section-title">Saldo</h2>
      <Balance />
      <section class="card">
        <h2>Carrinhos abandonados</h2>
        <Carts />
      </section>
    </div>
  );
}
