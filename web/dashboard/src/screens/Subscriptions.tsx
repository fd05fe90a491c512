// Assinaturas: plans (create, edit, deactivate, the public subscription page to copy), subscribers
// (cursor list filtered by status and plan; a subscription's page with its cycles and the actions:
// cancel now or at the period's end, pause, resume, retry, and in development the clock), and the
// month's metrics (MRR, subscribers, churn, MRR movements) with the MRR of the last months.
// All through /api/v1/subscriptions (the dashboard token is accepted there: docs/subscriptions.md).
import { useId, useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import type { Json, JsonBody } from '../api/json.ts';
import { MrrChart, monthLabel } from '../components/Chart.tsx';
import { Link } from '../components/Link.tsx';
import { intOf, MoreButton, useOpenForm } from '../components/ListParts.tsx';
import { Checkboxes, FormCard } from '../components/Resource.tsx';
import { centsOf, fieldError, MoneyField } from '../components/MoneyField.tsx';
import { statusOptions, StatusTag } from '../components/StatusTag.tsx';
import { Action, CopyButton, Empty, ErrorState, Field, FormError, Loading, PageHeader, Select } from '../components/ui.tsx';
import { TabbedScreen } from '../components/Tabs.tsx';
import { useAsync, useSubmit } from '../lib/async.ts';
import { brl, date, dateTime, documentText, integer, moneyInput, percent, todaySP } from '../lib/format.ts';
import { useMore } from '../lib/more.ts';
import { navigate, queryOf, route as routeCell } from '../lib/router.ts';
import { session } from '../lib/session.ts';
import { useCell } from '../lib/state.ts';

type Plan = Json<'getPlanV1'>['plan'];
type Subscription = Json<'getSubscriptionV1'>['subscription'];
type Metrics = Json<'getSubscriptionMetricsV1'>['metrics'];
type Interval = Plan['interval'];
type PlanBody = JsonBody<'createPlanV1'>;

const INTERVALS: [Interval, string, string, string][] = [
  // value, option, "por …" (one), "a cada N …" (many)
  ['DAILY', 'Diária', 'dia', 'dias'],
  ['WEEKLY', 'Semanal', 'semana', 'semanas'],
  ['MONTHLY', 'Mensal', 'mês', 'meses'],
  ['QUARTERLY', 'Trimestral', 'trimestre', 'trimestres'],
  ['SEMIANNUAL', 'Semestral', 'semestre', 'semestres'],
  ['ANNUAL', 'Anual', 'ano', 'anos'],
];

/** "por mês", "a cada 2 meses". */
export function every(interval: Interval, count: number): string {
  const [, , one, many] = INTERVALS.find((i) => i[0] === interval)!;
  return count === 1 ? `por ${one}` : `a cada ${count} ${many}`;
}

const METHODS: [string, string][] = [
  ['CARD', 'Cartão de crédito'],
  ['PIX', 'PIX'],
  ['BOLETO', 'Boleto'],
  ['PIX_AUTOMATICO', 'Pix Automático'],
];
const methodLabel = (m: string) => METHODS.find((x) => x[0] === m)?.[1] ?? m;

const FINAL_ACTIONS: [string, string][] = [
  ['CANCEL', 'Cancelar a assinatura'],
  ['PAUSE', 'Pausar a assinatura'],
  ['PAST_DUE', 'Deixar em atraso'],
];

/** Why a subscription ended or a charge failed: the API's codes in pt-BR (a merchant's own reason as typed). */
const REASONS: Record<string, string> = {
  PIX_AUTOMATICO_REJECTED: 'o pagador recusou a autorização do Pix Automático',
  PIX_AUTOMATICO_EXPIRED: 'a autorização do Pix Automático expirou sem resposta',
  PIX_AUTOMATICO_CANCELLED_BY_PAYER: 'o pagador cancelou o Pix Automático',
  PIX_AUTOMATICO_CANCELLED_BY_PAYER_BANK: 'o banco do pagador cancelou o Pix Automático',
  PIX_AUTOMATICO_CANCELLED_BY_PSP: 'o provedor cancelou o Pix Automático',
  INSUFFICIENT_FUNDS: 'saldo insuficiente',
};
const reasonLabel = (r: string) => REASONS[r] ?? r;

// ---------------------------------------------------------------------------------------------
// Plans

interface PlanForm {
  name: string;
  description: string;
  amount: string;
  interval: Interval;
  intervalCount: string;
  trialDays: string;
  maxSubscribers: string;
  paymentMethods: string[];
  retryDays: string;
  finalAction: string;
  pixDaysBefore: string;
  boletoDaysBefore: string;
  pixAutomaticoDaysBefore: string;
}

function formOf(p?: Plan): PlanForm {
  return {
    name: p?.name ?? '',
    description: p?.description ?? '',
    amount: p ? moneyInput(p.amountCents) : '',
    interval: p?.interval ?? 'MONTHLY',
    intervalCount: String(p?.intervalCount ?? 1),
    trialDays: String(p?.trialDays ?? 0),
    maxSubscribers: p?.maxSubscribers == null ? '' : String(p.maxSubscribers),
    paymentMethods: p?.paymentMethods ?? ['CARD', 'PIX', 'BOLETO'],
    retryDays: (p?.dunning.retryDays ?? [1, 3, 5, 7]).join(', '),
    finalAction: p?.dunning.finalAction ?? 'CANCEL',
    pixDaysBefore: String(p?.dunning.pixDaysBefore ?? 3),
    boletoDaysBefore: String(p?.dunning.boletoDaysBefore ?? 5),
    pixAutomaticoDaysBefore: String(p?.dunning.pixAutomaticoDaysBefore ?? 3),
  };
}

/** The API's body of a form (throws the field errors a person can fix before sending). */
function bodyOf(f: PlanForm): PlanBody {
  const retry = f.retryDays.trim() ? f.retryDays.split(/[\s,;]+/).filter(Boolean) : [];
  if (retry.some((d) => !/^\d+$/.test(d))) throw fieldError('dunning.retryDays', 'Informe os dias separados por vírgula, como 1, 3, 5, 7.');
  const amountCents = centsOf(f.amount, 'amountCents');
  if (amountCents < 500) throw fieldError('amountCents', 'O valor mínimo de um plano é R$ 5,00.');
  return {
    name: f.name.trim(),
    description: f.description.trim() || null,
    amountCents,
    interval: f.interval,
    intervalCount: intOf(f.intervalCount, 'intervalCount') ?? 1,
    trialDays: intOf(f.trialDays, 'trialDays') ?? 0,
    maxSubscribers: intOf(f.maxSubscribers, 'maxSubscribers'),
    paymentMethods: f.paymentMethods as PlanBody['paymentMethods'],
    dunning: {
      retryDays: retry.map(Number),
      finalAction: f.finalAction as 'CANCEL',
      pixDaysBefore: intOf(f.pixDaysBefore, 'dunning.pixDaysBefore') ?? 3,
      boletoDaysBefore: intOf(f.boletoDaysBefore, 'dunning.boletoDaysBefore') ?? 5,
      // Only asked (and sent) when the plan offers Pix Automático.
      ...(f.paymentMethods.includes('PIX_AUTOMATICO') && { pixAutomaticoDaysBefore: intOf(f.pixAutomaticoDaysBefore, 'dunning.pixAutomaticoDaysBefore') ?? 3 }),
    },
  };
}

/** Only what changed, so a plan with subscribers can be edited (its cadence cannot change). */
function changes(body: PlanBody, p: Plan): Partial<PlanBody> {
  const { retryDays, finalAction, pixDaysBefore, boletoDaysBefore, pixAutomaticoDaysBefore } = p.dunning;
  const asked = body.dunning && 'pixAutomaticoDaysBefore' in body.dunning ? { pixAutomaticoDaysBefore } : {};
  const before: Record<string, unknown> = { ...p, dunning: { retryDays, finalAction, pixDaysBefore, boletoDaysBefore, ...asked } };
  return Object.fromEntries(Object.entries(body).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(before[k])));
}

