// Afiliados and Indicações. As a product owner: affiliate programs (one per product: commission,
// cookie, attribution, approval, guarantee), and each program's affiliates to approve, refuse or
// block. As an affiliate: the marketplace (search, join), my links to copy, my commissions, my
// totals. Referrals: my invite code and link, totals and rewards. Through /api/affiliate/* and
// /api/referral/* with the dashboard token (docs/affiliates.md).
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import type { Json, JsonBody } from '../api/json.ts';
import { Link } from '../components/Link.tsx';
import { intOf, MoreButton, useOpenForm } from '../components/ListParts.tsx';
import { centsOf, fieldError, MoneyField } from '../components/MoneyField.tsx';
import { FormCard, SearchForm } from '../components/Resource.tsx';
import { statusLabel, statusOptions, StatusTag } from '../components/StatusTag.tsx';
import { Action, CopyButton, Empty, ErrorState, Field, FormError, Loading, PageHeader, Select } from '../components/ui.tsx';
import { TabbedScreen } from '../components/Tabs.tsx';
import { useAsync, useSubmit } from '../lib/async.ts';
import { brl, date, integer, moneyInput, percent } from '../lib/format.ts';
import { nextPage, useMore } from '../lib/more.ts';

type Program = Json<'getAffiliateProgram'>['data'];
type ProgramBody = JsonBody<'createAffiliateProgram'>;
type Product = { id: string; name: string; price: number };

const ATTRIBUTIONS: [string, string][] = [
  ['LAST_CLICK', 'Último clique'],
  ['FIRST_CLICK', 'Primeiro clique'],
];
const APPROVALS: [string, string][] = [
  ['AUTO', 'Automática: entram na hora'],
  ['MANUAL', 'Manual: eu aprovo cada afiliado'],
];

/** "40" or "12,5" (percent) -> basis points; null when it is not a percentage. */
function basisPoints(text: string): number | null {
  const t = text.trim().replace('%', '').trim();
  if (!/^\d{1,3}(,\d{1,2})?$/.test(t)) return null;
  return Math.round(Number(t.replace(',', '.')) * 100);
}
const percentOfBp = (bp: number) => percent(bp / 10000);

function commissionText(type: string, value: number): string {
  return type === 'PERCENTAGE' ? `${percentOfBp(value)} do valor pago` : `${brl(value)} por venda`;
}

// ---------------------------------------------------------------------------------------------
// Programs (product owner)

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

