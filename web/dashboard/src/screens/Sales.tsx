// Vendas: the transactions list (filters in the address, so a filtered view can be shared or
// reloaded; cursor paging with "Carregar mais") and the CSV export of the filtered list. A sale's
// page is SaleDetail.tsx.
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import type { paths } from '../api/schema.d.ts';
import { Link } from '../components/Link.tsx';
import { Badge, DateField, Empty, ErrorState, Field, Loading, PageHeader, Select } from '../components/ui.tsx';
import { useAsync, useSubmit } from '../lib/async.ts';
import { download } from '../lib/download.ts';
import { brl, dateTime, dayStartSP, integer, METHOD_LABELS, STATUS_LABELS } from '../lib/format.ts';
import { navigate, queryOf } from '../lib/router.ts';

export type Tx = paths['/api/v1/transactions/{id}']['get']['responses'][200]['content']['application/json']['transaction'];
type ListQuery = NonNullable<paths['/api/v1/transactions']['get']['parameters']['query']>;

const STATUSES = ['PENDING', 'AUTHORIZED', 'PAID', 'FAILED', 'EXPIRED', 'CANCELLED', 'REFUNDED', 'PARTIALLY_REFUNDED', 'CHARGEBACK'] as const;

/** The list's filters as the address carries them (pt-BR names), and as the API takes them. */
interface Filters {
  status: string;
  metodo: string;
  de: string;
  ate: string;
  cliente: string;
  clienteNome: string;
}

function filtersOf(route: string): Filters {
  const q = queryOf(route);
  return { status: q.get('status') ?? '', metodo: q.get('metodo') ?? '', de: q.get('de') ?? '', ate: q.get('ate') ?? '', cliente: q.get('cliente') ?? '', clienteNome: q.get('clienteNome') ?? '' };
}

function apiFilters(f: Filters): Record<string, string> {
  const out: Record<string, string> = {};
  if (f.status) out.status = f.status;
  if (f.metodo) out.paymentMethod = f.metodo;
  if (f.cliente) out.clientId = f.cliente;
  if (f.de) out.createdFrom = dayStartSP(f.de);
  if (f.ate) out.createdTo = new Date(new Date(dayStartSP(f.ate)).getTime() + 86_400_000 - 1).toISOString();
  return out;
}

function toRoute(f: Filters): string {
  const q = new URLSearchParams(Object.entries(f).filter(([, v]) => v));
  const s = q.toString();
  return s ? `/vendas?${s}` : '/vendas';
}

function ClientSearch({ filters }: { filters: Filters }) {
  const [text, setText] = useState(filters.clienteNome);
  const [found, setFound] = useState<{ id: string; name: string; email: string }[] | null>(null);
  const { busy, error, submit } = useSubmit();
  return (
    <div class="client-search">
      <form
        class="inline-form"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          if (!text.trim()) return navigate(toRoute({ ...filters, cliente: '', clienteNome: '' }));
          submit(async () => {
            const r = await ok(api.GET('/api/v1/clients', { params: { query: { page: 1, limit: 10, search: text.trim() } } }));
            if (r.clients.length === 1) {
              setFound(null);
              navigate(toRoute({ ...filters, cliente: r.clients[0].id, clienteNome: r.clients[0].name }));
            } else setFound(r.clients);
          });
        }}
      >
        <Field label="Cliente" name="search" value={text} onValue={setText} placeholder="Nome, e-mail ou CPF/CNPJ" error={error} />
        <button class="btn btn-secondary" type="submit" disabled={busy}>
          Buscar
        </button>
      </form>
      {found && found.length === 0 && <p class="muted">Nenhum cliente encontrado para “{text}”.</p>}
      {found && found.length > 1 && (
        <ul class="list" aria-label="Clientes encontrados">
          {found.map((c) => (
            <li key={c.id}>
              <button type="button" class="btn btn-ghost" onClick={() => (setFound(null), navigate(toRoute({ ...filters, cliente: c.id, clienteNome: c.name })))}>
                {c.name} · {c.email}
              </button>
            </li>
          ))}
        </ul>
      )}
      {filters.cliente && (
        <p class="muted">
          Mostrando as vendas de <strong>{filters.clienteNome || 'um cliente'}</strong>.{' '}
          <button type="button" class="linklike" onClick={() => (setText(''), navigate(toRoute({ ...filters, cliente: '', clienteNome: '' })))}>
            Limpar
          </button>
        </p>
      )}
    </div>
  );
}

