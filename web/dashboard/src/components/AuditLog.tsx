// The audit log (GET /api/v1/audit-log; operators GET /api/admin/audit-log): who changed keys,
// webhooks, KYC, fees, withdrawals, advances, refunds and chargebacks, from where, with the object
// before and after. Filters, "Carregar mais" and the CSV download with the same filters.
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import type { paths } from '../api/schema.d.ts';
import { useSubmit } from '../lib/async.ts';
import { download } from '../lib/download.ts';
import { dateTime, dayStartSP } from '../lib/format.ts';
import { useMore } from '../lib/more.ts';
import { MoreButton } from './ListParts.tsx';
import { DateField, Empty, ErrorState, Field, FormError, Loading, Select } from './ui.tsx';

type Entry = paths['/api/v1/audit-log']['get']['responses'][200]['content']['application/json']['entries'][number];

/** What each action means, in pt-BR (the API names them in English). */
export const ACTIONS_PT: Record<string, string> = {
  'api_key.created': 'Chave de API criada',
  'api_key.revoked': 'Chave de API revogada',
  'webhook.created': 'Webhook criado',
  'webhook.updated': 'Webhook alterado',
  'webhook.deleted': 'Webhook excluído',
  'webhook.secret_rotated': 'Segredo do webhook trocado',
  'postback_secret.rotated': 'Segredo de postback trocado',
  'kyc.submitted': 'Verificação (KYC) enviada',
  'kyc.approved': 'Verificação (KYC) aprovada',
  'kyc.rejected': 'Verificação (KYC) recusada',
  'fees.updated': 'Taxas alteradas',
  'withdrawal.created': 'Saque pedido',
  'withdrawal.cancelled': 'Saque cancelado',
  'withdrawal.simulated': 'Saque simulado (sandbox)',
  'withdrawal.approved': 'Saque aprovado pela operação',
  'withdrawal.completed_by_operator': 'Saque concluído pela operação',
  'withdrawal.failed_by_operator': 'Saque recusado pela operação',
  'advance.created': 'Antecipação pedida',
  'advance.cancelled': 'Antecipação cancelada',
  'advance.approved': 'Antecipação aprovada',
  'advance.rejected': 'Antecipação recusada',
  'refund.created': 'Reembolso feito',
  'chargeback.accepted': 'Chargeback aceito',
  'chargeback.contested': 'Chargeback contestado',
  'password.changed': 'Senha alterada',
  'session.created': 'Entrada no painel',
  'account.created': 'Subconta criada',
  'account.updated': 'Subconta alterada',
  'split_partner.invited': 'Parceiro de divisão convidado',
  'split_partner.accepted': 'Convite de parceria aceito',
  'split_partner.declined': 'Convite de parceria recusado',
  'split_partner.revoked': 'Parceria encerrada',
};
const ACTORS_PT: Record<string, string> = { USER: 'Usuário do painel', API_KEY: 'Chave de API', OPERATOR: 'Operação Cofre', SYSTEM: 'Sistema' };

const DAY_MS = 86_400_000;

function Detail({ e, admin }: { e: Entry; admin: boolean }) {
  return (
    <div class="delivery-detail">
      <p class="muted">
        {ACTORS_PT[e.actor.type]}
        {e.actor.id ? ` · ${e.actor.id}` : ''} · IP {e.actor.ip ?? '—'}
      </p>
      {e.actor.userAgent && <p class="muted mono">{e.actor.userAgent}</p>}
      <p class="muted">
        {e.objectType}
        {e.objectId ? ` · ${e.objectId}` : ''}
        {admin && e.userId ? ` · conta ${e.userId}` : ''}
      </p>
      {([['Antes', e.before], ['Depois', e.after]] as const).map(
        ([title, value]) =>
          value && (
            <section key={title}>
              <h3>{title}</h3>
              <pre class="payload" tabIndex={0}>
                {JSON.stringify(value, null, 2)}
              </pre>
            </section>
          ),
      )}
    </div>
  );
}

export function AuditLog({ admin = false }: { admin?: boolean }) {
  const [action, setAction] = useState('');
  const [actorType, setActorType] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [userId, setUserId] = useState('');
  const [open, setOpen] = useState<string | null>(null);
  const { busy, error, submit } = useSubmit();
  const path = admin ? '/api/admin/audit-log' : '/api/v1/audit-log';
  const query: Record<string, string> = {};
  if (action) query.action = action;
  if (actorType) query.actorType = actorType;
  if (from) query.from = dayStartSP(from);
  if (to) query.to = new Date(new Date(dayStartSP(to)).getTime() + DAY_MS - 1).toISOString();
  if (admin && /^[0-9a-f-]{36}$/i.test(userId.trim())) query.userId = userId.trim();
  const list = useMore<Entry>(
    async (cursor) => {
      const q = { limit: 50, ...query, ...(cursor ? { cursor: String(cursor) } : {}) };
      const r = admin ? await ok(api.GET('/api/admin/audit-log', { params: { query: q as never } })) : await ok(api.GET('/api/v1/audit-log', { params: { query: q as never } }));
      return { items: r.entries, next: r.pagination.nextCursor };
    },
    [JSON.stringify(query)],
  );
  return (
    <div>
      <p class="muted">Quem alterou chaves, webhooks, verificação, taxas, saques, antecipações, reembolsos e chargebacks, de onde e o que mudou. As entradas não podem ser alteradas nem apagadas.</p>
      <div class="filters">
        <Select label="Ação" name="action" value={action} onValue={setAction} options={[['', 'Todas'], ...Object.entries(ACTIONS_PT)]} />
        <Select label="Quem" name="actorType" value={actorType} onValue={setActorType} options={[['', 'Todos'], ...Object.entries(ACTORS_PT)]} />
        <DateField label="De" name="from" value={from} onValue={setFrom} />
        <DateField label="Até" name="to" value={to} onValue={setTo} />
        {admin && <Field label="Conta (id)" name="userId" value={userId} onValue={setUserId} />}
      </div>
      <button type="button" class="btn btn-secondary" disabled={busy} onClick={() => submit(() => download(path, { ...query, format: 'csv' }, 'auditoria.csv', () => {}))}>
        {busy ? 'Baixando…' : 'Baixar CSV'}
      </button>
      <FormError error={error} />
      {list.loading && !list.items.length ? (
        <Loading />
      ) : list.error ? (
        <ErrorState error={list.error} retry={list.reload} />
      ) : !list.items.length ? (
        <Empty title="Nenhuma atividade encontrada">Mude os filtros ou o período.</Empty>
      ) : (
        <ul class="list cards-list">
          {list.items.map((e) => (
            <li key={e.id} class="card delivery">
              <button type="button" class="delivery-head" aria-expanded={open === e.id} onClick={() => setOpen(open === e.id ? null : e.id)}>
                <strong>{ACTIONS_PT[e.action] ?? e.action}</strong>
                <span class="muted">
                  {dateTime(e.occurredAt)} · {ACTORS_PT[e.actor.type]} · IP {e.actor.ip ?? '—'}
                </span>
              </button>
              {open === e.id && <Detail e={e} admin={admin} />}
            </li>
          ))}
        </ul>
      )}
      <MoreButton list={list as never} />
    </div>
  );
}
