// G: production card payments through the Cielo connector, against the fake Cielo answering every
// request in a fixed 150 ms (bench/cielo.ts, a process of its own). 200 connections POST CARD payments
// as fast as they go: if the gateway charges them side by side, they finish in about the acquirer's
// time and the throughput nears 200 / 0.15 s; if anything serialises them (a pool, a lock, a socket
// limit), the latency grows and the throughput falls. Cofre's own share of a payment is its latency
// minus the acquirer's 150 ms, judged against the floor's (A) p99 of the same run. Afterwards every
// transaction must be PAID, with exactly one sale at the fake (never charged twice), the ledger balanced.
import os from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { cardEnding } from '../test/fake-cielo/cards.ts';
import type { CieloSales } from './cielo.ts';
import { api, type Context, settle } from './context.ts';
import { type LoadResult, load } from './load.ts';
import { type Child, startChild, startGateway } from './processes.ts';
import { summarizeProfile } from './profile.ts';
import { CARD, PROFILE, runId, SECONDS, WARMUP_SECONDS } from './settings.ts';
import { batchesLines, fmt } from './stats.ts';

export interface CardBenchResult {
  load: LoadResult;
  /** Card payments per second the target asks for: CARD.share of connections / acquirer time. */
  targetPerSecond: number;
  /** Latency minus the acquirer's fixed time (ms). */
  share: { p50: number; p99: number };
  /** The floor's (A) p99 of the same run; null when A did not run. */
  floorP99: number | null;
  /** CPU per payment (ms) by role, from /proc: server (the gateway), cielo, postgres, autocannon, other. */
  cpuMsPerRequest: Record<string, number>;
  check: ChargeCheck;
}

interface ChargeCheck {
  transactions: number;
  paid: number;
  sales: number;
  captured: number;
  twice: number;
  withoutSale: number;
  strays: number;
  violations: number;
  ledgerOff: number;
}

export const cardTargetPerSecond = () => (CARD.share * CARD.connections) / (CARD.acquirerMs / 1000);
const YEAR = new Date().getUTCFullYear() + 3;
/** Card numbers the fake approves (final 0, 1, 4 and 9), Visa and Mastercard. */
const NUMBERS = ['0', '1', '4', '9'].flatMap((last) => [cardEnding(last), cardEnding(last, '54545454545454')]);

let sequence = 0;
/** A card payment's body: amounts, clients and cards varied as pixBody varies them. */
function cardBody(ctx: Context): string {
  const n = sequence++;
  return JSON.stringify({
    product: `Pedido ${n % 1000}`,
    amountCents: 500 + ((n * 7919) % 99_500),
    clientName: 'Cliente Benchmark',
    clientEmail: `cliente${n % 5000}@example.com`,
    clientDocument: ctx.cpfs[n % ctx.cpfs.length],
    paymentMethod: 'CARD',
    card: { number: NUMBERS[n % NUMBERS.length], holderName: 'Cliente Benchmark', expMonth: 1 + (n % 12), expYear: YEAR, cvv: String(100 + (n % 900)) },
  });
}

/**
 * A merchant with a PRODUCTION key: registered through the API, its KYC approved in the table (what
 * an operator's review leaves, as test/helpers.ts approveKyc does: the review is not what G measures).
 */
export async function liveMerchant(ctx: Context, gw: Child, i: number): Promise<{ userId: string; key: string }> {
  const reg = await api(gw.url, 'POST', '/api/auth/register', { name: 'Loja Cartao', email: `bench.${runId}.card${i}@example.com`, password: 'correct horse battery' });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const userId: string = reg.body.user.id;
  const address = { street: 'Rua A', number: '1', district: 'Centro', city: 'São Paulo', state: 'SP', zipCode: '01001000' };
  await ctx.admin.query(
    `INSERT INTO kyc_submissions (id, user_id, status, person_type, legal_name, document, birth_date, address, review_reason, reviewed_at, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, 'APPROVED', 'PF', 'Loja Cartao', $2, '1990-01-01', $3, 'approved by the benchmark', now(), now(), now())`,
    [userId, ctx.cpfs[i], JSON.stringify(address)],
  );
  // A production key from the dashboard asks for a second factor: the code e-mailed to the merchant.
  const auth = { authorization: `Bearer ${reg.body.token}` };
  const sent = await api(gw.url, 'POST', '/api/auth/second-factor', {}, auth);
  if (sent.status !== 202) throw new Error(`second factor failed: ${sent.status} ${JSON.stringify(sent.body)}`);
  const { rows } = await ctx.admin.query(`SELECT text_body FROM emails WHERE user_id = $1 AND template = 'second_factor_code' ORDER BY created_at DESC, id DESC LIMIT 1`, [userId]);
  const code = /\b(\d{6})\b/.exec(rows[0]?.text_body ?? '')?.[1] ?? '';
  const cred = await api(gw.url, 'POST', '/api/credentials', { name: 'bench live', environment: 'PRODUCTION' }, { ...auth, 'x-second-factor': code });
  if (cred.status !== 201) throw new Error(`production credential failed: ${cred.status} ${JSON.stringify(cred.body)}`);
  return { userId, key: cred.body.key };
}