function Export({ filters }: { filters: Filters }) {
  const [bytes, setBytes] = useState<number | null>(null);
  const { busy, error, submit } = useSubmit();
  const query = { format: 'csv', ...apiFilters(filters) };
  const url = `/api/v1/transactions/export?${new URLSearchParams(query)}`;
  return (
    <div class="export">
      <a
        class="btn btn-secondary"
        href={url}
        aria-disabled={busy}
        onClick={(e) => {
          e.preventDefault();
          if (busy) return;
          submit(async () => {
            setBytes(0);
            await download('/api/v1/transactions/export', query, 'vendas.csv', setBytes);
          });
        }}
      >
        {busy ? `Exportando… ${bytes ? `${integer(Math.round(bytes / 1024))} KB` : ''}` : 'Exportar CSV'}
      </a>
      {error && (
        <span class="field-message" role="alert">
          {error.message}
        </span>
      )}
    </div>
  );
}

export function Sales({ route }: { route: string }) {
  const filters = filtersOf(route);
  const [pages, setPages] = useState<{ items: Tx[]; next: string | null }>({ items: [], next: null });
  const [more, setMore] = useState(false);
  const base = { limit: 20, orderBy: 'createdAt', orderDirection: 'desc', ...apiFilters(filters) } as ListQuery;
  const first = useAsync(async () => {
    const r = await ok(api.GET('/api/v1/transactions', { params: { query: base } }));
    setPages({ items: r.transactions, next: r.pagination.nextCursor });
    return r;
  }, [route]);
  async function loadMore() {
    setMore(true);
    try {
      const r = await ok(api.GET('/api/v1/transactions', { params: { query: { ...base, cursor: pages.next! } } }));
      setPages({ items: [...pages.items, ...r.transactions], next: r.pagination.nextCursor });
    } finally {
      setMore(false);
    }
  }
  const set = (k: keyof Filters) => (v: string) => navigate(toRoute({ ...filters, [k]: v }));
  const filtered = Object.values(filters).some(Boolean);
  return (
    <div>
      <PageHeader title="Vendas">
        <Export filters={filters} />
      </PageHeader>
      <div class="filters card">
        <Select label="Situação" name="status" value={filters.status} onValue={set('status')} options={[['', 'Todas'], ...STATUSES.map((s) => [s, STATUS_LABELS[s]] as [string, string])]} />
        <Select label="Forma de pagamento" name="metodo" value={filters.metodo} onValue={set('metodo')} options={[['', 'Todas'], ['PIX', 'PIX'], ['CARD', 'Cartão'], ['BOLETO', 'Boleto']]} />
        <DateField label="De" name="de" value={filters.de} onValue={set('de')} />
        <DateField label="Até" name="ate" value={filters.ate} onValue={set('ate')} />
        <ClientSearch filters={filters} />
      </div>
      {first.loading && <Loading label="Carregando vendas…" />}
      {first.error && <ErrorState error={first.error} retry={first.reload} />}
      {first.data && pages.items.length === 0 && (
        <Empty title={filtered ? 'Nenhuma venda com esses filtros.' : 'Você ainda não tem vendas neste ambiente.'}>
          {filtered ? (
            <Link to="/vendas">Limpar filtros</Link>
          ) : (
            <p>
              Crie um <Link to="/catalogo?aba=links">link de pagamento</Link> ou uma <Link to="/desenvolvedores">chave de API</Link> para vender pela sua loja.
            </p>
          )}
        </Empty>
      )}
      {pages.items.length > 0 && <SalesTable items={pages.items} next={pages.next} more={more} loadMore={loadMore} />}
    </div>
  );
}

/** A page (or more) of sales, with "Carregar mais" while the API has more. */
function SalesTable({ items, next, more, loadMore }: { items: Tx[]; next: string | null; more: boolean; loadMore: () => void }) {
  return (
    <div class="table-wrap card" tabIndex={0} role="region" aria-label="Lista de vendas">
      <table class="table-sales">
        <caption class="sr-only">Vendas</caption>
        <thead>
          <tr>
            <th scope="col">Venda</th>
            <th scope="col">Cliente</th>
            <th scope="col">Forma</th>
            <th scope="col" class="num">
              Valor
            </th>
            <th scope="col">Situação</th>
            <th scope="col">Data</th>
          </tr>
        </thead>
        <tbody>
          {items.map((t) => (
            <tr key={t.id}>
              <td data-label="Venda">
                <Link to={`/vendas/${t.id}`}>{t.displayId}</Link>
                <span class="sub">{t.product}</span>
              </td>
              <td data-label="Cliente">{t.client.name}</td>
              <td data-label="Forma">{METHOD_LABELS[t.paymentMethod]}</td>
              <td data-label="Valor" class="num">
                {brl(t.chargedCents)}
              </td>
              <td data-label="Situação">
                <Badge status={t.status} />
              </td>
              <td data-label="Data">{dateTime(t.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {next && (
        <button type="button" class="btn btn-secondary btn-block" onClick={loadMore} disabled={more}>
          {more ? 'Carregando…' : 'Carregar mais'}
        </button>
      )}
    </div>
  );
}
