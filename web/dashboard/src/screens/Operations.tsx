// Operação (operators, role ADMIN): KYC submissions to review (data and documents, approve or reject
// with a reason), pending advances to approve or reject, and production withdrawals to settle by hand.
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import type { paths } from '../api/schema.d.ts';
import { Action, Badge, Empty, ErrorState, Field, FormError, Loading, TabbedScreen } from '../components/ui.tsx';
import { useAsync, useSubmit } from '../lib/async.ts';
import { download } from '../lib/download.ts';
import { brl, date, dateTime } from '../lib/format.ts';

type Submission = paths['/api/admin/kyc/{id}']['get']['responses'][200]['content']['application/json']['data'];

/** A decision with a reason: approve (reason optional) or reject (reason required by the API). */
function Decide({ approve, reject, done, rejectLabel = 'Rejeitar' }: { approve: (reason: string) => Promise<unknown>; reject: (reason: string) => Promise<unknown>; done: () => void; rejectLabel?: string }) {
  const [reason, setReason] = useState('');
  const { busy, error, submit } = useSubmit();
  return (
    <div class="decide">
      <FormError error={error} fields={['reason']} />
      <Field label="Motivo (obrigatório para rejeitar)" name="reason" value={reason} onValue={setReason} error={error} />
      <div class="actions">
        <Action label="Aprovar" tone="primary" busy={busy} run={() => submit(async () => (await approve(reason), done()))} />
        <Action label={rejectLabel} tone="danger" busy={busy} run={() => submit(async () => (await reject(reason), done()))} />
      </div>
    </div>
  );
}

function KycReview({ s, done }: { s: Submission; done: () => void }) {
  const dl = useSubmit();
  const a = s.address;
  return (
    <div>
      <dl class="facts">
        <dt>Tipo</dt>
        <dd>{s.personType === 'PF' ? 'Pessoa física' : 'Empresa'}</dd>
        <dt>Documento</dt>
        <dd>{s.document}</dd>
        <dt>{s.personType === 'PF' ? 'Nascimento' : 'Fundação'}</dt>
        <dd>{date(s.birthDate ?? s.foundingDate)}</dd>
        <dt>Endereço</dt>
        <dd>
          {a.street}, {a.number}
          {a.complement ? ` ${a.complement}` : ''} — {a.district}, {a.city}/{a.state}, CEP {a.zipCode}
        </dd>
      </dl>
      <h3>Documentos</h3>
      <FormError error={dl.error} />
      <ul class="list">
        {s.documents.map((d) => (
          <li key={d.id}>
            <span>
              {d.type} · {d.fileName}
            </span>
            <Action label="Baixar" busy={dl.busy} run={() => dl.submit(() => download(`/api/admin/kyc/${s.id}/documents/${d.id}`, {}, d.fileName, () => {}))} />
          </li>
        ))}
      </ul>
      <Decide
        approve={(reason) => ok(api.POST('/api/admin/kyc/{id}/approve', { params: { path: { id: s.id } }, body: reason ? { reason } : {} }))}
        reject={(reason) => ok(api.POST('/api/admin/kyc/{id}/reject', { params: { path: { id: s.id } }, body: { reason } }))}
        done={done}
      />
    </div>
  );
}

function KycQueue() {
  const list = useAsync(() => ok(api.GET('/api/admin/kyc', { params: { query: { page: 1, limit: 50, status: 'SUBMITTED' } } })), []);
  const [open, setOpen] = useState<string | null>(null);
  if (list.loading) return <Loading />;
  if (list.error) return <ErrorState error={list.error} retry={list.reload} />;
  if (!list.data!.data.length) return <Empty title="Nenhum cadastro aguardando análise." />;
  return (
    <ul class="list cards-list">
      {list.data!.data.map((s) => (
        <li key={s.id} class="card">
          <div class="grow">
            <button type="button" class="delivery-head" aria-expanded={open === s.id} onClick={() => setOpen(open === s.id ? null : s.id)}>
              <strong>{s.legalName}</strong> <Badge status={s.status} /> <span class="muted">enviado em {dateTime(s.createdAt)}</span>
            </button>
            {open === s.id && <KycReview s={s} done={() => (setOpen(null), list.reload())} />}
          </div>
        </li>
      ))}
    </ul>
  );
}

function AdvanceQueue() {
  const list = useAsync(() => ok(api.GET('/api/admin/advances', { params: { query: { page: 1, limit: 50, status: 'PENDING' } } })), []);
  if (list.loading) return <Loading />;
  if (list.error) return <ErrorState error={list.error} retry={list.reload} />;
  if (!list.data!.data.length) return <Empty title="Nenhuma antecipação aguardando aprovação." />;
  return (
    <ul class="list cards-list">
      {list.data!.data.map((a) => (
        <li key={a.id} class="card">
          <div class="grow">
            <strong>{brl(a.amountCents)}</strong> <Badge status={a.status} /> {!a.livemode && <span class="badge badge-sandbox">sandbox</span>}
            <p class="muted">
              taxa {brl(a.feeCents)} · líquido {brl(a.netAmountCents)} · {a.reason} · {dateTime(a.createdAt)}
            </p>
            <Decide
              approve={(reason) => ok(api.POST('/api/admin/advances/{id}/approve', { params: { path: { id: a.id } }, body: reason ? { reason } : {} }))}
              reject={(reason) => ok(api.POST('/api/admin/advances/{id}/reject', { params: { path: { id: a.id } }, body: { reason } }))}
              done={list.reload}
            />
          </div>
        </li>
      ))}
    </ul>
  );
}

function WithdrawalQueue() {
  const list = useAsync(() => ok(api.GET('/api/admin/withdrawals', { params: { query: { page: 1, limit: 50 } } })), []);
  if (list.loading) return <Loading />;
  if (list.error) return <ErrorState error={list.error} retry={list.reload} />;
  if (!list.data!.data.length) return <Empty title="Nenhum saque de produção pendente." />;
  return (
    <ul class="list cards-list">
      {list.data!.data.map((w) => (
        <li key={w.id} class="card">
          <div class="grow">
            <strong>{brl(w.amountCents)}</strong> <Badge status={w.status} />
            <p class="muted">
              {w.pixKeyType.toUpperCase()} {w.pixKey} · {dateTime(w.createdAt)} · {w.provider ?? 'manual'}
            </p>
            <Decide
              rejectLabel="Marcar como falho"
              approve={(externalId) => ok(api.POST('/api/admin/withdrawals/{id}/complete', { params: { path: { id: w.id } }, body: externalId ? { externalId } : {} }))}
              reject={(reason) => ok(api.POST('/api/admin/withdrawals/{id}/fail', { params: { path: { id: w.id } }, body: { reason } }))}
              done={list.reload}
            />
          </div>
        </li>
      ))}
    </ul>
  );
}

export function Operations({ route }: { route: string }) {
  return (
    <TabbedScreen
      title="Operação"
      path="/operacao"
      route={route}
      tabs={[
        ['kyc', 'KYC', KycQueue],
        ['antecipacoes', 'Antecipações', AdvanceQueue],
        ['saques', 'Saques', WithdrawalQueue],
      ]}
    />
  );
}
