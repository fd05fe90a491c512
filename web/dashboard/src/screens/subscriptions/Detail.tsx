// A subscription's page: its facts, the open charge, the actions, and its charges.
import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.ts';
import { Link } from '../../components/Link.tsx';
import { StatusTag } from '../../components/StatusTag.tsx';
import { CopyButton, Empty, ErrorState, Loading, PageHeader } from '../../components/ui.tsx';
import { useAsync } from '../../lib/async.ts';
import { brl, clientDocumentText, date, dateTime } from '../../lib/format.ts';
import { type Plan, type Subscription, every, methodLabel, reasonLabel, allPlans } from './common.ts';
import { SubscriptionActions } from './Actions.tsx';

export function SubscriptionDetail({ id }: { id: string }) {
  const [sub, setSub] = useState<Subscription | null>(null);
  const [note, setNote] = useState('');
  // The merchant's plans: the subscription's own (also when it is now inactive), the ones to change to.
  const load = useAsync(async () => {
    const [s, plans] = await Promise.all([ok(api.GET('/api/v1/subscriptions/{id}', { params: { path: { id } } })), allPlans()]);
    setSub(s.subscription);
    return plans;
  }, [id]);
  if (load.loading && !sub) return <Loading />;
  if (load.error) return <ErrorState error={load.error} retry={load.reload} />;
  const s = sub!;
  const plans = load.data ?? [];
  const plan = plans.find((p) => p.id === s.planId);
  const pending = s.pendingPlanId ? plans.find((p) => p.id === s.pendingPlanId) : undefined;
  const update = (next: Subscription, said = '') => {
    setSub(next);
    setNote(said);
    if (next.planId !== s.planId) load.reload(); // subscriber counts moved
  };
  return (
    <div>
      <p>
        <Link to="/assinaturas?aba=assinantes">← Assinantes</Link>
      </p>
      <PageHeader title={s.client.name}>
        <StatusTag kind="subscription" status={s.status} />
      </PageHeader>
      {note && (
        <p class="notice" role="status">
          {note}
        </p>
      )}
      <div class="grid-2">
        <section class="card" aria-label="Resumo">
          <h2>Resumo</h2>
          <Facts s={s} plan={plan} pending={pending} />
          {s.payment && <OpenPayment payment={s.payment} />}
        </section>
        <SubscriptionActions s={s} plan={plan} plans={plans} done={update} />
      </div>
      <Cycles s={s} />
    </div>
  );
}

/** What the subscription is: plan, client, payment, periods, pauses and endings. */
function Facts({ s, plan, pending }: { s: Subscription; plan: Plan | undefined; pending: Plan | undefined }) {
  return (
    <dl class="facts">
      <dt>Plano</dt>
      <dd>{plan ? `${plan.name} · ${brl(plan.amountCents)} ${every(plan.interval, plan.intervalCount)}` : '—'}</dd>
      <dt>Cliente</dt>
      <dd>
        {s.client.email} · {clientDocumentText(s.client.document)}
      </dd>
      {pending && (
        <>
          <dt>Troca de plano</dt>
          <dd>
            para “{pending.name}” ({brl(pending.amountCents)}) em {date(s.currentPeriodEnd)}
          </dd>
        </>
      )}
      <dt>Pagamento</dt>
      <dd>
        {methodLabel(s.paymentMethod)}
        {s.card?.last4 ? ` · ${s.card.brand ?? 'cartão'} final ${s.card.last4}` : ''}
      </dd>
      {s.pixAutomatico?.status && (
        <>
          <dt>Pix Automático</dt>
          <dd>
            <StatusTag kind="mandate" status={s.pixAutomatico.status} />
          </dd>
        </>
      )}
      {s.trialEnd && (
        <>
          <dt>Teste grátis até</dt>
          <dd>{date(s.trialEnd)}</dd>
        </>
      )}
      <dt>Período atual</dt>
      <dd>
        {date(s.currentPeriodStart)} a {date(s.currentPeriodEnd)}
      </dd>
      {s.cancelAtPeriodEnd && !s.cancelledAt && (
        <>
          <dt>Cancelamento</dt>
          <dd>
            no fim do período, em {date(s.currentPeriodEnd)}
            {s.cancelReason ? ` · ${reasonLabel(s.cancelReason)}` : ''}
          </dd>
        </>
      )}
      {s.pausedAt && (
        <>
          <dt>Pausada em</dt>
          <dd>
            {date(s.pausedAt)}
            {s.resumesAt ? ` · retoma em ${date(s.resumesAt)}` : ''}
          </dd>
        </>
      )}
      {s.cancelledAt && (
        <>
          <dt>Cancelada em</dt>
          <dd>
            {dateTime(s.cancelledAt)}
            {s.cancelReason ? ` · ${reasonLabel(s.cancelReason)}` : ''}
          </dd>
        </>
      )}
      {s.status === 'EXPIRED' && s.cancelReason && (
        <>
          <dt>Por que terminou</dt>
          <dd>{reasonLabel(s.cancelReason)}</dd>
        </>
      )}
      <dt>Assinou em</dt>
      <dd>{dateTime(s.createdAt)}</dd>
    </dl>
  );
}

