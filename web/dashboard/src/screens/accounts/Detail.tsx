// A sub-account's page (/subcontas/{id}): its balance, data and access (the invitation sent again
// while it has no password), an edit of what can change, and its sales (read only, newest first).
import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.ts';
import type { Json } from '../../api/json.ts';
import { Link } from '../../components/Link.tsx';
import { MoreButton } from '../../components/ListParts.tsx';
import { ApiAction } from '../../components/Resource.tsx';
import { type Column, StackTable } from '../../components/StackTable.tsx';
import { Badge, CopyButton, Empty, ErrorState, Loading, PageHeader } from '../../components/ui.tsx';
import { useAsync } from '../../lib/async.ts';
import { brl, dateTime, documentText, METHOD_LABELS, phoneText } from '../../lib/format.ts';
import { useMore } from '../../lib/more.ts';
import { AccountForm } from './AccountForm.tsx';
import { type Account, loginText } from './common.ts';

function Balance({ a }: { a: Account }) {
  const cards: [string, number][] = [
    ['Disponível', a.balance.availableCents],
    ['A receber', a.balance.receivableCents],
    ['Reservado', a.balance.reservedCents],
  ];
  return (
    <section class="cards cards-3" aria-label="Saldo da subconta">
      {cards.map(([title, cents]) => (
        <div key={title} class="card stat">
          <h2>{title}</h2>
          <p class={cents < 0 ? 'stat-value neg' : 'stat-value'}>{brl(cents)}</p>
        </div>
      ))}
    </section>
  );
}

function Facts({ a, reload, edit }: { a: Account; reload: () => void; edit: () => void }) {
  const { street, number, complement, neighborhood, city, state, zipCode } = a.address;
  const [sent, setSent] = useState(false);
  return (
    <section class="card">
      <h2>Dados</h2>
      <dl class="facts">
        <dt>E-mail</dt>
        <dd>{a.email}</dd>
        <dt>CPF/CNPJ</dt>
        <dd>{documentText(a.document)}</dd>
        <dt>Celular</dt>
        <dd>{phoneText(a.phone)}</dd>
        <dt>Endereço</dt>
        <dd>
          {street}, {number}
          {complement ? ` (${complement})` : ''} · {neighborhood} · {city}/{state} · CEP {zipCode.replace(/^(\d{5})(\d{3})$/, '$1-$2')}
        </dd>
        <dt>Chave PIX</dt>
        <dd>{a.pixKey ?? '—'}</dd>
        <dt>Carteira</dt>
        <dd>
          <code>{a.walletId}</code> <CopyButton text={a.walletId} label="Copiar ID da carteira" />
        </dd>
        <dt>Painel</dt>
        <dd>{loginText(a)}</dd>
      </dl>
      <div class="actions">
        <button type="button" class="btn btn-secondary btn-small" onClick={edit}>
          Editar dados
        </button>
        {!a.loginEnabled && <ApiAction label="Reenviar convite" call={() => ok(api.POST('/api/v1/accounts/{id}/invitation', { params: { path: { id: a.id } } }))} done={() => (setSent(true), reload())} />}
        {sent && (
          <span class="muted" role="status">
            Convite reenviado para {a.email}.
          </span>
        )}
      </div>
    </section>
  );
}

type Sale = Json<'listAccountTransactions'>['transactions'][number];

const SALE_COLUMNS: Column<Sale>[] = [
  ['Data', (t) => <span class="nowrap">{dateTime(t.createdAt)}</span>],
  [
    'Venda',
    (t) => (
      <div>
        {t.product}
        <span class="sub">{t.displayId}</span>
      </div>
    ),
  ],
  ['Forma', (t) => METHOD_LABELS[t.paymentMethod]],
  ['Valor', (t) => brl(t.chargedCents), true],
  ['Situação', (t) => <Badge status={t.status} />],
];

function Sales({ id }: { id: string }) {
  const list = useMore(async (cursor) => {
    const r = await ok(api.GET('/api/v1/accounts/{id}/transactions', { params: { path: { id }, query: { limit: 20, ...(cursor ? { cursor: String(cursor) } : {}) } } }));
    return { items: r.transactions, next: r.pagination.nextCursor };
  }, [id]);
  if (list.loading && !list.items.length) return <Loading label="Carregando vendas…" />;
  if (list.error) return <ErrorState error={list.error} retry={list.reload} />;
  if (!list.items.length) return <Empty title="Nenhuma venda desta subconta ainda.">As vendas feitas com a chave de API dela ou pelos links dela aparecem aqui.</Empty>;
  return (
    <StackTable label="Vendas da subconta" columns={SALE_COLUMNS} rows={list.items} rowKey={(t) => t.id}>
      <MoreButton list={list} />
    </StackTable>
  );
}

export function AccountDetail({ id }: { id: string }) {
  const account = useAsync(async () => (await ok(api.GET('/api/v1/accounts/{id}', { params: { path: { id } } }))).account, [id]);
  const [editing, setEditing] = useState(false);
  if (account.loading && !account.data) return <Loading label="Carregando a subconta…" />;
  if (account.error) return <ErrorState error={account.error} retry={account.reload} />;
  const a = account.data!;
  return (
    <div>
      <p>
        <Link to="/subcontas">← Subcontas</Link>
      </p>
      <PageHeader title={a.name}>
        <span>
          KYC <Badge status={a.kycStatus} />
        </span>
      </PageHeader>
      <Balance a={a} />
      {editing ? (
        <section class="card">
          <AccountForm account={a} cancel={() => setEditing(false)} done={() => (setEditing(false), account.reload())} />
        </section>
      ) : (
        <Facts a={a} reload={account.reload} edit={() => setEditing(true)} />
      )}
      <h2 class="section-title">Vendas</h2>
      <Sales id={a.id} />
    </div>
  );
}
