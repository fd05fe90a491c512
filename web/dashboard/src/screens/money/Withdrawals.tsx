// Dinheiro › Saques: a withdrawal by PIX to a key or to an account's data (bank, agência, conta,
// holder), the API's errors beside each field (an account's come as bankAccount.holderDocument...),
// and the withdrawals with where each went, why a production one waits for the team, why one failed
// (in the API's pt-BR words), its progress, and cancel while pending.
import { type ApiError, api, ok } from '../../api/client.ts';
import type { Json } from '../../api/json.ts';
import type { paths } from '../../api/schema.d.ts';
import { centsOf, MoneyField } from '../../components/MoneyField.tsx';
import { ApiAction, AsyncList, FormCard, useFields } from '../../components/Resource.tsx';
import { Badge, Field, Select } from '../../components/ui.tsx';
import { type Async, useAsync } from '../../lib/async.ts';
import { brl, dateTime } from '../../lib/format.ts';
import { ACCOUNT_TYPES, type AccountType, BANKS, destinationText, holdText, PIX_KEY_TYPES } from '../../lib/payouts.ts';

type Withdrawal = paths['/api/v1/withdraws']['get']['responses'][200]['content']['application/json']['data'][number];
type Values = ReturnType<typeof useWithdrawalFields>['values'];
type Setter = (k: keyof Values) => (v: string) => void;

const OTHER_BANK = 'outro';
const STEPS = ['PENDING', 'PROCESSING', 'COMPLETED'];
const FIELDS = ['amountCents', 'pixKeyType', 'pixKey', 'bankAccount', ...['ispb', 'branch', 'account', 'accountType', 'holderName', 'holderDocument'].map((f) => `bankAccount.${f}`)];

function useWithdrawalFields() {
  return useFields({ amount: '', to: 'key', pixKeyType: 'cpf', pixKey: '', bank: '', ispb: '', branch: '', account: '', accountType: 'checking', holderName: '', holderDocument: '' });
}

const digits = (t: string) => t.replace(/[\s.\-/]/g, '');

/** What POST /api/v1/withdraws gets: the amount and either the key or the account. */
function bodyOf(f: Values) {
  const amountCents = centsOf(f.amount, 'amountCents');
  if (f.to === 'key') return { amountCents, pixKeyType: f.pixKeyType as 'cpf', pixKey: f.pixKey };
  const bankAccount = {
    ispb: digits(f.bank === OTHER_BANK ? f.ispb : f.bank),
    branch: digits(f.branch),
    account: digits(f.account),
    accountType: f.accountType as AccountType,
    holderName: f.holderName,
    holderDocument: f.holderDocument.trim(),
  };
  return { amountCents, bankAccount };
}

function DestinationChoice({ value, onValue }: { value: string; onValue: (v: string) => void }) {
  return (
    <fieldset class="choice">
      <legend>Enviar para</legend>
      {[
        ['key', 'Chave PIX'],
        ['account', 'Conta bancária'],
      ].map(([v, label]) => (
        <label key={v} class="check">
          <input type="radio" name="to" value={v} checked={value === v} onChange={() => onValue(v)} /> {label}
        </label>
      ))}
    </fieldset>
  );
}

/** The account's data: a bank from the list (or its ISPB), agência, conta, type and holder. */
function BankFields({ f, set, error }: { f: Values; set: Setter; error: ApiError | null }) {
  const other = f.bank === OTHER_BANK;
  const banks: [string, string][] = [['', 'Escolha o banco'], ...BANKS, [OTHER_BANK, 'Outro banco (informar o ISPB)']];
  return (
    <>
      <p class="muted">Um PIX com os dados da conta: chega como um PIX por chave. A conta precisa ser do titular informado.</p>
      <Select label="Banco" name="bank" value={f.bank} onValue={set('bank')} options={banks} error={error} errorField={other ? 'bank' : 'bankAccount.ispb'} />
      {other && <Field label="ISPB do banco (8 dígitos)" name="bankAccount.ispb" value={f.ispb} onValue={set('ispb')} error={error} inputMode="numeric" maxLength={8} autoComplete="off" hint="O código do banco no PIX; o seu banco informa." required />}
      <div class="pair">
        <Field label="Agência" name="bankAccount.branch" value={f.branch} onValue={set('branch')} error={error} inputMode="numeric" autoComplete="off" hint="Sem o dígito." required />
        <Field label="Conta com dígito" name="bankAccount.account" value={f.account} onValue={set('account')} error={error} inputMode="numeric" autoComplete="off" hint="Como 12345-6." required />
      </div>
      <Select label="Tipo de conta" name="bankAccount.accountType" value={f.accountType} onValue={set('accountType')} options={ACCOUNT_TYPES} error={error} />
      <Field label="Nome do titular" name="bankAccount.holderName" value={f.holderName} onValue={set('holderName')} error={error} autoComplete="off" required />
      <Field label="CPF/CNPJ do titular" name="bankAccount.holderDocument" value={f.holderDocument} onValue={set('holderDocument')} error={error} inputMode="numeric" autoComplete="off" required />
    </>
  );
}

