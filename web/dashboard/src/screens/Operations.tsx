// Operação (operators, role ADMIN): KYC submissions to review (data and documents, approve or reject
// with a reason), pending advances to approve or reject, production withdrawals (held ones approved,
// any settled by hand) under the automatic payouts' health, and each merchant's negotiated fees.
import { AuditLog } from '../components/AuditLog.tsx';
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import type { Json } from '../api/json.ts';
import type { paths } from '../api/schema.d.ts';
import { fieldError } from '../components/MoneyField.tsx';
import { ApiAction, AsyncList, FormCard, SearchForm, useFields } from '../components/Resource.tsx';
import { Action, Badge, ErrorState, Field, FormError, Loading } from '../components/ui.tsx';
import { TabbedScreen } from '../components/Tabs.tsx';
import { useAsync, useSubmit } from '../lib/async.ts';
import { download } from '../lib/download.ts';
import { FEE_FIELDS, feeInput, feeText, parseFee, type FeeField } from '../lib/fees.ts';
import { brl, date, dateTime, documentText } from '../lib/format.ts';
import { accountTypeText, destinationText, HOLD_OPERATOR_TEXT } from '../lib/payouts.ts';
import { PayoutHealth } from './operations/PayoutHealth.tsx';

type Submission = paths['/api/admin/kyc/{id}']['get']['responses'][200]['content']['application/json']['data'];

