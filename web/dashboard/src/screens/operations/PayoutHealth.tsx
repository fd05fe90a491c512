// Operação › Saques: the "Pagamentos automáticos" card (GET /api/admin/payouts/health): the payout
// provider (or none: paid by hand), whether it answers, the platform's balance there, the last payout
// it completed, what waits and why, and the problems an operator should act on, in pt-BR.
import type { Json } from '../../api/json.ts';
import { ErrorState, Loading } from '../../components/ui.tsx';
import type { Async } from '../../lib/async.ts';
import { brl, dateTime } from '../../lib/format.ts';
import { problemText } from '../../lib/payouts.ts';

type Health = Json<'adminPayoutHealth'>;

function reachableText(h: Health): string {
  if (h.reachable === null) return '—';
  return h.reachable ? 'Respondendo' : 'Sem resposta';
}

/** "3 pendentes (1 em análise, 1 sem saldo na plataforma) · 2 em processamento". */
function queueText(h: Health): string {
  const held = [h.heldForReview && `${h.heldForReview} em análise`, h.heldForFunds && `${h.heldForFunds} aguardando saldo da plataforma`].filter(Boolean);
  return `${h.pending} pendente(s)${held.length ? ` (${held.join(', ')})` : ''} · ${h.processing} em processamento`;
}

function HealthFacts({ h }: { h: Health }) {
  return (
    <dl class="facts facts-stack">
      <dt>Provedor</dt>
      <dd>{h.provider ?? 'manual (sem provedor: a equipe paga os saques de produção à mão)'}</dd>
      <dt>Conexão</dt>
      <dd>
        {reachableText(h)}
        {h.error && <span class="sub mono">{h.error}</span>}
      </dd>
      <dt>Saldo no provedor</dt>
      <dd>{h.balanceCents === null ? (h.provider ? 'não informado pelo provedor' : '—') : brl(h.balanceCents)}</dd>
      <dt>Último saque pago</dt>
      <dd>{h.lastCompletedAt ? dateTime(h.lastCompletedAt) : 'nenhum ainda'}</dd>
      <dt>Na fila</dt>
      <dd>{queueText(h)}</dd>
      <dt>Esperando envio desde</dt>
      <dd>{h.oldestPendingAt ? dateTime(h.oldestPendingAt) : '—'}</dd>
    </dl>
  );
}

export function PayoutHealth({ health }: { health: Async<Health> }) {
  const h = health.data;
  return (
    <section class="card" aria-labelledby="payout-health">
      <div class="card-head">
        <h2 id="payout-health">Pagamentos automáticos</h2>
        {h && <span class={`badge badge-${h.status === 'ok' ? 'ok' : 'bad'}`}>{h.status === 'ok' ? 'Tudo certo' : 'Atenção'}</span>}
      </div>
      {health.loading && !h && <Loading />}
      {health.error && <ErrorState error={health.error} retry={health.reload} />}
      {h && h.problems.length > 0 && (
        <ul class="problems">
          {h.problems.map((p) => (
            <li key={p}>{problemText(p)}</li>
          ))}
        </ul>
      )}
      {h && <HealthFacts h={h} />}
    </section>
  );
}
