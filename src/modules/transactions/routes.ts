import { actorOf } from '../audit/service.ts';
import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../../http/app-type.ts';
import type { Db, Executor } from '../../db/index.ts';
import type { Transaction } from '../../db/types.ts';
import { answerWithin } from '../../http/idempotency.ts';
import type { Config } from '../../config.ts';
import type { Cursors } from '../../http/pagination.ts';
import type { TransactionDeps } from './types.ts';
import { emptyBodyIsObject, errors, IdempotencyHeader, IdParams } from '../../http/schemas.ts';
import { validation } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import { spDate } from '../../payments/calendar.ts';
import { getTransaction, listTransactions, refundsOf } from './queries.ts';
import { transactionsCsv } from './export.ts';
import { CaptureBody, ExportTransactionsQuery, ListTransactionsQuery, ProcessBody, RefundBody, SimulateBody, TransactionListResponse, TransactionResponse } from './schemas.ts';
import { cancelTransaction, captureTransaction, payPendingCard, refundTransaction, simulate } from './service.ts';
import { attemptsView, chargebackView, refundView, transactionView } from './view.ts';
import { latestChargeback } from './chargeback.ts';
import { disputeChargeback, simulateChargeback } from './chargeback-dispute.ts';
import { DISPUTE_LIMITS, DisputeBody } from './chargeback-schemas.ts';
import { attemptsOf } from './attempts.ts';
import type { ReadRouter } from '../../db/read-router.ts';


