// Afiliados > Programas (product owner): one program per product (commission, cookie, attribution,
// approval, guarantee), and each program's affiliates to approve, refuse or block.
import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.ts';
import { Link } from '../../components/Link.tsx';
import { intOf, MoreButton, useOpenForm } from '../../components/ListParts.tsx';
import { centsOf, fieldError, MoneyField } from '../../components/MoneyField.tsx';
import { FormCard } from '../../components/Resource.tsx';
import { StatusTag } from '../../components/StatusTag.tsx';
import { Action, Empty, ErrorState, Field, FormError, Loading, Select } from '../../components/ui.tsx';
import { useAsync, useSubmit } from '../../lib/async.ts';
import { brl, date, integer, moneyInput } from '../../lib/format.ts';
import { nextPage, useMore } from '../../lib/more.ts';
import { type Program, type ProgramBody, type Product, ATTRIBUTIONS, APPROVALS, basisPoints, commissionText } from './common.ts';

interface ProgramForm {
  productId: string;
  commissionType: 'PERCENTAGE' | 'FIXED';
  commission: string;
  cookieDays: string;
  attribution: string;
  approval: string;
  guaranteeDays: string;
  extendedCommission: boolean;
  description: string;
  rules: string;
  salesPage: string;
}

function programForm(p?: Program): ProgramForm {
  return {
    productId: p?.productId ?? '',
    commissionType: p?.commissionType ?? 'PERCENTAGE',
    commission: !p ? '' : p.commissionType === 'FIXED' ? moneyInput(p.commissionValue) : String(p.commissionValue / 100).replace('.', ','),
    cookieDays: p ? (p.cookieDays == null ? '' : String(p.cookieDays)) : '30',
    attribution: p?.attribution ?? 'LAST_CLICK',
    approval: p?.approval ?? 'AUTO',
    guaranteeDays: String(p?.guaranteeDays ?? 7),
    extendedCommission: p?.extendedCommission ?? false,
    description: p?.description ?? '',
    rules: p?.rules ?? '',
    salesPage: p?.salesPage ?? '',
  };
}

function programBody(f: ProgramForm): Omit<ProgramBody, 'productId'> {
  let commissionValue: number;
  if (f.commissionType === 'FIXED') commissionValue = centsOf(f.commission, 'commissionValue');
  else {
    const bp = basisPoints(f.commission);
    if (bp == null || bp < 1 || bp > 10000) throw fieldError('commissionValue', 'Informe uma porcentagem de 0,01 a 100, como 40 ou 12,5.');
    commissionValue = bp;
  }
  return {
    commissionType: f.commissionType,
    commissionValue,
    cookieDays: intOf(f.cookieDays, 'cookieDays'),
    attribution: f.attribution as 'LAST_CLICK',
    approval: f.approval as 'AUTO',
    guaranteeDays: intOf(f.guaranteeDays, 'guaranteeDays') ?? 0,
    extendedCommission: f.extendedCommission,
    description: f.description.trim() || null,
    rules: f.rules.trim() || null,
    salesPage: f.salesPage.trim() || null,
  };
}

const PROGRAM_FIELDS = ['productId', 'commissionType', 'commissionValue', 'cookieDays', 'attribution', 'approval', 'guaranteeDays', 'description', 'rules', 'salesPage'];

