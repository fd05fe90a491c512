// The fake Cielo (test/fake-cielo) in a process of its own for scenario G (bench/card.ts), so that the
// acquirer's CPU is counted under a role of its own rather than the gateway's or the load generator's.
// It answers every request after BENCH_CIELO_LATENCY_MS (default 150) and keeps no request log (a
// benchmark's thousands per second would grow it); its sales are kept, for the check that each
// transaction was charged once. Its settings (cieloEnv: URLs, credentials, CA file) go to the parent
// with the ready message; each stats answer carries every sale's MerchantOrderId and Status.
import { cieloEnv } from '../test/fake-cielo/env.ts';
import { startFakeCielo } from '../test/fake-cielo/server.ts';
import { serveParent } from './child.ts';

/** What bench/card.ts reads in ChildStats.extra. */
export interface CieloSales {
  /** Every sale: [MerchantOrderId, Status] (2: captured). */
  sales: Array<[string, number]>;
  /** Since the start: requests answered, TLS connections accepted, rules broken (the first ones word for word). */
  requests: number;
  connections: number;
  violations: number;
  firstViolations: string[];
}

const latencyMs = Number(process.env.BENCH_CIELO_LATENCY_MS ?? 150);
const timeoutMs = Number(process.env.BENCH_CIELO_TIMEOUT_MS ?? 5000);
const cielo = await startFakeCielo({ latencyMs, keepRequests: 0 });

const extra = (): CieloSales => ({
  sales: [...cielo.sales.values()].map((s) => [s.merchantOrderId, s.status]),
  requests: cielo.tally.requests,
  connections: cielo.tally.connections,
  violations: cielo.tally.violations,
  firstViolations: cielo.violations.slice(0, 5),
});

serveParent(Number(new URL(cielo.apiUrl).port), () => cielo.close(), { info: cieloEnv(cielo, timeoutMs), extra });