/** G: the fake Cielo's process, a gateway pointed at it (CARD_PROVIDER=cielo), the load, the checks. */
export async function scenarioCard(ctx: Context): Promise<void> {
  const cielo = await startChild('cielo', 'cielo.ts', { BENCH_CIELO_LATENCY_MS: String(CARD.acquirerMs), BENCH_CIELO_TIMEOUT_MS: String(CARD.timeoutMs) });
  try {
    // BENCH_CARD_MERCHANTS registrations from one address: more than the default 10 an hour.
    const gw = await startGateway({ ...cielo.info, REGISTRATIONS_PER_IP_PER_HOUR: String(Math.max(10, CARD.merchants)) });
    try {
      ctx.results.card = await cardLoad(ctx, gw, cielo);
    } finally {
      await gw.stop();
    }
  } finally {
    await cielo.stop();
  }
}

async function cardLoad(ctx: Context, gw: Child, cielo: Child): Promise<CardBenchResult> {
  const merchants: Array<{ userId: string; key: string }> = [];
  for (let i = 0; i < CARD.merchants; i++) merchants.push(await liveMerchant(ctx, gw, i));
  let key = 0;
  const headers = () => ({ 'content-type': 'application/json', 'api-key': merchants[key % merchants.length].key, 'idempotency-key': `card-${runId}-${key++}` });
  // One payment first, to check the shape before hammering.
  const probe = await api(gw.url, 'POST', '/api/v1/transactions', JSON.parse(cardBody(ctx)), headers());
  if (probe.status !== 201 || probe.body.transaction?.status !== 'PAID' || probe.body.transaction?.livemode !== true) {
    throw new Error(`card payment probe failed: ${probe.status} ${JSON.stringify(probe.body)}`);
  }
  const opts = (duration: number): autocannon.Options => ({
    url: gw.url,
    connections: CARD.connections,
    duration,
    requests: [{ setupRequest: (req) => ({ ...req, method: 'POST', path: '/api/v1/transactions', headers: headers(), body: cardBody(ctx) }) }],
  });
  const roles = { [gw.pid]: 'server', [cielo.pid]: 'cielo', [process.pid]: 'autocannon' };
  await settle(ctx);
  const of = CARD.merchants === 1 ? 'one merchant' : `${CARD.merchants} merchants in turn`;
  console.log(`\n[G] production card payments over Cielo (a fake answering in ${CARD.acquirerMs} ms, its own process): POST /api/v1/transactions CARD, ${of}, ${CARD.connections} connections, ${SECONDS} s`);
  await load('warm-up', opts(WARMUP_SECONDS), roles, true);
  await gw.reset();
  await cielo.reset();
  const profileFile = join(os.tmpdir(), `cofre-bench-${runId}-card.${PROFILE === 'cpu' ? 'cpuprofile' : 'heapprofile'}`);
  if (PROFILE) await gw.profileStart(PROFILE);
  const result = await load('card payments', opts(SECONDS), roles);
  if (PROFILE) await gw.profileStop(profileFile);
  const gwStats = await gw.stats();
  const sent = Math.max(1, result.ok + result.non2xx);
  const cpuMsPerRequest = Object.fromEntries(['server', 'cielo', 'postgres', 'autocannon', 'other'].map((k) => [k, ((result.cpu.seconds[k] ?? 0) * 1000) / sent]));
  const statements = Object.values(gwStats.queries).reduce((a, b) => a + b, 0) / sent;
  const byKind = Object.entries(gwStats.queries).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${fmt(v / sent, 2)}`);
  const out: CardBenchResult = {
    load: result,
    targetPerSecond: cardTargetPerSecond(),
    share: { p50: result.p50 - CARD.acquirerMs, p99: result.p99 - CARD.acquirerMs },
    floorP99: ctx.results.floor?.p99 ?? null,
    cpuMsPerRequest,
    check: await checkCharges(ctx, cielo, merchants.map((m) => m.userId)),
  };
  const fake = (await cielo.stats()).extra as CieloSales;
  for (const line of cardLines(out)) console.log(`  ${line}`);
  console.log(
    `  gateway: ${fmt(statements, 2)} statements per payment (${byKind.join(', ')}); its own CPU count ${fmt(gwStats.cpuMs / sent, 2)} ms per payment; event loop delay p99 ${fmt(gwStats.loopDelay.p99, 1)} ms; ` +
      `time inside it p50 ${fmt(gwStats.served.p50, 1)} ms, p99 ${fmt(gwStats.served.p99, 1)} ms; the fake Cielo answered ${fake.requests.toLocaleString('en-US')} requests in all, over ${fake.connections.toLocaleString('en-US')} TLS connections`,
  );
  for (const line of batchesLines(gwStats)) console.log(`  ${line}`);
  if (PROFILE) console.log(summarizeProfile(profileFile, sent));
  const c = out.check;
  if (result.non2xx + result.errors + result.timeouts > 0 || c.paid !== c.transactions || c.twice + c.withoutSale + c.strays + c.violations + c.ledgerOff > 0 || c.captured !== c.sales) process.exitCode = 1;
  return out;
}

/**
 * After the load: the payments still under way when it stopped are waited for (none left PENDING),
 * then every transaction of the merchants must be PAID with exactly one sale at the fake, captured,
 * and no sale may be for another order; the ledger balanced.
 */
async function checkCharges(ctx: Context, cielo: Child, userIds: string[]): Promise<ChargeCheck> {
  const deadline = Date.now() + CARD.timeoutMs * 3;
  let rows: Array<{ id: string; status: string }> = [];
  for (;;) {
    rows = (await ctx.admin.query<{ id: string; status: string }>(`SELECT id, status FROM transactions WHERE user_id = ANY($1::uuid[])`, [userIds])).rows;
    if (!rows.some((r) => r.status === 'PENDING') || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const fake = (await cielo.stats()).extra as CieloSales;
  const perOrder = new Map<string, number>();
  for (const [order] of fake.sales) perOrder.set(order, (perOrder.get(order) ?? 0) + 1);
  const orders = new Set(rows.map((r) => r.id.replace(/-/g, '')));
  const counts = [...orders].map((o) => perOrder.get(o) ?? 0);
  const { rows: [ledger] } = await ctx.admin.query<{ off: number }>(
    `SELECT (SELECT count(*) FROM ledger_accounts a WHERE a.balance_cents <> (SELECT coalesce(sum(e.amount_cents), 0) FROM ledger_entries e WHERE e.account_id = a.id))::int
          + (SELECT count(*) FROM (SELECT 1 FROM ledger_entries GROUP BY journal_id HAVING sum(amount_cents) <> 0) j)::int AS off`,
  );
  if (fake.firstViolations.length) console.log(`  rules the gateway broke at the fake Cielo (first ones): ${fake.firstViolations.join('; ')}`);
  return {
    transactions: rows.length,
    paid: rows.filter((r) => r.status === 'PAID').length,
    sales: fake.sales.length,
    captured: fake.sales.filter(([, status]) => status === 2).length,
    twice: counts.filter((n) => n > 1).length,
    withoutSale: counts.filter((n) => n === 0).length,
    strays: [...perOrder.keys()].filter((o) => !orders.has(o)).length,
    violations: fake.violations,
    ledgerOff: ledger.off,
  };
}

/** G's figures against its targets, and its checks: printed after the load and in the report. */
export function cardLines(g: CardBenchResult): string[] {
  const r = g.load;
  const ideal = CARD.connections / (CARD.acquirerMs / 1000);
  const met = (ok: boolean) => (ok ? 'met' : 'missed');
  const c = g.check;
  const cpu = g.cpuMsPerRequest;
  return [
    `throughput ${fmt(r.rps, 0)} card payments/s = ${fmt((r.rps / ideal) * 100, 1)}% of ${CARD.connections} / ${fmt(CARD.acquirerMs / 1000, 2)} s = ${fmt(ideal, 0)}/s; target >= ${fmt(g.targetPerSecond, 0)}/s (${CARD.share * 100}%): ${met(r.rps >= g.targetPerSecond)}`,
    `latency p50 ${fmt(r.p50, 1)} ms, p99 ${fmt(r.p99, 1)} ms; Cofre's share (minus the acquirer's ${CARD.acquirerMs} ms) p50 ${fmt(g.share.p50, 1)} ms, p99 ${fmt(g.share.p99, 1)} ms; ` +
      (g.floorP99 === null
        ? `NO COMPARISON: the floor (A) did not run in this invocation (BENCH_SCENARIOS=floor,card for the target p99 <= the floor's p99)`
        : `the floor's (A) p99 of this run ${fmt(g.floorP99, 1)} ms: ${met(g.share.p99 <= g.floorP99)}`),
    `non-2xx responses: ${r.non2xx}${r.non2xx ? ` (status codes ${JSON.stringify(r.statusCodes)})` : ''}, errors ${r.errors}, timeouts ${r.timeouts}`,
    `CPU per card payment (from /proc): gateway ${fmt(cpu.server, 2)} ms, fake Cielo ${fmt(cpu.cielo, 2)} ms, PostgreSQL ${fmt(cpu.postgres, 2)} ms, autocannon ${fmt(cpu.autocannon, 2)} ms, other ${fmt(cpu.other, 2)} ms; machine ${fmt(r.cpu.machineBusy * 100, 0)}% busy`,
    `afterwards (warm-up and probe included): ${c.transactions.toLocaleString('en-US')} card transactions, ${c.paid.toLocaleString('en-US')} PAID; the fake Cielo holds ${c.sales.toLocaleString('en-US')} sales, ${c.captured.toLocaleString('en-US')} captured; ` +
      `charged twice ${c.twice}, without a sale ${c.withoutSale}, sales for no transaction ${c.strays}, rules broken ${c.violations}; ledger accounts or journals off ${c.ledgerOff}: ` +
      (c.paid === c.transactions && c.sales === c.transactions && c.captured === c.sales && c.twice + c.withoutSale + c.strays + c.violations + c.ledgerOff === 0 ? 'each transaction PAID and charged exactly once' : 'CHECK FAILED'),
  ];
}
