// Dinheiro: the statement (money/Statement.tsx: ledger entries, a running total per balance),
// withdrawals by PIX to a key or an account (money/Withdrawals.tsx), advances of card receivables
// (quote, request, cancel) and the fees that apply.
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import type { Json } from '../api/json.ts';
import { centsOf, MoneyField } from '../components/MoneyField.tsx';
import { ApiAction, AsyncList } from '../components/Resource.tsx';
import { Badge, ErrorState, Field, FormError, Loading } from '../components/ui.tsx';
import { TabbedScreen } from '../components/Tabs.tsx';
import { type Async, useAsync, useSubmit } from '../lib/async.ts';
import { bp } from '../lib/fees.ts';
import { brl, date, dateTime } from '../lib/format.ts';
import { Statement } from './money/Statement.tsx';
import { Withdrawals } from './money/Withdrawals.tsx';

type Preview = { amountCents: number; feeCents: number; netAmountCents: number };

/** What can be advanced now and at what monthly rate (or that there is nothing to advance). */
function Advanceable({ quote }: { quote: Async<Json<'simulateAdvance'>> }) {
  return (
    <>
      {quote.loading && <Loading />}
      {quote.error?.code === 'INSUFFICIENT_BALANCE' && <p class="muted">Nenhum recebível de cartão para antecipar agora: vendas no cartão aparecem aqui enquanto não são liberadas.</p>}
      {quote.error && quote.error.code !== 'INSUFFICIENT_BALANCE' && <ErrorState error={quote.error} retry={quote.reload} />}
      {quote.data && (
        <p class="muted">
          Disponível para antecipar: <strong>{brl(quote.data.availableToAdvanceCents)}</strong> · taxa de {String(quote.data.monthlyFeePercentage).replace('.', ',')}% ao mês antecipado
        </p>
      )}
    </>
  );
}

/** The simulated advance: amount, fee and what the merchant receives. */
function AdvancePreview({ preview }: { preview: Preview }) {
  return (
    <dl class="facts" aria-live="polite">
      <dt>Valor</dt>
      <dd>{brl(preview.amountCents)}</dd>
      <dt>Taxa</dt>
      <dd>{brl(preview.feeCents)}</dd>
      <dt>Você recebe</dt>
      <dd>
        <strong>{brl(preview.netAmountCents)}</strong>
      </dd>
    </dl>
  );
}

function Advances() {
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('Capital de giro');
  const quote = useAsync(() => ok(api.GET('/api/advances/simulate', { params: { query: {} } })), []);
  const list = useAsync(() => ok(api.GET('/api/advances', { params: { query: { page: 1, limit: 50 } } })), []);
  const sim = useSubmit();
  const [preview, setPreview] = useState<Preview | null>(null);
  const req = useSubmit();
  return (
    <div>
      <div class="card">
        <h2>Antecipar recebíveis do cartão</h2>
        <Advanceable quote={quote} />
        <form
          onSubmit={(e) => {
            e.preventDefault();
            sim.submit(async () => {
              const r = await ok(api.GET('/api/advances/simulate', { params: { query: amount.trim() ? { amountCents: centsOf(amount, 'amountCents') } : {} } }));
              setPreview({ amountCents: r.amountCents, feeCents: r.feeCents, netAmountCents: r.netAmountCents });
            });
          }}
        >
          <FormError error={sim.error ?? req.error} fields={['amountCents', 'reason']} />
          <MoneyField label="Valor a antecipar (R$)" name="amountCents" value={amount} onValue={(v) => (setAmount(v), setPreview(null))} error={sim.error ?? req.error} hint="Em branco: tudo o que está disponível." />
          <Field label="Motivo" name="reason" value={reason} onValue={setReason} error={req.error} required />
          <div class="actions">
            <button type="submit" class="btn btn-secondary" disabled={sim.busy}>
              Simular
            </button>
            {preview && (
              <button
                type="button"
                class="btn btn-primary"
                disabled={req.busy}
                onClick={() =>
                  req.submit(async () => {
                    await ok(api.POST('/api/advances', { body: { amountCents: preview.amountCents, reason } }));
                    setPreview(null);
                    list.reload();
                    quote.reload();
                  })
                }
              >
                Solicitar antecipação de {brl(preview.amountCents)}
              </button>
            )}
          </div>
        </form>
        {preview && <AdvancePreview preview={preview} />}
      </div>
      <AsyncList list={list} items={(d) => d.advances} empty="Nenhuma antecipação ainda." hint="Vendas no cartão ficam a receber; antecipe-as acima quando precisar.">
        {(a) => (
          <>
            <div class="grow">
              <strong>{brl(a.amountCents)}</strong> <Badge status={a.status} />
              <p class="muted">
                taxa {brl(a.feeCents)} · líquido {brl(a.netAmountCents)} · {dateTime(a.createdAt)}
              </p>
              {a.decisionReason && <p class="muted">{a.decisionReason}</p>}
            </div>
            {a.status === 'PENDING' && <ApiAction label="Cancelar" tone="danger" ask="Cancelar esta antecipação?" call={() => ok(api.POST('/api/advances/{id}/cancel', { params: { path: { id: a.id } } }))} done={list.reload} />}
          </>
        )}
      </AsyncList>
    </div>
  );
}

function Fees() {
  const fees = useAsync(() => ok(api.GET('/api/v1/fees', {})), []);
  if (fees.loading) return <Loading />;
  if (fees.error) return <ErrorState error={fees.error} retry={fees.reload} />;
  const f = fees.data!.fees;
  return (
    <div class="card">
      <h2>Taxas que se aplicam à sua conta</h2>
      <dl class="facts">
        <dt>PIX</dt>
        <dd>{bp(f.pixPercentBp)} por venda</dd>
        <dt>Boleto</dt>
        <dd>{brl(f.boletoFixedCents)} por boleto pago</dd>
        <dt>Cartão</dt>
        <dd>
          {bp(f.cardPercentBp)} + {brl(f.cardFixedCents)} por venda
        </dd>
        <dt>Saque</dt>
        <dd>{brl(f.withdrawalCents)} por saque</dd>
        <dt>Antecipação</dt>
        <dd>{bp(f.advanceMonthlyBp)} ao mês antecipado</dd>
      </dl>
      <p class="muted">Vendas no cartão ficam disponíveis 30 dias após o pagamento de cada parcela; PIX e boleto, assim que pagos. Consultado em {date(new Date().toISOString())}.</p>
    </div>
  );
}

export function Money({ route }: { route: string }) {
  return (
    <TabbedScreen
      title="Dinheiro"
      path="/dinheiro"
      route={route}
      tabs={[
        ['extrato', 'Extrato', Statement],
        ['saques', 'Saques', Withdrawals, 'kyc'],
        ['antecipacoes', 'Antecipações', Advances, 'kyc'],
        ['taxas', 'Taxas', Fees],
      ]}
    />
  );
}
