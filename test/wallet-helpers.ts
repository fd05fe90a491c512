// Shared by the wallet tests (withdrawals, advances, KYC, operators).
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import type { App } from '../src/deps.ts';
import { settleDue } from '../src/modules/transactions/service.ts';
import { followPayouts, processPayouts } from '../src/modules/withdrawals/payouts.ts';
import { buildRegistry } from '../src/payments/catalogue.ts';
import type { PayoutRequest, PayoutSent, PayoutState } from '../src/payments/connector.ts';
import type { ConnectorRegistry } from '../src/payments/registry.ts';
import { SandboxConnector } from '../src/payments/sandbox/connector.ts';
import { call, cpf, merchant, testConfig, type Res, type TestContext } from './helpers.ts';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const DAY = 86_400_000;
export const pixFee = (c: number) => Math.floor((c * 99 + 5000) / 10000);
export const cardFee = (c: number) => Math.min(c, Math.floor((c * 399 + 5000) / 10000) + 39);

/** Credentials for a request: an API key, or a dashboard token with its environment. */
export type Cred = { key: string } | { token: string; env?: 'development' | 'production' };

export function req(app: App, method: string, url: string, cred: Cred, body?: unknown, headers: Record<string, string> = {}): Promise<Res> {
  if ('key' in cred) return call(app, method, url, { key: cred.key, body, headers });
  return call(app, method, url, { token: cred.token, body, headers: { ...headers, ...(cred.env ? { 'x-environment': cred.env } : {}) } });
}

/** A 400 in the spec's body shape with this code, naming exactly these fields. */
export function assert400(res: Res, code: string, fields?: string[]) {
  assert.equal(res.status, 400, res.raw);
  assert.deepEqual(Object.keys(res.body).sort(), ['code', 'errors', 'message', 'path', 'timestamp'], res.raw);
  assert.equal(res.body.code, code, res.raw);
  if (fields) assert.deepEqual([...new Set(res.body.errors.map((e: { field: string }) => e.field))].sort(), [...fields].sort(), res.raw);
}

export function assertMessageOnly(res: Res, status: number) {
  assert.equal(res.status, status, res.raw);
  assert.deepEqual(Object.keys(res.body), ['message'], res.raw);
  assert.equal(typeof res.body.message, 'string');
}

function txBody(amountCents: number, extra: Record<string, unknown> = {}) {
  return { product: 'Curso online', amountCents, clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'PIX', ...extra };
}

/** A paid PIX of `amountCents`: the available balance grows by amountCents - pixFee(amountCents). */
export async function paidPix(app: App, cred: Cred, amountCents: number): Promise<string> {
  const res = await req(app, 'POST', '/api/v1/transactions', cred, txBody(amountCents));
  assert.equal(res.status, 201, res.raw);
  const id = res.body.transaction.id;
  const paid = await req(app, 'POST', `/api/v1/transactions/${id}/simulate`, cred, { outcome: 'PAID' });
  assert.equal(paid.status, 200, paid.raw);
  return id;
}

const YEAR = new Date().getUTCFullYear();
/** A paid card payment in `installments` (receivable until each instalment settles). */
export async function paidCard(app: App, cred: Cred, amountCents: number, installments: number): Promise<{ id: string; net: number }> {
  const card = { number: '4242424242424242', holderName: 'ANA SOUZA', expMonth: 12, expYear: YEAR + 3, cvv: '123' };
  const res = await req(app, 'POST', '/api/v1/transactions', cred, txBody(amountCents, { paymentMethod: 'CARD', installments, card }));
  assert.equal(res.status, 201, res.raw);
  assert.equal(res.body.transaction.status, 'PAID', res.raw);
  return { id: res.body.transaction.id, net: res.body.transaction.netAmountCents };
}

/** Settles every card instalment due within `days` (the settlement sweep, run with a future clock). */
export async function settleAll(ctx: TestContext, days = 400): Promise<void> {
  while ((await settleDue(ctx.app.deps.transactions, new Date(Date.now() + days * DAY), 100)) > 0);
}

/** Production money that is available at once: a paid 1x card payment whose instalment has settled. */
export async function liveFunds(ctx: TestContext, cred: Cred, amountCents: number): Promise<number> {
  const { net } = await paidCard(ctx.app, cred, amountCents, 1);
  await settleAll(ctx, 31);
  return net;
}

/** A merchant with approved KYC, its production key `lk` and about `funds` available in production. */
export async function liveMerchantWithFunds(ctx: TestContext, funds = 200_000) {
  const m = await merchant(ctx.app, { live: true });
  const lk = { key: m.liveKey! };
  await liveFunds(ctx, lk, funds);
  return { m, lk };
}

/**
 * The wallet balance under the names of GET /api/withdraws/balance. The body also carries the
 * origin's names (availableCents, pendingCents, totalCents: docs/compatibility.md); they are
 * checked against these on every call and left out of what is returned.
 */
