// Shared by the chargeback test files: an app whose sandbox records what the core is told through
// the ConnectorCore port (as the Cielo connector will call it) and every dispute answer it forwards;
// paid card sales, chargeback reports, disputes, and the balance and events they leave.
// Runs on PGlite (default) and on PostgreSQL (TEST_DATABASE_URL).
import assert from 'node:assert/strict';
import type { Db } from '../src/db/index.ts';
import type { ChargebackReport, ConnectorCore, ConnectorEdges, DisputeRequest, ProviderResult } from '../src/payments/connector.ts';
import { SandboxConnector } from '../src/payments/sandbox/connector.ts';
import { appConfig, call, cpf, type Merchant, type TestContext } from './helpers.ts';
import { useApp, useMerchant } from './kit/app.ts';
import { assertLedgerBalanced } from './ledger-check.ts';

export const T = '/api/v1/transactions';
const YEAR = new Date().getUTCFullYear();
/** The card fee, computed here independently of src/payments/fees.ts (3.99% + 39 cents). */
export const cardFee = (c: number) => Math.min(c, Math.floor((c * 399 + 5000) / 10000) + 39);
/** The fee share a debit of `amount` returns after `refunded` (as a refund's). */
export const feeBack = (fee: number, charged: number, refunded: number, amount: number) => Math.floor((fee * (refunded + amount)) / charged) - Math.floor((fee * refunded) / charged);

/** The sandbox, recording the core it is attached to and the answers it forwards (files included). */
export class RecordingSandbox extends SandboxConnector {
  core: ConnectorCore | null = null;
  disputes: DisputeRequest[] = [];
  /** What the next dispute answer is (default: taken). */
  answer: () => Promise<ProviderResult> = async () => ({ ok: true });
  constructor(db: Db) {
    super(appConfig(), db, 0);
  }
  override edges(core: ConnectorCore): ConnectorEdges {
    this.core = core;
    return super.edges(core);
  }
  override async disputeChargeback(req: DisputeRequest): Promise<ProviderResult> {
    const answer = await this.answer();
    this.disputes.push(req);
    return answer.ok ? super.disputeChargeback(req) : answer;
  }
}

export let ctx: TestContext;
export let m: Merchant;
export let sandbox: RecordingSandbox;

/** Boots the app with the recording sandbox and a merchant (live bindings: ctx, m, sandbox); `env`: its configuration. */
export function useChargebacksApp(env: Record<string, string> = {}) {
  ctx = useApp({
    env,
    deps: {
      connectors: {
        sandbox: (db) => {
          sandbox = new RecordingSandbox(db);
          return sandbox;
        },
      },
    },
  });
  m = useMerchant(ctx);
}

export function card(number = '4242424242424242') {
  return { number, holderName: 'ANA SOUZA', expMonth: 12, expYear: YEAR + 3, cvv: '123' };
}

/** A paid card sale (approved at once by the sandbox). */
export async function paidCard(key: string, amountCents: number, installments = 1, over: Record<string, unknown> = {}) {
  const res = await call(ctx.app, 'POST', T, {
    key,
    body: { product: 'Curso de violão', amountCents, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'CARD', installments, card: card(), ...over },
  });
  assert.equal(res.status, 201, res.raw);
  assert.equal(res.body.transaction.status, 'PAID', res.raw);
  return res.body.transaction as { id: string; chargedCents: number; feeCents: number; netAmountCents: number };
}

/** A paid PIX (available at once). */
export async function paidPix(key: string, amountCents: number) {
  const res = await call(ctx.app, 'POST', T, { key, body: { product: 'Curso', amountCents, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'PIX' } });
  assert.equal(res.status, 201, res.raw);
  const paid = await simulate(key, res.body.transaction.id, 'PAID');
  assert.equal(paid.status, 200, paid.raw);
  return paid.body.transaction;
}

export const simulate = (key: string, id: string, outcome: string) => call(ctx.app, 'POST', `${T}/${id}/simulate`, { key, body: { outcome } });
export const dispute = (key: string, id: string, body: unknown) => call(ctx.app, 'POST', `${T}/${id}/dispute`, { key, body });
export const get = async (key: string, id: string) => {
  const res = await call(ctx.app, 'GET', `${T}/${id}`, { key });
  assert.equal(res.status, 200, res.raw);
  return res.body.transaction;
};

/** Opens a chargeback through the sandbox simulation; returns the transaction as answered. */
export async function openChargeback(key: string, id: string) {
  const res = await simulate(key, id, 'CHARGEBACK');
  assert.equal(res.status, 200, res.raw);
  assert.equal(res.body.transaction.status, 'CHARGEBACK', res.raw);
  return res.body.transaction;
}

/** A report as an acquirer's connector sends it, through the ConnectorCore port. */
export function report(r: ChargebackReport) {
  assert.ok(sandbox.core, 'the sandbox was attached to the core');
  return sandbox.core.applyChargeback(r);
}

/** The merchant's balance as GET /api/v1/balance shows it. */
export async function balance(key: string) {
  const res = await call(ctx.app, 'GET', '/api/v1/balance', { key });
  assert.equal(res.status, 200, res.raw);
  return { available: res.body.availableCents as number, receivable: res.body.receivableCents as number };
}

/** Event types about one transaction, in order (balance.updated left out). */
export async function eventTypes(userId: string, transactionId: string) {
  const rows = await ctx.database.db.selectFrom('events').select(['type', 'data']).where('user_id', '=', userId).orderBy('created_at').orderBy('id').execute();
  return rows.filter((r) => (r.data as { id?: string }).id === transactionId).map((r) => r.type);
}

export async function eventsOfType(userId: string, type: string) {
  const rows = await ctx.database.db.selectFrom('events').select(['type', 'data']).where('user_id', '=', userId).where('type', '=', type as never).orderBy('created_at').execute();
  return rows.map((r) => r.data as Record<string, any>);
}

export const ledgerBalanced = () => assertLedgerBalanced(ctx.database.db);

export const CONTEST = { action: 'CONTEST', text: 'Curso entregue em 10/11: acesso liberado e 12 aulas assistidas pelo cliente.' };