const PLAN_FIELDS = ['name', 'description', 'amountCents', 'interval', 'intervalCount', 'trialDays', 'maxSubscribers', 'paymentMethods', 'dunning.retryDays', 'dunning.finalAction', 'dunning.pixDaysBefore', 'dunning.boletoDaysBefore', 'dunning.pixAutomaticoDaysBefore'];

function PlanEditor({ plan, done, cancel }: { plan?: Plan; done: () => void; cancel?: () => void }) {
  const [f, setF] = useState<PlanForm>(() => formOf(plan));
  const set = (k: keyof PlanForm) => (v: string) => setF({ ...f, [k]: v });
  return (
    <FormCard
      title="Novo plano"
      label="Criar plano"
      edit={plan?.name}
      fields={PLAN_FIELDS}
      cancel={cancel}
      submit={async () => {
        const body = bodyOf(f);
        if (!plan) await ok(api.POST('/api/v1/subscriptions/plans', { body }));
        else {
          const diff = changes(body, plan);
          if (Object.keys(diff).length) await ok(api.PATCH('/api/v1/subscriptions/plans/{id}', { params: { path: { id: plan.id } }, body: diff }));
        }
        if (!plan) setF(formOf());
        done();
      }}
    >
      {(error) => (
        <>
          <div class="grid-2">
            <Field label="Nome do plano" name="name" value={f.name} onValue={set('name')} error={error} required placeholder="Ex.: Clube do café" />
            <MoneyField label="Valor de cada cobrança (R$)" name="amountCents" value={f.amount} onValue={set('amount')} error={error} required hint={plan ? 'Um novo valor vale a partir do próximo período de cada assinante.' : 'Mínimo R$ 5,00.'} />
            <Select label="Cobrança" name="interval" value={f.interval} onValue={set('interval')} options={INTERVALS.map(([v, l]) => [v, l])} error={error} />
            <Field label={`A cada quantos períodos`} name="intervalCount" inputMode="numeric" value={f.intervalCount} onValue={set('intervalCount')} error={error} hint={`Hoje: cobra ${every(f.interval, Number(f.intervalCount) || 1)}.`} />
            <Field label="Dias de teste grátis" name="trialDays" inputMode="numeric" value={f.trialDays} onValue={set('trialDays')} error={error} hint="0 = cobra na assinatura." />
            <Field label="Limite de assinantes (opcional)" name="maxSubscribers" inputMode="numeric" value={f.maxSubscribers} onValue={set('maxSubscribers')} error={error} hint="Vazio = sem limite." />
          </div>
          <Field label="Descrição (opcional)" name="description" value={f.description} onValue={set('description')} error={error} />
          <Checkboxes legend="Formas de pagamento" name="paymentMethods" options={METHODS} value={f.paymentMethods} onValue={(v) => setF({ ...f, paymentMethods: v })} error={error} />
          <fieldset>
            <legend>Se a cobrança falhar</legend>
            <div class="grid-2">
              <Field label="Novas tentativas no cartão (dias depois da falha)" name="dunning.retryDays" value={f.retryDays} onValue={set('retryDays')} error={error} hint="Ex.: 1, 3, 5, 7. Vazio = sem novas tentativas." />
              <Select label="Depois da última tentativa" name="dunning.finalAction" value={f.finalAction} onValue={set('finalAction')} options={FINAL_ACTIONS} error={error} />
              <Field label="PIX enviado quantos dias antes do vencimento" name="dunning.pixDaysBefore" inputMode="numeric" value={f.pixDaysBefore} onValue={set('pixDaysBefore')} error={error} />
              <Field label="Boleto enviado quantos dias antes do vencimento" name="dunning.boletoDaysBefore" inputMode="numeric" value={f.boletoDaysBefore} onValue={set('boletoDaysBefore')} error={error} />
              {f.paymentMethods.includes('PIX_AUTOMATICO') && (
                <Field label="Pix Automático enviado quantos dias antes do vencimento" name="dunning.pixAutomaticoDaysBefore" inputMode="numeric" value={f.pixAutomaticoDaysBefore} onValue={set('pixAutomaticoDaysBefore')} error={error} hint="De 2 a 10 dias, pelas regras do Pix." />
              )}
            </div>
          </fieldset>
        </>
      )}
    </FormCard>
  );
}

