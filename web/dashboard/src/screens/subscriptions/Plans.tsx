// Assinaturas > Planos: create, edit (its split too), deactivate or reactivate a plan; its public
// subscription link.
import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.ts';
import { Link } from '../../components/Link.tsx';
import { intOf, useOpenForm } from '../../components/ListParts.tsx';
import { Checkboxes, FormCard } from '../../components/Resource.tsx';
import { centsOf, fieldError, MoneyField } from '../../components/MoneyField.tsx';
import { SplitEditor } from '../../components/SplitEditor.tsx';
import { StatusTag } from '../../components/StatusTag.tsx';
import { Action, CopyButton, Empty, ErrorState, Field, FormError, Loading, Select } from '../../components/ui.tsx';
import { useAsync, useSubmit } from '../../lib/async.ts';
import { brl, integer, moneyInput } from '../../lib/format.ts';
import { rowsOf, splitFields, splitOf, splitText, type SplitRow } from '../../lib/split-rule.ts';
import { type Plan, type Interval, type PlanBody, INTERVALS, every, METHODS, methodLabel, FINAL_ACTIONS, allPlans } from './common.ts';

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
  split: SplitRow[];
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
    split: rowsOf(p?.split),
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
    split: splitOf(f.split),
  };
}

/** Only what changed, so a plan with subscribers can be edited (its cadence cannot change). */
function changes(body: PlanBody, p: Plan): Partial<PlanBody> {
  const { retryDays, finalAction, pixDaysBefore, boletoDaysBefore, pixAutomaticoDaysBefore } = p.dunning;
  const asked = body.dunning && 'pixAutomaticoDaysBefore' in body.dunning ? { pixAutomaticoDaysBefore } : {};
  // The saved split read back through the form's rows, so an unchanged one compares equal.
  const before: Record<string, unknown> = { ...p, dunning: { retryDays, finalAction, pixDaysBefore, boletoDaysBefore, ...asked }, split: splitOf(rowsOf(p.split)) };
  return Object.fromEntries(Object.entries(body).filter(([k, v]) => JSON.stringify(v) !== JSON.stringify(before[k])));
}

const PLAN_FIELDS = ['name', 'description', 'amountCents', 'interval', 'intervalCount', 'trialDays', 'maxSubscribers', 'paymentMethods', 'dunning.retryDays', 'dunning.finalAction', 'dunning.pixDaysBefore', 'dunning.boletoDaysBefore', 'dunning.pixAutomaticoDaysBefore'];

function PlanEditor({ plan, done, cancel }: { plan?: Plan; done: () => void; cancel?: () => void }) {
  const [f, setF] = useState<PlanForm>(() => formOf(plan));
  const set = (k: Exclude<keyof PlanForm, 'split'>) => (v: string) => setF({ ...f, [k]: v });
  return (
    <FormCard
      title="Novo plano"
      label="Criar plano"
      edit={plan?.name}
      fields={[...PLAN_FIELDS, ...splitFields(f.split)]}
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
          <SplitEditor rows={f.split} onRows={(split) => setF({ ...f, split })} error={error} intro="Repasse parte de cada cobrança (a primeira e cada renovação) a subcontas e parceiros. Sem recebedores, tudo fica com você." />
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
        {p.split && <p class="muted">{splitText(p.split)}</p>}
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

export function Plans() {
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
