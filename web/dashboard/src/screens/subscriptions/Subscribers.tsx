// Assinaturas > Assinantes: the subscriptions, filtered by status and plan (a cursor list).
import { api, ok } from '../../api/client.ts';
import { Link } from '../../components/Link.tsx';
import { MoreButton } from '../../components/ListParts.tsx';
import { statusOptions, StatusTag } from '../../components/StatusTag.tsx';
import { Empty, ErrorState, Loading, Select } from '../../components/ui.tsx';
import { useAsync } from '../../lib/async.ts';
import { date } from '../../lib/format.ts';
import { useMore } from '../../lib/more.ts';
import { navigate, queryOf, route as routeCell } from '../../lib/router.ts';
import { useCell } from '../../lib/state.ts';
import { type Subscription, methodLabel, allPlans } from './common.ts';

export function Subscribers() {
  const route = useCell(routeCell);
  const q = queryOf(route);
  const status = q.get('situacao') ?? '';
  const planId = q.get('plano') ?? '';
  const plans = useAsync(allPlans, []);
  const list = useMore(
    async (cursor) => {
      const query = { limit: 20, ...(status ? { status: status as Subscription['status'] } : {}), ...(planId ? { planId } : {}), ...(cursor ? { cursor: String(cursor) } : {}) };
      const r = await ok(api.GET('/api/v1/subscriptions', { params: { query } }));
      return { items: r.subscriptions, next: r.pagination.nextCursor };
    },
    [status, planId],
  );
  const filter = (k: string, v: string) => {
    const next = new URLSearchParams(q);
    if (v) next.set(k, v);
    else next.delete(k);
    next.set('aba', 'assinantes');
    navigate(`/assinaturas?${next}`, { replace: true });
  };
  const planName = (id: string) => plans.data?.find((p) => p.id === id)?.name ?? '—';
  return (
    <div>
      <div class="filters" role="search" aria-label="Filtrar assinaturas">
        <Select label="Situação" name="status" value={status} onValue={(v) => filter('situacao', v)} options={statusOptions('subscription', 'Todas')} />
        <Select label="Plano" name="planId" value={planId} onValue={(v) => filter('plano', v)} options={[['', 'Todos'], ...(plans.data ?? []).map((p) => [p.id, p.name] as [string, string])]} />
      </div>
      {list.loading && <Loading />}
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {!list.loading && !list.error && list.items.length === 0 && (
        <Empty title={status || planId ? 'Nenhuma assinatura com esses filtros.' : 'Nenhum assinante ainda.'}>
          {status || planId ? (
            'Mude os filtros acima para ver outras assinaturas.'
          ) : (
            <>
              Envie o link de assinatura de um plano (em <Link to="/assinaturas">Planos</Link>) ou assine clientes pela API (<code>POST /api/v1/subscriptions</code>).
            </>
          )}
        </Empty>
      )}
      <ul class="list cards-list">
        {list.items.map((s) => (
          <li key={s.id} class="card">
            <div class="grow">
              <Link to={`/assinaturas/${s.id}`}>
                <strong>{s.client.name}</strong>
              </Link>{' '}
              <StatusTag kind="subscription" status={s.status} />
              <p class="muted">
                {s.client.email} · {planName(s.planId)} · {methodLabel(s.paymentMethod)}
              </p>
              <p class="muted">
                {s.status === 'CANCELLED' || s.status === 'EXPIRED' ? `Encerrada em ${date(s.endedAt ?? s.cancelledAt)}` : s.cancelAtPeriodEnd ? `Termina em ${date(s.currentPeriodEnd)}` : s.status === 'PAUSED' ? `Pausada em ${date(s.pausedAt)}` : `Próxima cobrança: ${date(s.trialEnd && s.status === 'TRIALING' ? s.trialEnd : s.currentPeriodEnd)}`} · desde {date(s.createdAt)}
              </p>
            </div>
          </li>
        ))}
      </ul>
      <MoreButton list={list} />
    </div>
  );
}