/** A decision with a reason: approve (reason optional) or reject (reason required by the API). */
function Decide({
  approve,
  reject,
  done,
  approveLabel = 'Aprovar',
  rejectLabel = 'Rejeitar',
  reasonLabel = 'Motivo (obrigatório para rejeitar)',
}: {
  approve: (reason: string) => Promise<unknown>;
  reject: (reason: string) => Promise<unknown>;
  done: () => void;
  approveLabel?: string;
  rejectLabel?: string;
  reasonLabel?: string;
}) {
  const [reason, setReason] = useState('');
  const { busy, error, submit } = useSubmit();
  return (
    <div class="decide">
      <FormError error={error} fields={['reason']} />
      <Field label={reasonLabel} name="reason" value={reason} onValue={setReason} error={error} />
      <div class="actions">
        <Action label={approveLabel} tone="primary" busy={busy} run={() => submit(async () => (await approve(reason), done()))} />
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
        <dd>{documentText(s.document)}</dd>
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
  return (
    <AsyncList list={list} items={(d) => d.data} empty="Nenhum cadastro aguardando análise.">
      {(s) => (
        <div class="grow">
          <button type="button" class="delivery-head" aria-expanded={open === s.id} onClick={() => setOpen(open === s.id ? null : s.id)}>
            <strong>{s.legalName}</strong> <Badge status={s.status} /> <span class="muted">enviado em {dateTime(s.createdAt)}</span>
          </button>
          {open === s.id && <KycReview s={s} done={() => (setOpen(null), list.reload())} />}
        </div>
      )}
    </AsyncList>
  );
}

function AdvanceQueue() {
  const list = useAsync(() => ok(api.GET('/api/admin/advances', { params: { query: { page: 1, limit: 50, status: 'PENDING' } } })), []);
  return (
    <AsyncList list={list} items={(d) => d.data} empty="Nenhuma antecipação aguardando aprovação.">
      {(a) => (
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
      )}
    </AsyncList>
  );
}

type AdminWithdrawal = Json<'adminListWithdrawals'>['data'][number];

/** Where it goes (the holder too, for a payment by hand), why it is held, the payout's attempts. */
function WithdrawalFacts({ w }: { w: AdminWithdrawal }) {
  const a = w.bankAccount;
  const sent = [
    w.approvedAt && `aprovado em ${dateTime(w.approvedAt)}`,
    w.provider && `enviado por ${w.provider}`,
    w.payoutAttempts > 0 && `${w.payoutAttempts} tentativa(s) de envio`,
    w.nextAttemptAt && `próxima em ${dateTime(w.nextAttemptAt)}`,
  ].filter(Boolean) as string[];
  const progress = sent.join(' · ');
  return (
    <div class="queue-facts">
      <p class="muted">
        {destinationText(w)} · pedido em {dateTime(w.createdAt)}
      </p>
      {a && (
        <p class="muted">
          Conta {accountTypeText(a.accountType)} de {a.holderName} · {documentText(a.holderDocument)}
        </p>
      )}
      {w.holdReason && <p class="hold">{HOLD_OPERATOR_TEXT[w.holdReason]}</p>}
      {progress && <p class="muted">{progress[0].toUpperCase() + progress.slice(1)}</p>}
      {w.lastError && (
        <p class="muted">
          Último erro do provedor: “{w.lastError}”
        </p>
      )}
    </div>
  );
}

/** Marks it paid (with the transfer's id) or failed (with the reason) by hand: open at once when no provider pays. */
function SettleByHand({ w, manual, done }: { w: AdminWithdrawal; manual: boolean; done: () => void }) {
  return (
    <details class="by-hand" open={manual}>
      <summary>Resolver à mão</summary>
      <Decide
        approveLabel="Marcar como pago"
        rejectLabel="Marcar como falho"
        reasonLabel="ID do PIX (se pago) ou motivo (obrigatório se falho)"
        approve={(externalId) => ok(api.POST('/api/admin/withdrawals/{id}/complete', { params: { path: { id: w.id } }, body: externalId ? { externalId } : {} }))}
        reject={(reason) => ok(api.POST('/api/admin/withdrawals/{id}/fail', { params: { path: { id: w.id } }, body: { reason } }))}
        done={done}
      />
    </details>
  );
}

/** Production withdrawals waiting: the held ones approved here; any of them settled by hand. */
function WithdrawalQueue() {
  const list = useAsync(() => ok(api.GET('/api/admin/withdrawals', { params: { query: { page: 1, limit: 50 } } })), []);
  const health = useAsync(() => ok(api.GET('/api/admin/payouts/health', {})), []);
  const reload = () => (list.reload(), health.reload());
  return (
    <div>
      <PayoutHealth health={health} />
      <h2 class="section-title">Saques de produção na fila</h2>
      <AsyncList list={list} items={(d) => d.data} empty="Nenhum saque de produção pendente.">
        {(w) => (
          <div class="grow">
            <strong>{brl(w.amountCents)}</strong> <Badge status={w.status} />
            <WithdrawalFacts w={w} />
            {w.holdReason && (
              <div class="actions">
                <ApiAction label="Aprovar saque" tone="primary" ask={`Aprovar o saque de ${brl(w.amountCents)}? Ele segue para o pagamento.`} call={() => ok(api.POST('/api/admin/withdrawals/{id}/approve', { params: { path: { id: w.id } }, body: {} }))} done={reload} />
              </div>
            )}
            <SettleByHand w={w} manual={health.data?.provider === null} done={reload} />
          </div>
        )}
      </AsyncList>
    </div>
  );
}

type MerchantFees = paths['/api/admin/merchants/{id}/fees']['get']['responses'][200]['content']['application/json'];

/** A merchant's negotiated fees: a field left blank follows the platform's fee. */
function FeeForm({ id, current, saved }: { id: string; current: MerchantFees; saved: () => void }) {
  const { values, set } = useFields(Object.fromEntries(FEE_FIELDS.map(([k, , unit]) => [k, current.overrides[k] != null ? feeInput(unit, current.overrides[k]!) : ''])) as Record<FeeField, string>);
  return (
    <FormCard embedded title="Taxas deste lojista" fields={FEE_FIELDS.map(([k]) => k)} label="Salvar taxas"
      submit={async () => {
        const body: Partial<Record<FeeField, number>> = {};
        for (const [k, , unit] of FEE_FIELDS) {
          const text = values[k].trim();
          if (!text) continue;
          const v = parseFee(unit, text);
          if (v == null) throw fieldError(k, unit === 'bp' ? 'Informe uma porcentagem, como 0,99.' : 'Informe um valor em reais, como 3,49.');
          body[k] = v;
        }
        await ok(api.PUT('/api/admin/merchants/{id}/fees', { params: { path: { id } }, body }));
        saved();
      }}
    >
      {(error) => (
        <>
          <p class="muted">Em branco: a taxa da plataforma. Vale para vendas, saques e antecipações feitos a partir de agora.</p>
          <div class="fee-grid">
            {FEE_FIELDS.map(([k, label, unit]) => (
              <Field key={k} label={label} name={k} inputMode="decimal" value={values[k]} onValue={set(k)} error={error} hint={`Em vigor: ${feeText(unit, current.fees[k])}`} />
            ))}
          </div>
        </>
      )}
    </FormCard>
  );
}

function FeeEditor({ id, changed }: { id: string; changed: () => void }) {
  const current = useAsync(() => ok(api.GET('/api/admin/merchants/{id}/fees', { params: { path: { id } } })), [id]);
  const [note, setNote] = useState(false);
  if (current.loading) return <Loading />;
  if (current.error) return <ErrorState error={current.error} retry={current.reload} />;
  return (
    <div>
      {note && (
        <p class="notice" role="status">
          Taxas salvas.
        </p>
      )}
      <FeeForm key={JSON.stringify(current.data!.overrides)} id={id} current={current.data!} saved={() => (setNote(true), current.reload(), changed())} />
    </div>
  );
}

function MerchantFees() {
  const [query, setQuery] = useState('');
  const list = useAsync(() => ok(api.GET('/api/admin/merchants', { params: { query: { page: 1, limit: 20, ...(query ? { search: query } : {}) } } })), [query]);
  const [open, setOpen] = useState<string | null>(null);
  return (
    <div>
      <SearchForm label="Buscar lojista" placeholder="Nome, e-mail ou identificador" search={setQuery} />
      <AsyncList list={list} items={(d) => d.data} empty={query ? `Nenhum lojista encontrado para “${query}”.` : 'Nenhum lojista ainda.'}>
        {(m) => (
          <div class="grow">
            <button type="button" class="delivery-head" aria-expanded={open === m.id} onClick={() => setOpen(open === m.id ? null : m.id)}>
              <strong>{m.name}</strong> {m.customFees && <span class="badge badge-wait">Taxas negociadas</span>}
              <span class="muted">
                {m.email} · desde {date(m.createdAt)}
              </span>
            </button>
            {open === m.id && <FeeEditor id={m.id} changed={list.reload} />}
          </div>
        )}
      </AsyncList>
    </div>
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
        ['taxas', 'Taxas por lojista', MerchantFees],
        ['auditoria', 'Auditoria', () => <AuditLog admin />],
      ]}
    />
  );
}