export async function balance(app: App, cred: Cred) {
  const res = await req(app, 'GET', '/api/withdraws/balance', cred);
  assert.equal(res.status, 200, res.raw);
  const { availableCents, pendingCents, totalCents, ...named } = res.body;
  assert.deepEqual(
    { availableCents, pendingCents, totalCents },
    { availableCents: named.availableBalanceCents, pendingCents: named.pendingBalanceCents, totalCents: named.availableBalanceCents + named.pendingBalanceCents },
    res.raw,
  );
  return named as { availableBalanceCents: number; pendingBalanceCents: number; reservedCents: number };
}

/** Events of a merchant (both environments unless given), oldest first. */
export async function eventsOf(ctx: TestContext, userId: string, livemode?: boolean) {
  let q = ctx.database.db.selectFrom('events').selectAll().where('user_id', '=', userId);
  if (livemode !== undefined) q = q.where('livemode', '=', livemode);
  const rows = await q.orderBy('created_at').orderBy('id').execute();
  return rows.map((r) => ({ type: r.type, data: r.data as Record<string, any>, livemode: r.livemode }));
}

/** Platform accounts of a merchant (fees, external) in one environment. */
export async function accounts(ctx: TestContext, userId: string, livemode = false) {
  const rows = await ctx.database.db.selectFrom('ledger_accounts').select(['kind', 'balance_cents']).where('user_id', '=', userId).where('livemode', '=', livemode).execute();
  const of = (k: string) => Number(rows.find((r) => r.kind === k)?.balance_cents ?? 0);
  return { available: of('available'), receivable: of('receivable'), reserved: of('reserved'), fees: of('fees'), external: of('external') };
}

/**
 * The connectors of a payout sweep: the sandbox paying at once (or `sandbox`, a scripted one), and
 * production payouts through it when `production` is 'sandbox' (PAYOUT_PROVIDER=sandbox); none: they
 * wait for an operator.
 */
export function payoutConnectors(ctx: TestContext, opts: { sandbox?: SandboxConnector; production?: 'sandbox' | null } = {}): ConnectorRegistry {
  const config = testConfig({ SANDBOX_PAYOUT_DELAY_MS: '0', ...(opts.production ? { PAYOUT_PROVIDER: opts.production } : {}) });
  return buildRegistry(config, ctx.database.db, ctx.app.log, opts.sandbox ? { sandbox: opts.sandbox } : {});
}

/** Runs the payout sweep once over the whole database. */
export function runPayouts(ctx: TestContext, connectors: ConnectorRegistry = payoutConnectors(ctx), now = new Date()) {
  return processPayouts({ ...ctx.app.deps.withdrawals, connectors }, now);
}

/** Runs the payouts' janitor once, as at `now` (after JANITOR_GRACE_SECONDS, it asks about PROCESSING ones). */
export function runPayoutJanitor(ctx: TestContext, connectors: ConnectorRegistry, now: Date) {
  return followPayouts({ ...ctx.app.deps.withdrawals, connectors }, now);
}

/** A sandbox whose payout answers the test controls (the state it settles each reference in). */
export class ScriptedProvider extends SandboxConnector {
  calls: { externalId: string; amountCents: number }[] = [];
  answer: () => Promise<PayoutState> = async () => ({ status: 'COMPLETED' });
  private states = new Map<string, PayoutState>();
  constructor(ctx: TestContext) {
    super(ctx.config, ctx.database.db, 0);
  }
  override async sendPayout(r: PayoutRequest): Promise<PayoutSent> {
    this.calls.push({ externalId: r.externalId, amountCents: r.amountCents });
    const state = await this.answer();
    this.states.set(r.externalId, state);
    return state.status === 'FAILED' ? state : { status: 'SENT' };
  }
  override async findPayout(reference: string): Promise<PayoutState | null> {
    return this.states.get(reference) ?? null;
  }
}

export async function count(ctx: TestContext, table: string, userId: string): Promise<number> {
  const r = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)} where user_id = ${userId}`.execute(ctx.database.db);
  return Number(r.rows[0].n);
}

// KYC bodies ----------------------------------------------------------------------------------

export const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('fake png body')]);
export const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.from('fake jpeg body')]);
export const WEBP = Buffer.concat([Buffer.from('RIFF'), Buffer.from([0x10, 0, 0, 0]), Buffer.from('WEBPVP8 fake')]);
export const PDF = Buffer.from('%PDF-1.7\nfake pdf body\n%%EOF');

export function doc(type: string, bytes: Buffer, contentType: string, fileName = 'file.bin') {
  return { type, fileName, contentType, contentBase64: bytes.toString('base64') };
}

export function kycBody(over: Record<string, unknown> = {}) {
  return {
    personType: 'PF',
    legalName: 'Maria da Silva',
    document: cpf(),
    birthDate: '1988-04-12',
    address: { street: 'Avenida Paulista', number: '1000', complement: 'Sala 12', district: 'Bela Vista', city: 'São Paulo', state: 'sp', zipCode: '01310-100' },
    documents: [doc('IDENTITY_FRONT', PNG, 'image/png', 'rg-frente.png'), doc('SELFIE', JPEG, 'image/jpeg', 'selfie.jpg')],
    ...over,
  };
}
