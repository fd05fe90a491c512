// Divisões › Parceiros (/api/v1/split-partners): merchants who agreed to receive shares of my sales,
// and those whose sales may pay me. Invite by wallet id; accept or decline an invitation received;
// end a partnership (or withdraw an invitation) from either side.
import { api, ok } from '../../api/client.ts';
import type { Json } from '../../api/json.ts';
import { MoreButton } from '../../components/ListParts.tsx';
import { ApiAction, FormCard, useFields } from '../../components/Resource.tsx';
import { StatusTag } from '../../components/StatusTag.tsx';
import { Empty, ErrorState, Field, Loading } from '../../components/ui.tsx';
import { dateTime } from '../../lib/format.ts';
import { type More, nextPage, useMore } from '../../lib/more.ts';

type Partnership = Json<'listSplitPartners'>['data'][number];
type Side = 'sent' | 'received';

function usePartners(role: Side) {
  return useMore(async (page) => {
    const r = await ok(api.GET('/api/v1/split-partners', { params: { query: { role, page: Number(page ?? 1), limit: 20 } } }));
    return { items: r.data, next: nextPage(r.meta) };
  }, [role]);
}

function InviteForm({ done }: { done: () => void }) {
  const { values: f, set, reset } = useFields({ walletId: '', message: '' });
  return (
    <FormCard
      title="Convidar parceiro"
      label="Enviar convite"
      busyLabel="Enviando…"
      fields={['walletId', 'message']}
      submit={async () => {
        await ok(api.POST('/api/v1/split-partners', { body: { walletId: f.walletId.trim(), ...(f.message.trim() && { message: f.message.trim() }) } }));
        reset();
        done();
      }}
    >
      {(error) => (
        <>
          <p class="hint">Quem aceitar pode receber parte das suas vendas (a divisão de cada venda, link, checkout ou plano). Peça a ele o ID da carteira, que ele vê em Divisões de pagamento.</p>
          <Field label="ID da carteira do parceiro" name="walletId" value={f.walletId} onValue={set('walletId')} error={error} required autoComplete="off" spellcheck={false} placeholder="00000000-0000-0000-0000-000000000000" />
          <Field label="Mensagem (opcional)" name="message" value={f.message} onValue={set('message')} error={error} maxLength={500} hint="Vai no e-mail e no convite." />
        </>
      )}
    </FormCard>
  );
}

/** One partnership as `side` sees it: the other merchant, the state, and what can be done now. */
function Item({ p, side, reload }: { p: Partnership; side: Side; reload: () => void }) {
  const other = side === 'sent' ? p.partner : p.merchant;
  const path = { params: { path: { id: p.id } } };
  return (
    <li class="card">
      <div class="grow">
        <strong>{other.name}</strong> <StatusTag kind="partner" status={p.status} />
        <span class="sub mono">{other.walletId}</span>
        <span class="sub">
          {side === 'sent' ? 'Convidado' : 'Convidou você'} em {dateTime(p.createdAt)}
          {p.decidedAt ? ` · ${p.status === 'DECLINED' ? 'recusado' : 'respondido'} em ${dateTime(p.decidedAt)}` : ''}
        </span>
        {p.message && <p class="muted">“{p.message}”</p>}
      </div>
      <div class="actions">
        {side === 'received' && p.status === 'PENDING' && (
          <>
            <ApiAction label="Aceitar" tone="primary" ariaLabel={`Aceitar o convite de ${other.name}`} call={() => ok(api.POST('/api/v1/split-partners/{id}/accept', path))} done={reload} />
            <ApiAction label="Recusar" ariaLabel={`Recusar o convite de ${other.name}`} call={() => ok(api.POST('/api/v1/split-partners/{id}/decline', path))} done={reload} />
          </>
        )}
        {p.status === 'ACCEPTED' && (
          <ApiAction
            label="Encerrar parceria"
            tone="danger"
            ariaLabel={`Encerrar parceria com ${other.name}`}
            ask={`Encerrar a parceria com ${other.name}? ${side === 'sent' ? 'As próximas vendas não pagam mais a parte dele; divisões salvas com ele deixam de valer.' : 'As vendas dele não pagam mais a sua parte.'} O que já foi pago não muda.`}
            call={() => ok(api.DELETE('/api/v1/split-partners/{id}', path))}
            done={reload}
          />
        )}
        {side === 'sent' && p.status === 'PENDING' && <ApiAction label="Cancelar convite" ariaLabel={`Cancelar convite a ${other.name}`} ask={`Cancelar o convite a ${other.name}?`} call={() => ok(api.DELETE('/api/v1/split-partners/{id}', path))} done={reload} />}
      </div>
    </li>
  );
}

function PartnerList({ list, side, empty, hint }: { list: More<Partnership>; side: Side; empty: string; hint: string }) {
  if (list.loading && !list.items.length) return <Loading />;
  if (list.error) return <ErrorState error={list.error} retry={list.reload} />;
  if (!list.items.length) return <Empty title={empty}>{hint}</Empty>;
  return (
    <>
      <ul class="list cards-list">
        {list.items.map((p) => (
          <Item key={p.id} p={p} side={side} reload={list.reload} />
        ))}
      </ul>
      <MoreButton list={list} />
    </>
  );
}

export function Partners() {
  const received = usePartners('received');
  const sent = usePartners('sent');
  return (
    <div>
      <h2 class="section-title">Convites recebidos</h2>
      <PartnerList list={received} side="received" empty="Nenhum convite recebido." hint="Quando um lojista convidar você para receber parte das vendas dele, o convite aparece aqui para aceitar ou recusar." />
      <InviteForm done={sent.reload} />
      <h2 class="section-title">Seus parceiros</h2>
      <PartnerList list={sent} side="sent" empty="Nenhum parceiro ainda." hint="Convide acima quem vai receber parte das suas vendas: coprodutores, fornecedores, franquias." />
    </div>
  );
}
