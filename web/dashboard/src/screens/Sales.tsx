// Vendas: the transactions list (filters in the address, so a filtered view can be shared or
// reloaded; cursor paging with "Carregar mais"), the CSV export of the filtered list, and a sale's
// page: its timeline, refund (full or partial) and, in development, the sandbox's outcomes.
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { centsOf, MoneyField } from '../components/MoneyField.tsx';
import type { paths } from '../api/schema.d.ts';
import { DeliveryLog } from '../components/Deliveries.tsx';
import { Link } from '../components/Link.tsx';
import { Badge, CopyButton, DateField, Empty, ErrorState, Field, FormError, Loading, PageHeader, Select } from '../components/ui.tsx';
import { useAsync, useSubmit } from '../lib/async.ts';
import { download } from '../lib/download.ts';
import { brl, date, dateTime, dayStartSP, documentText, failureText, integer, METHOD_LABELS, moneyInput, phoneText, STATUS_LABELS } from '../lib/format.ts';
import { navigate, queryOf } from '../lib/router.ts';
import { session } from '../lib/session.ts';
import { useCell } from '../lib/state.ts';

/** Sales that never took money: no fee, nothing net to show. */
const UNPAID = new Set(['FAILED', 'EXPIRED', 'CANCELLED']);

type Tx = paths['/api/v1/transactions/{id}']['get']['responses'][200]['content']['application/json']['transaction'];
type ListQuery = NonNullable<paths['/api/v1/transactions']['get']['parameters']['query']>;

/** A refund's state at the provider (GET /api/v1/transactions/{id}: refunds[]). */
const REFUND_LABELS: Record<NonNullable<Tx['refunds']>[number]['status'], string> = {
  PENDING: 'em processamento no provedor',
  SUCCEEDED: 'devolvido ao cliente',
  FAILED: 'não realizado pelo provedor: valor devolvido ao seu saldo',
};

