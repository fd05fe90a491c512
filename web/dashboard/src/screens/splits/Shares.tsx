// Divisões › Recebidas and Enviadas: the shares of sales (GET /api/v1/splits?role=), a page at a time,
// filtered by situação and by the other side's wallet (?situacao=, ?carteira= in the address).
import type { JSX } from 'preact';
import { api, ok } from '../../api/client.ts';
import { Link } from '../../components/Link.tsx';
import { MoreButton } from '../../components/ListParts.tsx';
import { type Column, StackTable } from '../../components/StackTable.tsx';
import { statusOptions, StatusTag } from '../../components/StatusTag.tsx';
import { Empty, ErrorState, Loading, Select } from '../../components/ui.tsx';
import { brl, dateTime, METHOD_LABELS } from '../../lib/format.ts';
import { nextPage, useMore } from '../../lib/more.ts';
import { navigate, queryOf, route as routeCell } from '../../lib/router.ts';
import { useCell } from '../../lib/state.ts';
import { ACCOUNT_LABELS, ruleText, type Share } from './common.ts';

type Role = 'received' | 'sent';

const sale = (s: Share) => `${s.displayId} · ${METHOD_LABELS[s.paymentMethod] ?? s.paymentMethod}${s.paymentMethod === 'CARD' && s.installments > 1 ? ` ${s.installments}x` : ''}`;

const situation = (s: Share) => (
  <div>
    <StatusTag kind="share" status={s.status} />
    <span class="sub">{ACCOUNT_LABELS[s.account]}</span>
  </div>
);

const reversed = (s: Share) => (s.reversedCents ? <span class="neg nowrap">−{brl(s.reversedCents)}</span> : '—');

/** Received: another merchant's sale paid me; its number is the seller's, so it is not a link. */
const RECEIVED: Column<Share>[] = [
  ['Data', (s) => <span class="nowrap">{dateTime(s.createdAt)}</span>],
  ['Vendedor', (s) => s.seller.name],
  [
    'Produto',
    (s) => (
      <div>
        {s.product}
        <span class="sub">{sale(s)}</span>
      </div>
    ),
  ],
  [
    'Recebido',
    (s) => (
      <div>
        <strong>{brl(s.amountCents)}</strong>
        <span class="sub">venda de {brl(s.saleCents)}</span>
      </div>
    ),
    true,
  ],
  ['Estornado', reversed, true],
  ['Situação', situation],
];

/** Sent: a share of one of my sales, which opens on its sale's page. */
const SENT: Column<Share>[] = [
  ['Data', (s) => <span class="nowrap">{dateTime(s.createdAt)}</span>],
  [
    'Venda',
    (s) => (
      <div>
        <Link to={`/vendas/${s.transactionId}`}>{s.displayId}</Link>
        <span class="sub">
          {s.product} · <span class="nowrap">{brl(s.saleCents)}</span>
        </span>
      </div>
    ),
  ],
  [
    'Recebedor',
    (s) => (
      <div>
        {s.recipient.name}
        <span class="sub">{ruleText(s)}</span>
      </div>
    ),
  ],
  ['Valor', (s) => <strong>{brl(s.amountCents)}</strong>, true],
  ['Estornado', reversed, true],
  ['Situação', situation],
];

const TEXTS: Record<Role, { tab: string; caption: string; empty: string; hint: JSX.Element | string; other: (s: Share) => string }> = {
  received: {
    tab: 'recebidas',
    caption: 'Divisões recebidas',
    empty: 'Nenhuma divisão recebida ainda.',
    hint: 'Quando outro lojista dividir uma venda com a sua carteira, o que você recebeu aparece aqui, com o vendedor e a venda.',
    other: (s) => s.seller.name,
  },
  sent: {
    tab: 'enviadas',
    caption: 'Divisões enviadas',
    empty: 'Nenhuma venda sua foi dividida ainda.',
    hint: (
      <>
        Envie <code>split</code> ao criar uma venda pela API para repassar parte dela a subcontas e parceiros; cada repasse aparece aqui.
      </>
    ),
    other: (s) => s.recipient.name,
  },
};

export function Shares({ side: role }: { side: Role }) {
  const q = queryOf(useCell(routeCell));
  const status = (q.get('situacao') ?? '') as Share['status'] | '';
  const walletId = q.get('carteira') ?? '';
  const list = useMore(
    async (page) => {
      const query = { role, page: Number(page ?? 1), limit: 20, ...(status ? { status } : {}), ...(walletId ? { walletId } : {}) };
      const r = await ok(api.GET('/api/v1/splits', { params: { query } }));
      return { items: r.data, next: nextPage(r.meta) };
    },
    [role, status, walletId],
  );
  const filter = (k: string, v: string) => {
    const next = new URLSearchParams(q);
    if (v) next.set(k, v);
    else next.delete(k);
    next.set('aba', TEXTS[role].tab);
    navigate(`/divisoes?${next}`, { replace: true });
  };
  const filtered = !!(status || walletId);
  return (
    <div>
      <div class="filters" role="search" aria-label="Filtrar divisões">
        <Select label="Situação" name="status" value={status} onValue={(v) => filter('situacao', v)} options={statusOptions('share', 'Todas')} />
      </div>
      {walletId && (
        <p class="notice">
          Só as divisões {role === 'received' ? 'de' : 'para'} {list.items[0] ? TEXTS[role].other(list.items[0]) : <code>{walletId}</code>}.{' '}
          <button type="button" class="linklike" onClick={() => filter('carteira', '')}>
            Ver todas
          </button>
        </p>
      )}
      {list.loading && <Loading />}
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {!list.loading && !list.error && list.items.length === 0 && <Empty title={filtered ? 'Nenhuma divisão com esses filtros.' : TEXTS[role].empty}>{filtered ? 'Mude os filtros acima para ver outras divisões.' : TEXTS[role].hint}</Empty>}
      {list.items.length > 0 && <StackTable label={TEXTS[role].caption} columns={role === 'received' ? RECEIVED : SENT} rows={list.items} rowKey={(s) => s.id} />}
      <MoreButton list={list} />
    </div>
  );
}
