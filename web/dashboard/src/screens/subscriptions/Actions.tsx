// A subscription's actions: retry, pause, resume, cancel, change of plan (with the API's preview of
// the amounts), and in development the sandbox's clock and Pix Automático outcomes.
import { useId, useState } from 'preact/hooks';
import { api, ok } from '../../api/client.ts';
import type { Json, JsonBody } from '../../api/json.ts';
import { Link } from '../../components/Link.tsx';
import { intOf } from '../../components/ListParts.tsx';
import { fieldError } from '../../components/MoneyField.tsx';
import { Action, Field, FormError, Select } from '../../components/ui.tsx';
import { useSubmit } from '../../lib/async.ts';
import { brl, date } from '../../lib/format.ts';
import { session } from '../../lib/session.ts';
import { useCell } from '../../lib/state.ts';
import { type Plan, type Subscription, every } from './common.ts';

export function SubscriptionActions({ s, plan, plans, done }: { s: Subscription; plan: Plan | undefined; plans: Plan[]; done: (s: Subscription, note?: string) => void }) {
  const env = useCell(session.env);
  const act = useSubmit();
  const id = { params: { path: { id: s.id } } };
  const run = (fn: () => Promise<{ subscription: Subscription }>) => () => act.submit(async () => done((await fn()).subscription));
  const ended = s.status === 'CANCELLED' || s.status === 'EXPIRED';
  const failed = s.cycles?.some((c) => c.status === 'PAST_DUE' || (c.status === 'OPEN' && c.failureReason));
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
      {env === 'development' && !ended && <SandboxClock s={s} act={act} done={done} />}
    </section>
  );
}

/**
 * Development only: play the subscription's clock forward, or (Pix Automático) what the payer and the
 * bank do. It shares the actions' submission (`act`): one busy state, its errors shown with theirs.
 */
function SandboxClock({ s, act, done }: { s: Subscription; act: ReturnType<typeof useSubmit>; done: (s: Subscription) => void }) {
  const [days, setDays] = useState('30');
  const id = { params: { path: { id: s.id } } };
  const outcomes = s.paymentMethod === 'PIX_AUTOMATICO' ? pixAutomaticoOutcomes(s) : [];
  return (
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