const STATUSES = ['PENDING', 'AUTHORIZED', 'PAID', 'FAILED', 'EXPIRED', 'CANCELLED', 'REFUNDED', 'PARTIALLY_REFUNDED'] as const;

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
      {pages.items.length > 0 && (
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
              {pages.items.map((t) => (
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
          {pages.next && (
            <button type="button" class="btn btn-secondary btn-block" onClick={loadMore} disabled={more}>
              {more ? 'Carregando…' : 'Carregar mais'}
            </button>
          )}
        </div>
      )}
    </div>
  );
}

function timeline(t: Tx): [string, string][] {
  const steps: [string, string | null][] = [
    ['Criada', t.createdAt],
    ['Autorizada', t.authorizedAt],
    ['Capturada', t.capturedAt],
    ['Paga', t.paidAt],
    [t.status === 'EXPIRED' ? 'Expirada' : t.status === 'FAILED' ? 'Recusada' : 'Cancelada', t.cancelledAt],
    [t.status === 'REFUNDED' ? 'Estornada' : 'Estorno', t.refundedAt],
  ];
  const out = steps.filter((s): s is [string, string] => !!s[1]);
  if ((t.status === 'FAILED' || t.status === 'EXPIRED') && !t.cancelledAt) out.push([STATUS_LABELS[t.status], t.updatedAt]);
  return out.sort((a, b) => a[1].localeCompare(b[1]));
}

function Refund({ t, done }: { t: Tx; done: (t: Tx) => void }) {
  const left = t.chargedCents - t.refundedCents;
  const [amount, setAmount] = useState(moneyInput(left));
  const [open, setOpen] = useState(false);
  const { busy, error, submit } = useSubmit();
  if (!open)
    return (
      <button type="button" class="btn btn-secondary" onClick={() => setOpen(true)}>
        Estornar
      </button>
    );
  return (
    <form
      class="card refund"
      onSubmit={(e) => {
        e.preventDefault();
        submit(async () => {
          const cents = centsOf(amount, 'amountCents');
          const r = await ok(api.POST('/api/v1/transactions/{id}/refund', { params: { path: { id: t.id } }, body: cents === left ? {} : { amountCents: cents } }));
          setOpen(false);
          done(r.transaction);
        });
      }}
    >
      <h2>Estornar</h2>
      <FormError error={error} fields={['amountCents']} />
      <MoneyField label="Valor do estorno (R$)" name="amountCents" value={amount} onValue={setAmount} error={error} hint={`Até ${brl(left)}. Para estorno parcial, diminua o valor.`} />
      <div class="actions">
        <button type="submit" class="btn btn-danger" disabled={busy}>
          {busy ? 'Estornando…' : 'Confirmar estorno'}
        </button>
        <button type="button" class="btn btn-ghost" onClick={() => setOpen(false)}>
          Cancelar
        </button>
      </div>
    </form>
  );
}

function Simulate({ t, done }: { t: Tx; done: (t: Tx) => void }) {
  const { busy, error, submit } = useSubmit();
  const run = (outcome: 'PAID' | 'FAILED' | 'EXPIRED') =>
    submit(async () => {
      const r = await ok(api.POST('/api/v1/transactions/{id}/simulate', { params: { path: { id: t.id } }, body: { outcome } }));
      done(r.transaction);
    });
  return (
    <div class="card simulate">
      <h2>Simular no sandbox</h2>
      <p class="muted">Só no ambiente de desenvolvimento: faça de conta que o cliente pagou, que o pagamento falhou ou que expirou.</p>
      <FormError error={error} />
      <div class="actions">
        <button type="button" class="btn btn-primary" disabled={busy} onClick={() => run('PAID')}>
          Simular pagamento
        </button>
        <button type="button" class="btn btn-secondary" disabled={busy} onClick={() => run('FAILED')}>
          Simular falha
        </button>
        <button type="button" class="btn btn-secondary" disabled={busy} onClick={() => run('EXPIRED')}>
          Simular expiração
        </button>
      </div>
    </div>
  );
}

export function SaleDetail({ id }: { id: string }) {
  const env = useCell(session.env);
  const [tx, setTx] = useState<Tx | null>(null);
  const loaded = useAsync(async () => {
    const r = await ok(api.GET('/api/v1/transactions/{id}', { params: { path: { id } } }));
    setTx(r.transaction);
    return r.transaction;
  }, [id]);
  if (loaded.loading) return <Loading label="Carregando a venda…" />;
  if (loaded.error) return <ErrorState error={loaded.error} retry={loaded.reload} />;
  const t = tx!;
  const refundable = (t.status === 'PAID' || t.status === 'PARTIALLY_REFUNDED') && t.chargedCents > t.refundedCents;
  return (
    <div>
      <p>
        <Link to="/vendas">← Vendas</Link>
      </p>
      <PageHeader title={`Venda ${t.displayId}`}>
        <Badge status={t.status} />
      </PageHeader>
      <div class="grid-2">
        <section class="card">
          <h2>Resumo</h2>
          <dl class="facts">
            <dt>Produto</dt>
            <dd>{t.product}</dd>
            <dt>Valor cobrado</dt>
            <dd>{brl(t.chargedCents)}</dd>
            {t.discountCents > 0 && (
              <>
                <dt>Desconto</dt>
                <dd>{brl(t.discountCents)}</dd>
              </>
            )}
            {!UNPAID.has(t.status) && (
              <>
                <dt>Taxa</dt>
                <dd>{brl(t.feeCents)}</dd>
                <dt>Líquido</dt>
                <dd>{brl(t.netAmountCents)}</dd>
              </>
            )}
            {t.refundedCents > 0 && (
              <>
                <dt>Estornado</dt>
                <dd>
                  {brl(t.refundedCents)}
                  {t.refunds && (
                    <ul class="refunds" aria-label="Estornos">
                      {t.refunds.map((r) => (
                        <li key={r.id}>
                          {brl(r.amountCents)} · {REFUND_LABELS[r.status]} · {dateTime(r.createdAt)}
                        </li>
                      ))}
                    </ul>
                  )}
                </dd>
              </>
            )}
            <dt>Forma</dt>
            <dd>
              {METHOD_LABELS[t.paymentMethod]}
              {t.card?.brand ? ` · ${t.card.brand} final ${t.card.last4}` : ''}
              {t.paymentMethod === 'CARD' && t.installments > 1 ? ` · ${t.installments}x` : ''}
            </dd>
            {t.boleto && (
              <>
                <dt>Vencimento</dt>
                <dd>{date(t.boleto.dueDate)}</dd>
              </>
            )}
            {t.failureReason && (
              <>
                <dt>Motivo</dt>
                <dd>{failureText(t.failureReason)}</dd>
              </>
            )}
            <dt>Identificador</dt>
            <dd class="mono">{t.id}</dd>
          </dl>
          {t.paymentUrl && t.status === 'PENDING' && (
            <p>
              Link de pagamento: <a href={t.paymentUrl}>{t.paymentUrl}</a> <CopyButton text={t.paymentUrl} />
            </p>
          )}
        </section>
        <section class="card">
          <h2>Cliente</h2>
          <dl class="facts">
            <dt>Nome</dt>
            <dd>{t.client.name}</dd>
            <dt>E-mail</dt>
            <dd>{t.client.email}</dd>
            <dt>Documento</dt>
            <dd>{documentText(t.client.document)}</dd>
            {t.client.phone && (
              <>
                <dt>Telefone</dt>
                <dd>{phoneText(t.client.phone)}</dd>
              </>
            )}
          </dl>
        </section>
      </div>
      <div class="grid-2">
        <section class="card">
          <h2>Linha do tempo</h2>
          <ol class="timeline">
            {timeline(t).map(([label, at]) => (
              <li key={label + at}>
                <strong>{label}</strong> <span class="muted">{dateTime(at)}</span>
              </li>
            ))}
          </ol>
        </section>
        <section class="card" aria-labelledby="sale-webhooks">
          <h2 id="sale-webhooks">Webhooks desta venda</h2>
          <DeliveryLog
            key={t.updatedAt}
            query={{ transactionId: t.id }}
            empty="Nenhum webhook enviado sobre esta venda."
            hint="Cadastre uma URL em Desenvolvedores › Webhooks (ou envie postbackUrl ao criar a venda) para receber cada mudança dela."
          />
        </section>
      </div>
      <div class="actions">
        {refundable && <Refund key={t.refundedCents} t={t} done={setTx} />}
      </div>
      {env === 'development' && t.status === 'PENDING' && <Simulate t={t} done={setTx} />}
    </div>
  );
}