/** The charge waiting to be paid, with its link and codes to copy. */
function OpenPayment({ payment }: { payment: NonNullable<Subscription['payment']> }) {
  return (
    <div class="notice">
      <p>
        Cobrança em aberto de <strong>{brl(payment.amountCents)}</strong>: <a href={payment.paymentUrl}>página de pagamento</a>
      </p>
      <div class="actions">
        <CopyButton text={payment.paymentUrl} label="Copiar link de pagamento" />
        {payment.pixCode && <CopyButton text={payment.pixCode} label="Copiar código PIX" />}
        {payment.boletoLine && <CopyButton text={payment.boletoLine} label="Copiar linha do boleto" />}
      </div>
    </div>
  );
}

/** The subscription's charges, one row each. */
function Cycles({ s }: { s: Subscription }) {
  return (
    <section class="card">
      <h2>Cobranças</h2>
      {!s.cycles?.length ? (
        <Empty title="Nenhuma cobrança ainda.">A primeira cobrança é criada quando o teste grátis acaba.</Empty>
      ) : (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Cobranças da assinatura">
          <table class="table-stack">
            <thead>
              <tr>
                <th scope="col">Nº</th>
                <th scope="col">Período</th>
                <th scope="col">Vencimento</th>
                <th scope="col" class="num">
                  Valor
                </th>
                <th scope="col">Situação</th>
                <th scope="col">Tentativas</th>
                <th scope="col">Venda</th>
              </tr>
            </thead>
            <tbody>
              {s.cycles.map((c) => (
                <tr key={c.id}>
                  <td data-label="Nº">
                    <div>
                      {c.number}
                      {c.kind === 'PRORATION' && <span class="sub">ajuste de plano</span>}
                    </div>
                  </td>
                  <td data-label="Período" class="nowrap">
                    {date(c.periodStart)} a {date(c.periodEnd)}
                  </td>
                  <td data-label="Vencimento">{date(c.dueAt)}</td>
                  <td data-label="Valor" class="num">
                    <div>
                      {brl(c.amountCents)}
                      {c.discountCents > 0 && <span class="sub">desconto {brl(c.discountCents)}</span>}
                    </div>
                  </td>
                  <td data-label="Situação">
                    <div>
                      <StatusTag kind="cycle" status={c.status} />
                      {c.paidAt && <span class="sub">paga em {date(c.paidAt)}</span>}
                      {c.failureReason && <span class="sub">{reasonLabel(c.failureReason)}</span>}
                      {c.nextRetryAt && <span class="sub">nova tentativa em {date(c.nextRetryAt)}</span>}
                    </div>
                  </td>
                  <td data-label="Tentativas">{c.attempts}</td>
                  <td data-label="Venda">{c.transactionId ? <Link to={`/vendas/${c.transactionId}`}>Ver venda</Link> : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