function PlanCard({ p, reload }: { p: Plan; reload: () => void }) {
  const edit = useOpenForm(reload);
  const act = useSubmit();
  const [note, setNote] = useState('');
  if (edit.open)
    return (
      <li class="card">
        <PlanEditor plan={p} cancel={edit.cancel} done={edit.done} />
      </li>
    );
  return (
    <li class="card">
      <div class="grow">
        <strong>{p.name}</strong> <StatusTag kind="plan" status={p.status} />{' '}
        <strong class="nowrap">
          {brl(p.amountCents)} {every(p.interval, p.intervalCount)}
        </strong>
        {p.description && <p class="muted">{p.description}</p>}
        <p class="muted">
          {p.trialDays > 0 ? `${p.trialDays} dia(s) de teste grátis · ` : ''}
          {p.maxSubscribers == null ? `${integer(p.subscriberCount)} assinante(s)` : `${integer(p.subscriberCount)} de ${integer(p.maxSubscribers)} assinante(s)`} · {p.paymentMethods.map(methodLabel).join(', ')}
        </p>
        <p class="mono">
          <a href={p.publicUrl}>{p.publicUrl}</a>
        </p>
        {note && (
          <p class="notice" role="status">
            {note}
          </p>
        )}
        <FormError error={act.error} />
      </div>
      <div class="actions">
        <CopyButton text={p.publicUrl} label="Copiar link de assinatura" />
        <Link class="btn btn-secondary btn-small" to={`/assinaturas?aba=assinantes&plano=${p.id}`}>
          Ver assinantes
        </Link>
        <Action label="Editar" run={edit.show} ariaLabel={`Editar o plano ${p.name}`} />
        {p.status === 'ACTIVE' ? (
          <Action
            label="Desativar"
            tone="danger"
            busy={act.busy}
            ariaLabel={`Desativar o plano ${p.name}`}
            ask={`Desativar o plano “${p.name}”? Ninguém mais poderá assinar; quem já assina continua sendo cobrado.${p.subscriberCount === 0 ? ' Como ele nunca teve assinantes, será excluído.' : ''}`}
            run={() =>
              act.submit(async () => {
                const r = await ok(api.DELETE('/api/v1/subscriptions/plans/{id}', { params: { path: { id: p.id } } }));
                setNote(r.message.startsWith('Plan deleted') ? 'Plano excluído.' : 'Plano desativado.');
                reload();
              })
            }
          />
        ) : (
          <Action
            label="Reativar"
            busy={act.busy}
            ariaLabel={`Reativar o plano ${p.name}`}
            run={() =>
              act.submit(async () => {
                await ok(api.PATCH('/api/v1/subscriptions/plans/{id}', { params: { path: { id: p.id } }, body: { status: 'ACTIVE' } }));
                reload();
              })
            }
          />
        )}
      </div>
    </li>
  );
}