function ProgramEditor({ program, products, done, cancel }: { program?: Program; products: Product[]; done: () => void; cancel?: () => void }) {
  const [f, setF] = useState<ProgramForm>(() => programForm(program));
  const set = (k: keyof ProgramForm) => (v: string) => setF({ ...f, [k]: v });
  const product = products.find((p) => p.id === f.productId);
  return (
    <FormCard
      title="Novo programa de afiliados"
      label="Criar programa"
      edit={program && (product?.name ?? 'programa')}
      fields={PROGRAM_FIELDS}
      cancel={cancel}
      submit={async () => {
        if (program) await ok(api.PATCH('/api/affiliate/programs/{id}', { params: { path: { id: program.id } }, body: programBody(f) }));
        else {
          if (!f.productId) throw fieldError('productId', 'Escolha o produto que os afiliados vão divulgar.');
          await ok(api.POST('/api/affiliate/programs', { body: { productId: f.productId, ...programBody(f) } }));
          setF(programForm());
        }
        done();
      }}
    >
      {(error) => (
        <>
          <div class="grid-2">
            {!program && (
              <Select label="Produto" name="productId" value={f.productId} onValue={set('productId')} options={[['', 'Escolha um produto'], ...products.map((p) => [p.id, `${p.name} (${brl(p.price)})`] as [string, string])]} error={error} />
            )}
            <Select
              label="Tipo de comissão"
              name="commissionType"
              value={f.commissionType}
              onValue={(v) => setF({ ...f, commissionType: v as 'PERCENTAGE', commission: '' })}
              options={[
                ['PERCENTAGE', 'Porcentagem do valor pago'],
                ['FIXED', 'Valor fixo por venda'],
              ]}
              error={error}
            />
            {f.commissionType === 'FIXED' ? (
              <MoneyField label="Comissão por venda (R$)" name="commissionValue" value={f.commission} onValue={set('commission')} error={error} required hint={product ? `No máximo o preço do produto, ${brl(product.price)}.` : undefined} />
            ) : (
              <Field label="Comissão (%)" name="commissionValue" inputMode="decimal" value={f.commission} onValue={set('commission')} error={error} required placeholder="Ex.: 40 ou 12,5" />
            )}
            <Field label="Validade do clique (dias de cookie)" name="cookieDays" inputMode="numeric" value={f.cookieDays} onValue={set('cookieDays')} error={error} hint="De 1 a 365; vazio = sem limite." />
            <Select label="Quem leva a venda" name="attribution" value={f.attribution} onValue={set('attribution')} options={ATTRIBUTIONS} error={error} />
            <Select label="Aprovação de afiliados" name="approval" value={f.approval} onValue={set('approval')} options={APPROVALS} error={error} />
            <Field label="Garantia (dias até liberar a comissão)" name="guaranteeDays" inputMode="numeric" value={f.guaranteeDays} onValue={set('guaranteeDays')} error={error} hint="O prazo de reembolso; de 0 a 365." />
            <Field label="Página de vendas (opcional)" name="salesPage" type="url" value={f.salesPage} onValue={set('salesPage')} error={error} placeholder="https://" />
          </div>
          <Field label="Descrição para os afiliados (opcional)" name="description" value={f.description} onValue={set('description')} error={error} />
          <Field label="Regras de divulgação (opcional)" name="rules" value={f.rules} onValue={set('rules')} error={error} placeholder="Ex.: sem anúncios com o nome da marca" />
          <label class="check">
            <input type="checkbox" checked={f.extendedCommission} onChange={(e) => setF({ ...f, extendedCommission: (e.target as HTMLInputElement).checked })} /> Pagar comissão também nas renovações de assinatura
          </label>
        </>
      )}
    </FormCard>
  );
}

function ProgramAffiliates({ program }: { program: Program }) {
  const list = useMore(async (page) => {
    const r = await ok(api.GET('/api/affiliate/programs/{id}/links', { params: { path: { id: program.id }, query: { page: Number(page ?? 1), limit: 20 } } }));
    return { items: r.data, next: nextPage(r.meta) };
  }, [program.id]);
  const act = useSubmit();
  if (list.loading) return <Loading />;
  if (list.error) return <ErrorState error={list.error} retry={list.reload} />;
  if (!list.items.length) return <Empty title="Nenhum afiliado ainda.">Os afiliados entram pela vitrine (aba Vitrine da conta deles); com aprovação manual eles aparecem aqui para você aprovar.</Empty>;
  const decide = (linkId: string, decision: 'approve' | 'refuse' | 'block') => () =>
    act.submit(async () => {
      await ok(api.POST(`/api/affiliate/programs/{id}/links/{linkId}/${decision}`, { params: { path: { id: program.id, linkId } } }));
      list.reload();
    });
  return (
    <div>
      <FormError error={act.error} />
      <ul class="list">
        {list.items.map((a) => (
          <li key={a.id}>
            <div class="grow">
              <strong>{a.affiliate.name}</strong> <StatusTag kind="affiliate" status={a.status} />
              <p class="muted">
                <span class="mono">{a.code}</span> · {integer(a.clicks)} clique(s) · {integer(a.conversions)} venda(s) · desde {date(a.createdAt)}
              </p>
            </div>
            <div class="actions">
              {(a.status === 'PENDING' || a.status === 'BLOCKED') && <Action label="Aprovar" tone="primary" busy={act.busy} ariaLabel={`Aprovar ${a.affiliate.name}`} run={decide(a.id, 'approve')} />}
              {a.status === 'PENDING' && <Action label="Recusar" busy={act.busy} ariaLabel={`Recusar ${a.affiliate.name}`} ask={`Recusar ${a.affiliate.name}? Um afiliado recusado não pode entrar de novo.`} run={decide(a.id, 'refuse')} />}
              {(a.status === 'PENDING' || a.status === 'ACTIVE') && <Action label="Bloquear" tone="danger" busy={act.busy} ariaLabel={`Bloquear ${a.affiliate.name}`} ask={`Bloquear ${a.affiliate.name}? Os links dele param de atribuir vendas.`} run={decide(a.id, 'block')} />}
            </div>
          </li>
        ))}
      </ul>
      <MoreButton list={list} />
    </div>
  );
}

