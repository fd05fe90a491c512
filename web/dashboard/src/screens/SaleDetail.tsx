// A sale's page: what was sold and paid (a hosted checkout's lines, how it was split), the client, where it came from (its payment link and UTM
// parameters), its timeline (with a card charge's tries at the acquirers when there were several)
// and webhooks, refund (full or partial) and, in development, the sandbox's outcomes.
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client.ts';
import { centsOf, MoneyField } from '../components/MoneyField.tsx';
import { DeliveryLog } from '../components/Deliveries.tsx';
import { Link } from '../components/Link.tsx';
import { Badge, CopyButton, ErrorState, FormError, Loading, PageHeader } from '../components/ui.tsx';
import { useAsync, useSubmit } from '../lib/async.ts';
import { brl, date, dateTime, clientDocumentText, failureText, METHOD_LABELS, moneyInput, phoneText, STATUS_LABELS } from '../lib/format.ts';
import { session } from '../lib/session.ts';
import { useCell } from '../lib/state.ts';
import { SaleAttempts } from './SaleAttempts.tsx';
import { SaleChargeback } from './SaleChargeback.tsx';
import { SaleItems } from './SaleItems.tsx';
import { SaleOrigin } from './SaleOrigin.tsx';
import { SaleSplits } from './SaleSplits.tsx';
import type { Tx } from './Sales.tsx';

/** Sales that never took money: no fee, nothing net to show. */
const UNPAID = new Set(['FAILED', 'EXPIRED', 'CANCELLED']);

/** A chargeback's state (GET /api/v1/transactions/{id}: chargeback). */
const CHARGEBACK_LABELS: Record<NonNullable<Tx['chargeback']>['status'], string> = {
  OPEN: 'em aberto: conteste ou aceite abaixo',
  CONTESTED: 'contestado: aguardando a decisão da operadora',
  WON: 'revertido a seu favor: valor devolvido ao saldo',
  LOST: 'perdido: valor debitado do saldo',
};

/** A refund's state at the provider (GET /api/v1/transactions/{id}: refunds[]). */
const REFUND_LABELS: Record<NonNullable<Tx['refunds']>[number]['status'], string> = {
  PENDING: 'em processamento no provedor',
  SUCCEEDED: 'devolvido ao cliente',
  FAILED: 'não realizado pelo provedor: valor devolvido ao seu saldo',
};

function timeline(t: Tx): [string, string][] {
  const steps: [string, string | null][] = [
    ['Criada', t.createdAt],
    ['Autorizada', t.authorizedAt],
    ['Capturada', t.capturedAt],
    ['Paga', t.paidAt],
    [t.status === 'EXPIRED' ? 'Expirada' : t.status === 'FAILED' ? 'Recusada' : 'Cancelada', t.cancelledAt],
    [t.status === 'REFUNDED' ? 'Estornada' : 'Estorno', t.refundedAt],
    ['Chargeback aberto', t.chargeback?.openedAt ?? null],
    [t.chargeback?.status === 'WON' ? 'Chargeback revertido' : 'Chargeback perdido', t.chargeback?.closedAt ?? null],
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
        <div>
          <Summary t={t} />
          <SaleSplits id={t.id} version={t.updatedAt} />
          <SaleItems t={t} />
        </div>
        <div>
          <ClientFacts client={t.client} />
          <SaleOrigin t={t} />
        </div>
      </div>
      <div class="grid-2">
        <div>
          <Timeline t={t} />
          {t.attempts && <SaleAttempts attempts={t.attempts} />}
        </div>
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
      {t.paymentMethod === 'CARD' && <SaleChargeback t={t} dev={env === 'development'} done={setTx} />}
    </div>
  );
}

/** What was sold and paid: amounts, fee, refunds, method, and the payment link while it is pending. */
function Summary({ t }: { t: Tx }) {
  return (
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
        {t.chargeback && (
          <>
            <dt>Chargeback</dt>
            <dd>
              {brl(t.chargeback.amountCents)} · {CHARGEBACK_LABELS[t.chargeback.status]}
              {t.chargeback.status === 'OPEN' && t.chargeback.respondBy ? ` até ${dateTime(t.chargeback.respondBy)}` : ''}
              {t.chargeback.reason ? ` · ${t.chargeback.reason}` : ''}
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
  );
}

function ClientFacts({ client }: { client: Tx['client'] }) {
  return (
    <section class="card">
      <h2>Cliente</h2>
      <dl class="facts">
        <dt>Nome</dt>
        <dd>{client.name}</dd>
        <dt>E-mail</dt>
        <dd>{client.email}</dd>
        <dt>Documento</dt>
        <dd>{clientDocumentText(client.document)}</dd>
        {client.phone && (
          <>
            <dt>Telefone</dt>
            <dd>{phoneText(client.phone)}</dd>
          </>
        )}
      </dl>
    </section>
  );
}

function Timeline({ t }: { t: Tx }) {
  return (
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
  );
}