function WithdrawalForm({ balance, done }: { balance: Async<Json<'getBalance'>>; done: () => void }) {
  const fees = useAsync(() => ok(api.GET('/api/v1/fees', {})), []);
  const { values: f, set } = useWithdrawalFields();
  return (
    <FormCard
      title="Sacar por PIX"
      label="Solicitar saque"
      busyLabel="Solicitando…"
      fields={FIELDS}
      submit={async () => {
        await ok(api.POST('/api/v1/withdraws', { body: bodyOf(f) }));
        set('amount')('');
        done();
      }}
    >
      {(error) => (
        <>
          <p class="muted">
            Disponível: <strong class={(balance.data?.availableCents ?? 0) < 0 ? 'neg' : undefined}>{balance.data ? brl(balance.data.availableCents ?? 0) : '…'}</strong>
            {fees.data && ` · tarifa por saque: ${brl(fees.data.fees.withdrawalCents)}`}
          </p>
          <MoneyField label="Valor (R$)" name="amountCents" value={f.amount} onValue={set('amount')} error={error} required />
          <DestinationChoice value={f.to} onValue={set('to')} />
          {f.to === 'key' ? (
            <>
              <Select label="Tipo de chave PIX" name="pixKeyType" value={f.pixKeyType} onValue={set('pixKeyType')} options={PIX_KEY_TYPES} error={error} />
              <Field label="Chave PIX" name="pixKey" value={f.pixKey} onValue={set('pixKey')} error={error} autoComplete="off" required />
            </>
          ) : (
            <BankFields f={f} set={set} error={error} />
          )}
        </>
      )}
    </FormCard>
  );
}

function WithdrawalItem({ w, reload }: { w: Withdrawal; reload: () => void }) {
  const failure = w.status === 'FAILED' ? w.failureReason : null;
  return (
    <>
      <div class="grow">
        <strong>{brl(w.amountCents)}</strong> <Badge status={w.status} />
        <p class="muted">
          {destinationText(w)} · tarifa {brl(w.feeCents)} · {dateTime(w.createdAt)}
        </p>
        {w.holdReason && <p class="hold">{holdText(w, dateTime)}</p>}
        {failure && (
          <p class="field-message">
            {failure}
            {/[.!?]$/.test(failure) ? '' : '.'} O valor voltou para o seu saldo disponível.
          </p>
        )}
        {STEPS.includes(w.status) && (
          <ol class="progress" aria-label="Andamento do saque">
            {STEPS.map((s, i) => (
              <li key={s} class={i <= STEPS.indexOf(w.status) ? 'done' : ''}>
                {['Solicitado', 'Em processamento', 'Pago'][i]}
              </li>
            ))}
          </ol>
        )}
      </div>
      {w.status === 'PENDING' && <ApiAction label="Cancelar" tone="danger" ask={`Cancelar o saque de ${brl(w.amountCents)}? O valor volta para o disponível.`} call={() => ok(api.POST('/api/v1/withdraws/{id}/cancel', { params: { path: { id: w.id } } }))} done={reload} />}
    </>
  );
}

export function Withdrawals() {
  const balance = useAsync(() => ok(api.GET('/api/v1/balance', {})), []);
  const list = useAsync(() => ok(api.GET('/api/v1/withdraws', { params: { query: { page: 1, limit: 50 } } })), []);
  const reload = () => (list.reload(), balance.reload());
  return (
    <div>
      <WithdrawalForm balance={balance} done={reload} />
      <AsyncList list={list} items={(d) => d.data} empty="Nenhum saque ainda." hint="Quando tiver saldo disponível, saque acima para a sua chave PIX ou conta bancária.">
        {(w) => <WithdrawalItem w={w} reload={reload} />}
      </AsyncList>
    </div>
  );
}