function Programs() {
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

// ---------------------------------------------------------------------------------------------
// Marketplace, links, commissions (affiliate)

function Marketplace() {
  const [query, setQuery] = useState('');
  const [joined, setJoined] = useState<Record<string, string>>({});
  const list = useMore(
    async (page) => {
      const r = await ok(api.GET('/api/affiliate/marketplace', { params: { query: { page: Number(page ?? 1), limit: 20, ...(query ? { search: query } : {}) } } }));
      return { items: r.data, next: nextPage(r.meta) };
    },
    [query],
  );
  const act = useSubmit();
  return (
    <div>
      <SearchForm label="Buscar produto" placeholder="Nome ou descrição" search={setQuery} />
      <FormError error={act.error} />
      {list.loading && <Loading />}
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {!list.loading && !list.error && list.items.length === 0 && (
        <Empty title={query ? `Nenhum programa encontrado para “${query}”.` : 'Nenhum programa na vitrine ainda.'}>Os programas de afiliados abertos por outros vendedores deste ambiente aparecem aqui.</Empty>
      )}
      <ul class="list cards-list">
        {list.items.map((m) => (
          <li key={m.programId} class="card">
            <div class="grow">
              <strong>{m.product.name}</strong> <span class="muted nowrap">{brl(m.product.price)}</span>
              <p>
                Você ganha <strong>{m.commission.perSale}</strong> por venda ({commissionText(m.commission.type, m.commission.value)})
              </p>
              <p class="muted">
                Cookie {m.cookieDays == null ? 'sem limite' : `de ${m.cookieDays} dia(s)`} · aprovação {m.approval === 'AUTO' ? 'automática' : 'manual'} · garantia de {m.guaranteeDays} dia(s) · {integer(m.affiliateCount)} afiliado(s) · conversão {percent(m.conversionRate)}
              </p>
              {m.description && <p class="muted">{m.description}</p>}
              {m.rules && <p class="muted">Regras: {m.rules}</p>}
              {m.salesPage && (
                <p class="mono">
                  <a href={m.salesPage}>{m.salesPage}</a>
                </p>
              )}
              {joined[m.programId] && (
                <p class="notice" role="status">
                  {joined[m.programId]} <Link to="/afiliados?aba=links">Ver meus links</Link>
                </p>
              )}
            </div>
            <div class="actions">
              <Action
                label="Quero me afiliar"
                tone="primary"
                busy={act.busy}
                ariaLabel={`Quero me afiliar a ${m.product.name}`}
                run={() =>
                  act.submit(async () => {
                    const r = await ok(api.POST('/api/affiliate/join/{programId}', { params: { path: { programId: m.programId } } }));
                    const s = r.data.status;
                    setJoined({ ...joined, [m.programId]: s === 'ACTIVE' ? `Pronto: seu código é ${r.data.code}.` : `Afiliação ${statusLabel('affiliate', s).toLowerCase()} (código ${r.data.code}).` });
                  })
                }
              />
            </div>
          </li>
        ))}
      </ul>
      <MoreButton list={list} />
    </div>
  );
}

function AffiliateStats() {
  const stats = useAsync(() => ok(api.GET('/api/affiliate/stats', {})), []);
  if (stats.loading) return <Loading />;
  if (stats.error) return <ErrorState error={stats.error} retry={stats.reload} />;
  const s = stats.data!.data;
  return (
    <section class="cards" aria-label="Seus números como afiliado">
      <div class="card stat">
        <h2>Links ativos</h2>
        <p class="stat-value">{integer(s.activeLinks)}</p>
        <span class="muted">de {integer(s.totalLinks)}</span>
      </div>
      <div class="card stat">
        <h2>Cliques</h2>
        <p class="stat-value">{integer(s.totalClicks)}</p>
        <span class="muted">{integer(s.totalConversions)} venda(s)</span>
      </div>
      <div class="card stat">
        <h2>Comissões</h2>
        <p class="stat-value">{brl(s.totalEarnedCents)}</p>
        <span class="muted">a liberar e liberadas</span>
      </div>
      <div class="card stat">
        <h2>A liberar</h2>
        <p class="stat-value">{brl(s.pendingCents)}</p>
        <span class="muted">depois da garantia</span>
      </div>
    </section>
  );
}

function MyLinks() {
  const list = useMore(async (page) => {
    const r = await ok(api.GET('/api/affiliate/links', { params: { query: { page: Number(page ?? 1), limit: 20 } } }));
    return { items: r.data, next: nextPage(r.meta) };
  }, []);
  return (
    <div>
      <AffiliateStats />
      <h2 class="section-title">Meus links</h2>
      {list.loading && <Loading />}
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {!list.loading && !list.error && list.items.length === 0 && (
        <Empty title="Você ainda não é afiliado de nenhum produto.">
          Escolha um produto na <Link to="/afiliados?aba=vitrine">Vitrine</Link> e afilie-se: seus links de divulgação aparecem aqui.
        </Empty>
      )}
      <ul class="list cards-list">
        {list.items.map((l) => (
          <li key={l.id} class="card">
            <div class="grow">
              <strong>{l.product.name}</strong> <StatusTag kind="affiliate" status={l.status} />
              <p class="muted">
                Código <span class="mono">{l.code}</span> · {integer(l.clicks)} clique(s) · {integer(l.conversions)} venda(s)
              </p>
              {l.status === 'PENDING' && <p class="muted">O dono do produto ainda vai aprovar sua afiliação; os links aparecem depois disso.</p>}
              {!l.programActive && <p class="muted">O dono do produto encerrou este programa: novas vendas não geram comissão.</p>}
              {l.status === 'ACTIVE' && l.programActive && l.urls.length === 0 && <p class="muted">O produto ainda não tem um link de pagamento ativo para divulgar.</p>}
              <ul class="list">
                {l.urls.map((u) => (
                  <li key={u.paymentLinkId}>
                    <a class="mono grow" href={u.url}>
                      {u.url}
                    </a>
                    <CopyButton text={u.url} label="Copiar link" />
                  </li>
                ))}
              </ul>
            </div>
            <div class="actions">
              <CopyButton text={l.code} label="Copiar código" />
            </div>
          </li>
        ))}
      </ul>
      <MoreButton list={list} />
    </div>
  );
}

const REASONS: Record<string, string> = {
  REFUNDED: 'venda estornada',
  REFUNDED_AFTER_RELEASE: 'venda estornada depois da liberação (valor devolvido)',
  SELF_PURCHASE: 'compra feita por você mesmo',
};

function Commissions() {
  const [status, setStatus] = useState('');
  const list = useMore(
    async (page) => {
      const r = await ok(api.GET('/api/affiliate/commissions', { params: { query: { page: Number(page ?? 1), limit: 20, ...(status ? { status: status as 'PAID' } : {}) } } }));
      return { items: r.data, next: nextPage(r.meta) };
    },
    [status],
  );
  return (
    <div>
      <div class="filters">
        <Select label="Situação" name="status" value={status} onValue={setStatus} options={statusOptions('commission', 'Todas')} />
      </div>
      {list.loading && <Loading />}
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {!list.loading && !list.error && list.items.length === 0 && (
        <Empty title={status ? 'Nenhuma comissão com essa situação.' : 'Nenhuma comissão ainda.'}>Cada venda feita pelos seus links gera uma comissão, liberada no seu saldo depois da garantia.</Empty>
      )}
      {list.items.length > 0 && (
        <div class="card table-wrap" tabIndex={0} role="region" aria-label="Comissões">
          <table class="table-stack">
            <thead>
              <tr>
                <th scope="col">Data</th>
                <th scope="col">Produto</th>
                <th scope="col" class="num">
                  Venda
                </th>
                <th scope="col" class="num">
                  Comissão
                </th>
                <th scope="col">Situação</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((c) => (
                <tr key={c.id}>
                  <td data-label="Data">{date(c.createdAt)}</td>
                  <td data-label="Produto">
                    <div>
                      {c.product.name}
                      <span class="sub mono">{c.code}</span>
                    </div>
                  </td>
                  <td data-label="Venda" class="num">
                    {brl(c.baseCents)}
                  </td>
                  <td data-label="Comissão" class="num">
                    <div>
                      <strong>{brl(c.amountCents)}</strong>
                      <span class="sub">{c.commissionType === 'PERCENTAGE' ? percentOfBp(c.commissionValue) : 'fixa'}</span>
                    </div>
                  </td>
                  <td data-label="Situação">
                    <div>
                      <StatusTag kind="commission" status={c.status} />
                      <span class="sub">{c.status === 'PENDING' ? `libera em ${date(c.releaseAt)}` : c.status === 'PAID' ? `em ${date(c.paidAt)}` : (REASONS[c.reason ?? ''] ?? c.reason)}</span>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton list={list} />
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Referrals (the account's, in production money whatever the environment)

export function Referrals() {
  const data = useAsync(() => Promise.all([ok(api.GET('/api/referral/code', {})), ok(api.GET('/api/referral/stats', {}))]), []);
  const rewards = useMore(async (page) => {
    const r = await ok(api.GET('/api/referral/rewards', { params: { query: { page: Number(page ?? 1), limit: 20 } } }));
    return { items: r.data, next: nextPage(r.meta) };
  }, []);
  if (data.loading || data.error)
    return (
      <div>
        <PageHeader title="Indicações" />
        {data.error ? <ErrorState error={data.error} retry={data.reload} /> : <Loading />}
      </div>
    );
  const [{ data: code }, stats] = data.data!;
  return (
    <div>
      <PageHeader title="Indicações" />
      <section class="card">
        <h2>Indique o Cofre e ganhe</h2>
        <p class="muted">Quem criar uma conta com o seu código rende a você uma parte da taxa do Cofre nas vendas reais dessa conta, e um bônus quando ela chegar a um volume de vendas. Indicações valem em dinheiro de produção, seja qual for o ambiente escolhido acima.</p>
        <dl class="facts">
          <dt>Seu código</dt>
          <dd>
            <strong class="mono">{code.code}</strong> <CopyButton text={code.code} label="Copiar código" />
          </dd>
          <dt>Seu link</dt>
          <dd>
            <span class="mono">{code.link}</span> <CopyButton text={code.link} label="Copiar link de convite" />
          </dd>
        </dl>
      </section>
      <section class="cards" aria-label="Suas indicações">
        <div class="card stat">
          <h2>Contas indicadas</h2>
          <p class="stat-value">{integer(stats.totalReferrals)}</p>
          <span class="muted">{integer(stats.completedReferrals)} já renderam o bônus</span>
        </div>
        <div class="card stat">
          <h2>Ganhos</h2>
          <p class="stat-value">{brl(stats.totalRewardAmountCents)}</p>
          <span class="muted">{integer(stats.totalRewards)} recompensa(s)</span>
        </div>
        <div class="card stat">
          <h2>Bônus</h2>
          <p class="stat-value">{brl(stats.totalFixedRewardAmountCents)}</p>
          <span class="muted">{integer(stats.totalFixedRewards)} bônus</span>
        </div>
        <div class="card stat">
          <h2>Comissões</h2>
          <p class="stat-value">{brl(stats.totalCommissionAmountCents)}</p>
          <span class="muted">{integer(stats.totalCommissions)} sobre vendas</span>
        </div>
      </section>
      <section class="card">
        <h2>Recompensas</h2>
        {rewards.loading && <Loading />}
        {rewards.error && <ErrorState error={rewards.error} retry={rewards.reload} />}
        {!rewards.loading && !rewards.error && rewards.items.length === 0 && <Empty title="Nenhuma recompensa ainda.">Envie seu link de convite: as recompensas aparecem quando as contas indicadas venderem.</Empty>}
        <ul class="list">
          {rewards.items.map((r) => (
            <li key={r.id}>
              <span class="grow">
                <strong>{r.kind === 'FIXED' ? 'Bônus' : 'Comissão'}</strong> de {r.referred.name} · {date(r.createdAt)}
                <span class="sub">{r.status === 'PENDING' ? `libera em ${date(r.releaseAt)}` : r.status === 'PAID' ? `liberada em ${date(r.paidAt)}` : (REASONS[r.reason ?? ''] ?? r.reason)}</span>
              </span>
              <strong class="nowrap">{brl(r.amountCents)}</strong> <StatusTag kind="commission" status={r.status} />
            </li>
          ))}
        </ul>
        <MoreButton list={rewards} />
      </section>
    </div>
  );
}

export default function Affiliates({ route }: { route: string }) {
  return (
    <TabbedScreen
      title="Afiliados"
      path="/afiliados"
      route={route}
      tabs={[
        ['programas', 'Programas', Programs, 'kyc'],
        ['vitrine', 'Vitrine', Marketplace],
        ['links', 'Links', MyLinks],
        ['comissoes', 'Comissões', Commissions],
      ]}
    />
  );
}