async function allPlans(): Promise<Plan[]> {
  const out: Plan[] = [];
  let cursor: string | undefined;
  do {
    const r = await ok(api.GET('/api/v1/subscriptions/plans', { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } }));
    out.push(...r.plans);
    cursor = r.pagination.nextCursor ?? undefined;
  } while (cursor);
  return out;
}

function Plans() {
  const list = useAsync(allPlans, []);
  const add = useOpenForm(list.reload);
  const none = list.data?.length === 0;
  return (
    <div>
      {(none || add.open) && <PlanEditor done={add.done} cancel={none ? undefined : add.cancel} />}
      <div class="page-header">
        <h2>Seus planos</h2>
        {!none && !add.open && list.data && (
          <button type="button" class="btn btn-primary" onClick={add.show}>
            Novo plano
          </button>
        )}
      </div>
      {list.loading && <Loading />}
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {none && <Empty title="Nenhum plano ainda.">Crie um plano acima; depois envie o link de assinatura dele para seus clientes ou assine clientes pela API.</Empty>}
      <ul class="list cards-list">
        {list.data?.map((p) => (
          <PlanCard key={p.id} p={p} reload={list.reload} />
        ))}
      </ul>
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Subscribers

function Subscribers() {
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

function SubscriptionActions({ s, plan, plans, done }: { s: Subscription; plan: Plan | undefined; plans: Plan[]; done: (s: Subscription, note?: string) => void }) {
  const env = useCell(session.env);
  const act = useSubmit();
  const [days, setDays] = useState('30');
  const id = { params: { path: { id: s.id } } };
  const run = (fn: () => Promise<{ subscription: Subscription }>) => () => act.submit(async () => done((await fn()).subscription));
  const ended = s.status === 'CANCELLED' || s.status === 'EXPIRED';
  const failed = s.cycles?.some((c) => c.status === 'PAST_DUE' || (c.status === 'OPEN' && c.failureReason));
  const outcomes = s.paymentMethod === 'PIX_AUTOMATICO' ? pixAutomaticoOutcomes(s) : [];
  return (
    <section class="card" aria-label="Ações">
      <h2>Ações</h2>
      <FormError error={act.error} fields={['advanceDays']} />
      {ended ? (
        <p class="muted">Esta assinatura terminou: nada mais a fazer. O cliente pode assinar de novo pelo link do plano{plan ? ` “${plan.name}”` : ''}.</p>
      ) : (
        <div class="actions">
          {(s.status === 'PAST_DUE' || s.status === 'INCOMPLETE') && failed && <Action label="Tentar cobrar de novo" tone="primary" busy={act.busy} run={run(() => ok(api.POST('/api/v1/subscriptions/{id}/retry', { ...id, body: {} })))} />}
          {(s.status === 'ACTIVE' || s.status === 'PAST_DUE') && <Action label="Pausar" busy={act.busy} ask="Pausar esta assinatura? Nada é cobrado enquanto estiver pausada." run={run(() => ok(api.PATCH('/api/v1/subscriptions/{id}/pause', { ...id, body: {} })))} />}
          {s.status === 'PAUSED' && <Action label="Retomar" tone="primary" busy={act.busy} ask="Retomar agora? Um novo período começa hoje e é cobrado." run={run(() => ok(api.PATCH('/api/v1/subscriptions/{id}/resume', { ...id, body: {} })))} />}
          {!s.cancelAtPeriodEnd && (
            <Action label="Cancelar no fim do período" busy={act.busy} ask={`Cancelar em ${date(s.currentPeriodEnd)}, no fim do período já pago?`} run={run(() => ok(api.PATCH('/api/v1/subscriptions/{id}/cancel', { ...id, body: { atPeriodEnd: true } })))} />
          )}
          <Action label="Cancelar agora" tone="danger" busy={act.busy} ask="Cancelar esta assinatura agora? Cobranças em aberto são retiradas." run={run(() => ok(api.PATCH('/api/v1/subscriptions/{id}/cancel', { ...id, body: {} })))} />
        </div>
      )}
      {(s.status === 'ACTIVE' || s.status === 'TRIALING') && <ChangePlan s={s} plan={plan} plans={plans} done={done} />}
      {env === 'development' && !ended && (
        <form
          class="inline-form sandbox-box"
          onSubmit={(e) => {
            e.preventDefault();
            act.submit(async () => {
              const advanceDays = intOf(days, 'advanceDays');
              if (!advanceDays) throw fieldError('advanceDays', 'Informe de 1 a 400 dias.');
              done((await ok(api.POST('/api/v1/subscriptions/{id}/simulate', { ...id, body: { advanceDays } }))).subscription);
            });
          }}
        >
          <h3 class="grow-all">Simular no sandbox</h3>
          {outcomes.length > 0 && (
            <div class="grow-all" role="group" aria-label="Pix Automático: o que o pagador e o banco fazem">
              <p class="muted">Pix Automático: {outcomes.map(([, , what]) => what).join('; ')}.</p>
              <div class="actions">
                {outcomes.map(([o, label]) => (
                  <Action key={o} label={label} busy={act.busy} run={() => act.submit(async () => done((await ok(api.POST('/api/v1/subscriptions/{id}/simulate', { ...id, body: { pixAutomatico: o } }))).subscription))} />
                ))}
              </div>
            </div>
          )}
          <Field label="Avançar o relógio desta assinatura (dias)" name="advanceDays" inputMode="numeric" value={days} onValue={setDays} error={act.error} hint="Roda o que venceria nesses dias: fim do teste, renovações, novas tentativas." />
          <button class="btn btn-secondary" type="submit" disabled={act.busy}>
            {act.busy ? 'Simulando…' : 'Simular'}
          </button>
        </form>
      )}
    </section>
  );
}

type PlanChange = Json<'changeSubscriptionPlanV1'>['change'];

/**
 * Change the subscriber's plan: the plans billed on the same cadence (the API's rule), the API's
 * preview of the amounts first (an upgrade now with a prorated charge, a downgrade at the period's
 * end), then the change itself; the API's refusal shows on the plan field.
 */
function ChangePlan({ s, plan, plans, done }: { s: Subscription; plan: Plan | undefined; plans: Plan[]; done: (s: Subscription, note: string) => void }) {
  const options = plans
    .filter((p) => p.id !== s.planId && p.status === 'ACTIVE' && (!plan || (p.interval === plan.interval && p.intervalCount === plan.intervalCount)))
    .sort((a, b) => a.amountCents - b.amountCents);
  const [planId, setPlanId] = useState('');
  const [preview, setPreview] = useState<PlanChange | null>(null);
  const form = useSubmit();
  const titleId = useId();
  const id = { params: { path: { id: s.id } } };
  const target = options.find((p) => p.id === planId);
  const pick = (v: string) => {
    setPlanId(v);
    setPreview(null);
    form.setError(null);
  };
  if (!options.length)
    return (
      <p class="muted">
        Para trocar o plano deste assinante, crie outro plano cobrado {plan ? every(plan.interval, plan.intervalCount) : 'com a mesma periodicidade'} em <Link to="/assinaturas">Planos</Link>.
      </p>
    );
  return (
    <form
      class="change-plan"
      aria-labelledby={titleId}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void form.submit(async () => {
          if (!planId) throw fieldError('planId', 'Escolha o novo plano.');
          const r = await ok(api.POST('/api/v1/subscriptions/{id}/change-plan', { ...id, body: { planId, preview: !preview } }));
          if (!preview) return setPreview(r.change);
          setPreview(null);
          setPlanId('');
          done(r.subscription, changedNote(r.change, target!, r.subscription));
        });
      }}
    >
      <h3 id={titleId}>Trocar de plano</h3>
      <Select label="Novo plano" name="planId" value={planId} onValue={pick} options={[['', 'Escolha…'], ...options.map((p): [string, string] => [p.id, `${p.name} · ${brl(p.amountCents)} ${every(p.interval, p.intervalCount)}`])]} error={form.error} />
      {preview && target && <ChangePreview change={preview} target={target} s={s} />}
      <div class="actions">
        <button class="btn btn-primary" type="submit" disabled={form.busy || !planId}>
          {form.busy ? 'Calculando…' : preview ? 'Confirmar a troca' : 'Ver valores da troca'}
        </button>
        {preview && (
          <button class="btn btn-ghost" type="button" onClick={() => pick('')}>
            Cancelar
          </button>
        )}
      </div>
      <FormError error={form.error} fields={['planId']} />
    </form>
  );
}

/** The API's preview, in reais: what is charged now and what from the next period. */
function ChangePreview({ change, target, s }: { change: PlanChange; target: Plan; s: Subscription }) {
  const next = `${brl(change.nextAmountCents)} ${every(target.interval, target.intervalCount)}`;
  return (
    <div class="notice" role="status" aria-label="Valores da troca">
      {change.kind === 'UPGRADE' ? (
        <>
          <p>
            <strong>Plano mais caro: a troca vale agora.</strong>
          </p>
          <p>
            Cobrado agora: <strong>{brl(change.prorationCents)}</strong>
            {change.prorationCents > 0 ? ` (a diferença proporcional aos ${change.remainingDays} de ${change.periodDays} dias que faltam do período)` : s.status === 'TRIALING' ? ' (em teste grátis nada é cobrado)' : ''}.
          </p>
        </>
      ) : (
        <>
          <p>
            <strong>Plano mais barato: a troca vale no fim do período, em {date(s.currentPeriodEnd)}.</strong>
          </p>
          <p>Nada é cobrado agora; o período atual continua no plano de hoje.</p>
        </>
      )}
      <p>Depois: {next}.</p>
    </div>
  );
}

/** What the change did, said once it is made (the prorated charge's outcome is the newest cycle). */
function changedNote(change: PlanChange, target: Plan, s: Subscription): string {
  if (change.effective === 'PERIOD_END') return `Troca agendada: a partir de ${date(s.currentPeriodEnd)} o plano passa a ser “${target.name}”.`;
  const charged = change.prorationCents > 0 ? s.cycles?.find((c) => c.kind === 'PRORATION') : undefined;
  const outcome = !charged ? '' : charged.status === 'PAID' ? ' (paga)' : charged.status === 'OPEN' && !charged.failureReason ? ' (em aberto)' : ' (recusada: veja as cobranças)';
  return `Plano trocado para “${target.name}”.${charged ? ` Cobrança proporcional de ${brl(charged.amountCents)}${outcome}.` : ''}`;
}

const PIX_AUTOMATICO_OUTCOMES: [PixAutomaticoOutcome, string, string][] = [
  // outcome, button, what it plays
  ['APPROVE', 'Pagador aprova', 'o pagador autoriza os débitos no app do banco'],
  ['REJECT', 'Pagador recusa', 'o pagador recusa a autorização'],
  ['PAYER_CANCEL', 'Pagador cancela', 'o pagador cancela a autorização no banco'],
  ['INSUFFICIENT_FUNDS', 'Débito sem saldo', 'o banco recusa o débito agendado por falta de saldo'],
];
type PixAutomaticoOutcome = NonNullable<JsonBody<'simulateSubscriptionV1'>['pixAutomatico']>;

/** The outcomes the API accepts in the authorisation's state (docs/subscriptions.md, Pix Automático). */
function pixAutomaticoOutcomes(s: Subscription) {
  const status = s.pixAutomatico?.status;
  const debitPending = s.cycles?.some((c) => c.status === 'OPEN' && c.transactionId && !c.failureReason) && status === 'APROVADA';
  return PIX_AUTOMATICO_OUTCOMES.filter(([o]) => (o === 'APPROVE' || o === 'REJECT' ? status === 'CRIADA' : o === 'PAYER_CANCEL' ? status === 'CRIADA' || status === 'APROVADA' : debitPending));
}

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
          <dl class="facts">
            <dt>Plano</dt>
            <dd>{plan ? `${plan.name} · ${brl(plan.amountCents)} ${every(plan.interval, plan.intervalCount)}` : '—'}</dd>
            <dt>Cliente</dt>
            <dd>
              {s.client.email} · {documentText(s.client.document)}
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
          {s.payment && (
            <div class="notice">
              <p>
                Cobrança em aberto de <strong>{brl(s.payment.amountCents)}</strong>: <a href={s.payment.paymentUrl}>página de pagamento</a>
              </p>
              <div class="actions">
                <CopyButton text={s.payment.paymentUrl} label="Copiar link de pagamento" />
                {s.payment.pixCode && <CopyButton text={s.payment.pixCode} label="Copiar código PIX" />}
                {s.payment.boletoLine && <CopyButton text={s.payment.boletoLine} label="Copiar linha do boleto" />}
              </div>
            </div>
          )}
        </section>
        <SubscriptionActions s={s} plan={plan} plans={plans} done={update} />
      </div>
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
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Metrics

/** The month `back` months before `month` (YYYY-MM). */
function monthBefore(month: string, back: number): string {
  const [y, m] = month.split('-').map(Number);
  const d = new Date(Date.UTC(y, m - 1 - back, 1));
  return d.toISOString().slice(0, 7);
}

const CHART_MONTHS = 6;

function MetricsTab() {
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
  const mv = m.movements;
  const rows: [string, number][] = [
    ['Novas assinaturas', mv.newCents],
    ['Aumentos de valor', mv.expansionCents],
    ['Reativações', mv.reactivationCents],
    ['Reduções de valor', -mv.contractionCents || 0],
    ['Cancelamentos e pausas', -mv.churnCents || 0],
  ];
  return (
    <>
      <p class="muted period">{monthLabel(m.month)}: números ao fim do mês (ou agora, no mês corrente), horário de Brasília.</p>
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
    </>
  );
}

export default function Subscriptions({ route }: { route: string }) {
  return (
    <TabbedScreen
      title="Assinaturas"
      path="/assinaturas"
      route={route}
      tabs={[
        ['planos', 'Planos', Plans],
        ['assinantes', 'Assinantes', Subscribers],
        ['metricas', 'Métricas', MetricsTab],
      ]}
    />
  );
}
