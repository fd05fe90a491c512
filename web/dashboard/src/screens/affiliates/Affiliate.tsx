// Afiliados as an affiliate: the marketplace (search, join), my links to copy, my commissions, my totals.
import { useState } from 'preact/hooks';
import { api, ok } from '../../api/client.ts';
import { Link } from '../../components/Link.tsx';
import { MoreButton } from '../../components/ListParts.tsx';
import { SearchForm } from '../../components/Resource.tsx';
import { statusLabel, statusOptions, StatusTag } from '../../components/StatusTag.tsx';
import { Action, CopyButton, Empty, ErrorState, FormError, Loading, Select } from '../../components/ui.tsx';
import { useAsync, useSubmit } from '../../lib/async.ts';
import { brl, date, integer, percent } from '../../lib/format.ts';
import { nextPage, useMore } from '../../lib/more.ts';
import { percentOfBp, commissionText, REASONS } from './common.ts';

export function Marketplace() {
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

export function MyLinks() {
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

export function Commissions() {
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