/** The options of transactionRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface TransactionRouteDeps {
  db: Db;
  reads: ReadRouter;
  config: Config;
  cursors: Cursors;
  transactions: TransactionDeps;
}

export default async function transactionRoutes(app: HttpApp, deps: TransactionRouteDeps) {
  const { db, reads, config, cursors, transactions } = deps;
  const tags = ['Transactions'];
  const view = (tx: Parameters<typeof transactionView>[0]) => transactionView(tx, config);
  /**
   * One transaction's view with its refunds once it has any (the single read and the refund's
   * answer): a transaction never refunded reads exactly as its creation answered. Only a paid one
   * can have any (a refund the provider did not make stays listed, FAILED, after it was undone).
   */
  const withRefunds = async (tx: Parameters<typeof transactionView>[0], scope: Scope, from: Executor = db) => {
    const refunds = tx.paid_at ? await refundsOf(from, scope, tx.id) : [];
    // Likewise its latest chargeback, once a card payment has had one.
    const chargeback = tx.paid_at && tx.payment_method === 'CARD' ? await latestChargeback(from, scope, tx.id) : undefined;
    const shown = refunds.length ? { ...view(tx), refunds: refunds.map(refundView) } : view(tx);
    return chargeback ? { ...shown, chargeback: chargebackView(chargeback) } : shown;
  };

  app.get(
    '/api/v1/transactions',
    {
      config: { auth: { key: 'transactions:read' } },
      schema: {
        tags,
        operationId: 'listTransactions',
        summary: 'List transactions (cursor style, keyset pagination)',
        querystring: ListTransactionsQuery,
        response: { 200: TransactionListResponse, ...errors(400, 401, 403) },
      },
    },
    async (req) => {
      const { rows, pagination } = await listTransactions(await reads.for(req.auth), cursors, req.auth, req.query);
      return { message: 'OK', transactions: rows.map(view), pagination };
    },
  );

  app.get(
    '/api/v1/transactions/export',
    {
      config: { auth: { key: 'transactions:read', token: true } },
      schema: {
        tags,
        operationId: 'exportTransactions',
        summary: 'Export the transactions list as CSV (pt-BR spreadsheets), streamed',
        description:
          'The list\'s filters and order, every page: one row per transaction, any number of rows, streamed as it is read. `;`-separated, UTF-8 with a byte order mark, CRLF lines, a pt-BR header, amounts as 1234,56, dates as dd/mm/aaaa HH:MM (America/Sao_Paulo). A cell a spreadsheet would take for a formula (starting with = + - @) starts with an apostrophe.',
        querystring: ExportTransactionsQuery,
        response: {
          200: {
            description: 'The CSV file (Content-Disposition: attachment)',
            content: { 'text/csv': { schema: { type: 'string', description: 'CSV text' } } },
          },
          ...errors(400, 401, 403),
        },
      },
    },
    async (req, reply) => {
      const name = `cofre-transacoes-${req.auth.livemode ? 'producao' : 'desenvolvimento'}-${spDate(new Date())}.csv`;
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${name}"`)
        .header('Cache-Control', 'no-store')
        .send(transactionsCsv(await reads.for(req.auth), cursors, req.auth, req.query));
    },
  );

  app.get(
    '/api/v1/transactions/:id',
    {
      config: { auth: { key: 'transactions:read' } },
      schema: { tags, operationId: 'getTransaction', summary: 'Get a transaction', params: IdParams, response: { 200: TransactionResponse, ...errors(401, 403, 404) } },
    },
    async (req) => {
      const tx = await getTransaction(db, req.auth, req.params.id);
      const attempts = tx.livemode && tx.payment_method === 'CARD' ? attemptsView(await attemptsOf(db, tx.id)) : null;
      const shown = await withRefunds(tx, req.auth);
      return { message: 'OK', transaction: attempts ? { ...shown, attempts } : shown };
    },
  );

  app.post(
    '/api/v1/transactions/:id/refund',
    {
      config: { auth: { key: 'transactions:write' } },
      schema: {
        tags,
        operationId: 'refundTransaction',
        summary: 'Refund a paid transaction, fully or in part',
        description: 'Full refund -> REFUNDED; partial -> PARTIALLY_REFUNDED. Never more than was paid in total. The fee of the refunded part is returned (in proportion): the merchant gives back the refunded amount less that fee, from unsettled instalments first, then the available balance (400 INSUFFICIENT_BALANCE if it cannot). A refund the provider refuses at once is undone before the answer, which shows the transaction as it is with the refund FAILED in refunds.',
        params: IdParams,
        headers: IdempotencyHeader,
        body: Type.Optional(RefundBody),
        response: { 200: TransactionResponse, ...errors(400, 401, 403, 404, 409) },
      },
      // The body is optional: a POST without one means "refund everything left", like `{}`.
      preValidation: emptyBodyIsObject,
    },
    async (req, reply) => {
      const body = async (tx: Transaction, from?: Executor) => ({ message: 'Refund concluded', transaction: await withRefunds(tx, req.auth, from) });
      // The answer commits with the refund: a retry after a crash replays it, never refunds again.
      const answer = answerWithin(req, reply, 200, body);
      return body(await refundTransaction(transactions, req.auth, req.params.id, req.body ?? {}, actorOf(req), answer));
    },
  );

  app.post(
    '/api/v1/transactions/:id/simulate',
    {
      config: { auth: { key: 'transactions:write' } },
      schema: {
        tags,
        operationId: 'simulateTransaction',
        summary: "Sandbox: simulate a payment's outcome, or the acquirer's chargeback steps (development keys only)",
        params: IdParams,
        headers: IdempotencyHeader,
        body: SimulateBody,
        response: { 200: TransactionResponse, ...errors(400, 401, 403, 404, 409) },
      },
    },
    async (req, reply) => {
      const { outcome, paidWith } = req.body;
      if (paidWith && outcome !== 'PAID') throw validation('paidWith', 'goes with outcome PAID');
      const body = async (tx: Transaction, from?: Executor) => ({ message: `Transaction ${outcome}`, transaction: await withRefunds(tx, req.auth, from) });
      const payment = outcome === 'PAID' || outcome === 'FAILED' || outcome === 'EXPIRED';
      const tx = payment ? await simulate(transactions, req.auth, req.params.id, outcome, paidWith, answerWithin(req, reply, 200, body)) : await simulateChargeback(transactions, req.auth, req.params.id, outcome);
      return body(tx);
    },
  );

  app.post(
    '/api/v1/transactions/:id/dispute',
    {
      config: { auth: { key: 'transactions:write' } },
      schema: {
        tags,
        operationId: 'disputeChargeback',
        summary: "Answer a card payment's open chargeback: accept it, or contest it with evidence",
        description: `The transaction's latest chargeback must be OPEN (400 INVALID_STATE_TRANSITION otherwise). The answer is sent to the acquirer through the payment's connector, then recorded: ACCEPT makes the chargeback LOST at once (final, transaction.chargeback_lost); CONTEST (text required, up to ${DISPUTE_LIMITS.files} PDF, PNG or JPEG files) makes it CONTESTED until the acquirer decides (transaction.chargeback_won: money back and PAID again; or transaction.chargeback_lost). Files are forwarded, never stored. 502 when the acquirer refuses the answer, 503 when it cannot be reached: nothing is recorded, send it again.`,
        params: IdParams,
        headers: IdempotencyHeader,
        body: DisputeBody,
        response: { 200: TransactionResponse, ...errors(400, 401, 403, 404, 409, 502, 503) },
      },
    },
    async (req) => {
      const tx = await disputeChargeback(transactions, req.auth, req.params.id, req.body, actorOf(req));
      return { message: req.body.action === 'ACCEPT' ? 'Chargeback accepted' : 'Chargeback contested', transaction: await withRefunds(tx, req.auth) };
    },
  );

  // Card lifecycle: authorise now (capture: false), capture later; void; pay a pending card server-to-server.
  app.post(
    '/api/v1/transactions/:id/capture',
    {
      config: { auth: { key: 'transactions:write' } },
      preValidation: emptyBodyIsObject,
      schema: {
        tags,
        operationId: 'captureTransaction',
        summary: 'Capture an authorised card payment, all or part',
        description:
          'AUTHORIZED -> PAID: the money is taken and credited like any card payment (receivables, fee on what was captured). amountCents below the authorised amount captures part and releases the rest. Emits transaction.captured and transaction.completed.',
        params: IdParams,
        headers: IdempotencyHeader,
        body: Type.Optional(CaptureBody),
        response: { 200: TransactionResponse, ...errors(400, 401, 403, 404, 409, 503) },
      },
    },
    async (req) => ({ message: 'Transaction captured', transaction: view(await captureTransaction(transactions, req.auth, req.params.id, req.body?.amountCents)) }),
  );

  app.post(
    '/api/v1/transactions/:id/cancel',
    {
      config: { auth: { key: 'transactions:write' } },
      schema: {
        tags,
        operationId: 'cancelTransaction',
        summary: 'Cancel an authorised card payment (void) or a pending payment',
        description:
          'AUTHORIZED -> CANCELLED (the hold on the card is released); PENDING -> CANCELLED (a PIX or boleto charge is withdrawn and can no longer be paid; a card payment not tried yet). Nothing was credited, nothing moves. A paid payment is refunded instead. Emits transaction.cancelled.',
        params: IdParams,
        headers: IdempotencyHeader,
        response: { 200: TransactionResponse, ...errors(400, 401, 403, 404, 409, 502, 503) },
      },
    },
    async (req) => ({ message: 'Transaction cancelled', transaction: view(await cancelTransaction(transactions, req.auth, req.params.id)) }),
  );

  app.post(
    '/api/v1/transactions/:id/process',
    {
      config: { auth: { key: 'transactions:write' } },
      schema: {
        tags,
        operationId: 'processTransaction',
        summary: 'Pay a pending card payment with card data (server to server)',
        description:
          'For a CARD transaction created without card data: charges the card now (PAID or FAILED), or authorises only with capture: false (AUTHORIZED). The card number and CVV are never stored.',
        params: IdParams,
        headers: IdempotencyHeader,
        body: ProcessBody,
        response: { 200: TransactionResponse, ...errors(400, 401, 403, 404, 409, 503) },
      },
    },
    async (req) => {
      const tx = await payPendingCard(transactions, req.params.id, req.body.card, undefined, { scope: req.auth, capture: req.body.capture });
      return { message: tx.status === 'FAILED' ? 'Payment declined' : tx.status === 'AUTHORIZED' ? 'Payment authorised' : 'Payment approved', transaction: view(tx) };
    },
  );
}
