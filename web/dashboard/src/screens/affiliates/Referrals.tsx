// Indicações: my invite code and link, totals and rewards (the account's, in production money
// whatever the environment).
import { api, ok } from '../../api/client.ts';
import { MoreButton } from '../../components/ListParts.tsx';
import { StatusTag } from '../../components/StatusTag.tsx';
import { CopyButton, Empty, ErrorState, Loading, PageHeader } from '../../components/ui.tsx';
import { useAsync } from '../../lib/async.ts';
import { brl, date, integer } from '../../lib/format.ts';
import { nextPage, useMore } from '../../lib/more.ts';
import { REASONS } from './common.ts';

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