function ProgramCard({ p, products, reload }: { p: Program; products: Product[]; reload: () => void }) {
  const edit = useOpenForm(reload);
  const [open, setOpen] = useState(false);
  const act = useSubmit();
  const name = products.find((x) => x.id === p.productId)?.name ?? 'Produto';
  if (edit.open)
    return (
      <li class="card">
        <ProgramEditor program={p} products={products} cancel={edit.cancel} done={edit.done} />
      </li>
    );
  return (
    <li class="card">
      <div class="grow">
        <strong>{name}</strong> <StatusTag kind="program" status={p.status} /> <strong class="nowrap">{commissionText(p.commissionType, p.commissionValue)}</strong>
        <p class="muted">
          Cookie {p.cookieDays == null ? 'sem limite' : `de ${p.cookieDays} dia(s)`} · {ATTRIBUTIONS.find((a) => a[0] === p.attribution)?.[1].toLowerCase()} · aprovação {p.approval === 'AUTO' ? 'automática' : 'manual'} · garantia de {p.guaranteeDays} dia(s)
          {p.extendedCommission ? ' · comissão nas renovações' : ''}
        </p>
        {p.description && <p class="muted">{p.description}</p>}
        <FormError error={act.error} />
      </div>
      <div class="actions">
        <Action label={open ? 'Esconder afiliados' : 'Ver afiliados'} run={() => setOpen(!open)} ariaLabel={`${open ? 'Esconder' : 'Ver'} afiliados de ${name}`} />
        <Action label="Editar" run={edit.show} ariaLabel={`Editar o programa de ${name}`} />
        <Action
          label="Encerrar"
          tone="danger"
          busy={act.busy}
          ariaLabel={`Encerrar o programa de ${name}`}
          ask={`Encerrar o programa de “${name}”? Ele sai da vitrine e não atribui novas vendas; as comissões já geradas seguem normalmente.`}
          run={() =>
            act.submit(async () => {
              await ok(api.DELETE('/api/affiliate/programs/{id}', { params: { path: { id: p.id } } }));
              reload();
            })
          }
        />
      </div>
      {open && (
        <div class="delivery-detail">
          <h3>Afiliados</h3>
          <ProgramAffiliates program={p} />
        </div>
      )}
    </li>
  );
}

export function Programs() {
  const data = useAsync(
    () =>
      Promise.all([
        ok(api.GET('/api/affiliate/programs', { params: { query: { page: 1, limit: 100 } } })).then((r) => r.data),
        ok(api.GET('/api/v1/products', { params: { query: { page: 1, limit: 100 } } })).then((r) => r.products as Product[]),
      ]),
    [],
  );
  const add = useOpenForm(data.reload);
  if (data.loading) return <Loading />;
  if (data.error) return <ErrorState error={data.error} retry={data.reload} />;
  const [programs, products] = data.data!;
  const free = products.filter((p) => !programs.some((g) => g.productId === p.id));
  const showForm = free.length > 0 && (programs.length === 0 || add.open);
  return (
    <div>
      {products.length === 0 && (
        <Empty title="Você ainda não tem produtos.">
          Cadastre um produto em <Link to="/catalogo">Catálogo</Link> e crie um link de pagamento para ele; depois abra aqui um programa para afiliados o divulgarem.
        </Empty>
      )}
      {showForm && <ProgramEditor products={free} done={add.done} cancel={programs.length ? add.cancel : undefined} />}
      <div class="page-header">
        <h2>Seus programas</h2>
        {!showForm && free.length > 0 && (
          <button type="button" class="btn btn-primary" onClick={add.show}>
            Novo programa
          </button>
        )}
      </div>
      {products.length > 0 && programs.length === 0 && <Empty title="Nenhum programa ainda.">Abra um programa acima: ele aparece na vitrine, onde outros vendedores se afiliam e divulgam seu produto.</Empty>}
      {programs.length > 0 && free.length === 0 && <p class="muted">Todos os seus produtos já têm um programa (um por produto).</p>}
      <ul class="list cards-list">
        {programs.map((p) => (
          <ProgramCard key={p.id} p={p} products={products} reload={data.reload} />
        ))}
      </ul>
    </div>
  );
}
