// What every scenario shares: the context (the admin connection, request material, the results so far),
// the request bodies and API calls, and the preparation of a write measurement.
import type pg from 'pg';
import type { PayoutBenchResult } from './payouts.ts';
import type { BoletoBenchResult } from './boleto.ts';
import type { CardBenchResult } from './card.ts';
import type { CheckoutBenchResult } from './checkout.ts';
import { type LoadResult, waitForQuiet } from './load.ts';
import type { Child } from './processes.ts';
import { runId } from './settings.ts';
import type { MetricsBenchResult, RenewalBenchResult } from './subscriptions.ts';
import type { WebhookBenchResult } from './webhooks.ts';
import type { RenderResult } from './checkout-render.ts';
import type { SplitBenchResult } from './splits.ts';

export interface Context {
  admin: pg.Client;
  cpfs: string[];
  qrCode: string;
  results: Results;
  /** The floor's merchant (A2 writes the real tables as it), made with floor_tx by withFloor. */
  floorUserId?: string;
}

export interface Results {
  /** K3: a cache miss of the link page, plain and branded with bumps (checkout-render.ts). */
  checkoutRender?: RenderResult;
  /** AB: A and B (A3 and B2) measured in alternating slices; the ratio of each pair of neighbouring slices. */
  interleaved?: { floor: LoadResult; creation: GatewayResult; ratios: number[]; floorOpenLoop?: LoadResult; openLoop?: GatewayResult };
  floor?: LoadResult & { serverCpuMsPerRequest: number };
  floorSql?: LoadResult & { serverCpuMsPerRequest: number };
  creation?: GatewayResult;
  /** B1: B with group commit off. */
  creationSingle?: GatewayResult;
  /** B2: B at a fixed rate; with group commit off. */
  openLoop?: GatewayResult;
  /** A3: the floor at B2's rate. */
  floorOpenLoop?: LoadResult;
  openLoopSingle?: GatewayResult;
  /** F: status changes of one merchant (simulate PAID); F1 with batching off (scenario creation1). */
  simulate?: GatewayResult;
  simulateSingle?: GatewayResult;
  /** E: B on embedded PGlite; with group commit off. */
  embedded?: GatewayResult;
  embeddedSingle?: GatewayResult;
  webhooks?: WebhookBenchResult;
  checkout?: CheckoutBenchResult;
  subsMetrics?: MetricsBenchResult;
  subsRenewal?: RenewalBenchResult;
  /** P: payouts through the fake Efí (bench/payouts.ts). */
  payouts?: PayoutBenchResult;
  list?: { rows: number; depthPages: number; offset: number; first: LoadResult; deep: LoadResult; plans: string[] };
  /** G: production card payments over the fake Cielo at 150 ms, 200 connections. */
  card?: CardBenchResult;
  /** H: production boletos over the fake Inter at 300 ms, issued by one worker. */
  boleto?: BoletoBenchResult;
  /** SP: PIX creations and confirmations without and with a 3-recipient split, alternating. */
  split?: SplitBenchResult;
  reports?: { rows: number; days: number; refunds: number; seedSeconds: number; migrationSeconds: number; dailyRows: number; writeCost: { with: number; without: number }; runs: LoadResult[]; indexUse: string[] };
}

let sequence = 0;
export function pixBody(ctx: Context): string {
  const n = sequence++;
  return JSON.stringify({
    product: `Pedido ${n % 1000}`,
    amountCents: 100 + ((n * 7919) % 99_900),
    clientName: 'Cliente Benchmark',
    clientEmail: `cliente${n % 5000}@example.com`,
    clientDocument: ctx.cpfs[n % ctx.cpfs.length],
    paymentMethod: 'PIX',
  });
}

export async function api<T = any>(base: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<{ status: number; body: T }> {
  const res = await fetch(base + path, {
    method,
    headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body !== undefined ? JSON.stringify(body) : undefined,
    signal,
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep text */
  }
  return { status: res.status, body: parsed };
}

/** Registers a merchant and a development key with every permission, through the API. */
export async function merchant(gw: Child, name: string): Promise<{ userId: string; key: string }> {
  const email = `bench.${runId}.${name}@example.com`;
  const reg = await api(gw.url, 'POST', '/api/auth/register', { name: `Loja ${name}`, email, password: 'correct horse battery' });
  if (reg.status !== 201) throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const cred = await api(gw.url, 'POST', '/api/credentials', { name: 'bench', environment: 'DEVELOPMENT' }, { authorization: `Bearer ${reg.body.token}` });
  if (cred.status !== 201) throw new Error(`credential failed: ${cred.status} ${JSON.stringify(cred.body)}`);
  return { userId: reg.body.user.id, key: cred.body.key };
}

/** A load on the gateway process, with what that process reported of it. */
export type GatewayResult = LoadResult & { queriesPerRequest: Record<string, number>; serverCpuMsPerRequest: number; serverSystemMsPerRequest: number };

/**
 * Before each write measurement: a quiet machine and a CHECKPOINT, so that no measurement inherits
 * the WAL of the one before it (PostgreSQL forces a checkpoint once max_wal_size of WAL is
 * written, and the full-page writes after one cost a burst of WAL and CPU). Needs a superuser (or,
 * from PostgreSQL 15, pg_checkpoint); without it the run says so and goes on.
 */
export async function settle(ctx: Context): Promise<void> {
  await waitForQuiet();
  try {
    await ctx.admin.query('CHECKPOINT');
  } catch (err) {
    console.log(`  no CHECKPOINT before this measurement (${(err as Error).message})`);
  }
}
