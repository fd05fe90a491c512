// Subcontas (docs/accounts.md): the accounts this merchant (a platform) made for its sellers — full
// merchants with their own wallet, KYC and balance, which the platform reads but never moves. Create
// one (its API key shown once), list them with their balance; a sub-account's page is
// accounts/Detail.tsx. Over /api/v1/accounts with the dashboard token.
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { Link } from '../components/Link.tsx';
import { MoreButton } from '../components/ListParts.tsx';
import { Badge, CopyButton, Empty, ErrorState, Loading, PageHeader } from '../components/ui.tsx';
import { useAsync } from '../lib/async.ts';
import { brl, documentText } from '../lib/format.ts';
import { nextPage, useMore } from '../lib/more.ts';
import { AccountForm } from './accounts/AccountForm.tsx';
import { type Account, loginText } from './accounts/common.ts';

export { AccountDetail } from './accounts/Detail.tsx';

function AccountItem({ a }: { a: Account }) {
  return (
    <li class="card">
      <div class="grow">
        <Link to={`/subcontas/${a.id}`}>
          <strong>{a.name}</strong>
        </Link>{' '}
        <span class="nowrap">
          <span class="muted">KYC</span> <Badge status={a.kycStatus} />
        </span>
        <span class="sub">
          {a.email} · {documentText(a.document)} · {loginText(a)}
        </span>
        <span class="sub">
          Disponível <strong>{brl(a.balance.availableCents)}</strong> · a receber {brl(a.balance.receivableCents)}
        </span>
        <span class="sub mono">Carteira {a.walletId}</span>
      </div>
      <div class="actions">
        <CopyButton text={a.walletId} label="Copiar ID da carteira" />
      </div>
    </li>
  );
}

/** A sub-account cannot make sub-accounts: it is told whose it is instead of a form the API would refuse. */
function usePlatform() {
  const me = useAsync(() => ok(api.GET('/api/auth/me', {})), []);
  return me.data?.user.platform ?? null;
}

export default function Accounts() {
  const platform = usePlatform();
  const list = useMore(async (page) => {
    const r = await ok(api.GET('/api/v1/accounts', { params: { query: { page: Number(page ?? 1), limit: 20 } } }));
    return { items: r.accounts, next: nextPage(r.pagination) };
  }, []);
  // The form is open while there is no account, then behind "Nova subconta"; once used it stays open
  // (the new account's key is shown in it) until cancelled.
  const [open, setOpen] = useState<boolean | null>(null);
  const none = !list.loading && !list.error && !list.items.length;
  const showForm = !platform && (open ?? none);
  return (
    <div>
      <PageHeader title="Subcontas">
        {!platform && !showForm && (
          <button type="button" class="btn btn-primary" onClick={() => setOpen(true)}>
            Nova subconta
          </button>
        )}
      </PageHeader>
      <p class="muted">
        Contas para os seus vendedores: cada uma tem carteira, cadastro (KYC), saldo e saques próprios. Você acompanha as vendas e o saldo delas e pode incluí-las na divisão das suas vendas; o dinheiro delas só elas movimentam.
      </p>
      {platform && <p class="notice">Esta conta é uma subconta de {platform.name}: subcontas não criam outras subcontas.</p>}
      {showForm && <AccountForm done={() => (setOpen(true), list.reload())} cancel={none ? undefined : () => setOpen(false)} />}
      <h2 class="section-title">Suas subcontas</h2>
      {list.loading && !list.items.length && <Loading />}
      {list.error && <ErrorState error={list.error} retry={list.reload} />}
      {none && <Empty title="Nenhuma subconta ainda.">Crie acima a conta de um vendedor: ele recebe por e-mail o convite para criar a senha.</Empty>}
      <ul class="list cards-list">
        {list.items.map((a) => (
          <AccountItem key={a.id} a={a} />
        ))}
      </ul>
      <MoreButton list={list} />
    </div>
  );
}
