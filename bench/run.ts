// `npm run bench`: load tests of the gateway on real PostgreSQL, written into bench/README.md.
//
//   A  floor        a bare Fastify route doing one INSERT into a transactions-shaped table
//   A2 SQL floor    the statement PIX creation sends, from raw pg in a bare route (no app code), after B
//   A3 floor open loop  A at B2's fixed rate (scenarios floor and openloop): the latency floor for B2
//   B  PIX creation POST /api/v1/transactions, unique Idempotency-Key per request
//   AB interleaved  A and B (and A3 and B2 with openloop) in alternating slices of a few seconds, both
//                   servers up: the ratio B / A as both see the same moments of a drifting host
//   B2 open loop    B at a fixed rate (1,000/s): its latency (scenario openloop)
//   B1 comparison   B (and B2, F) with group commit off: one statement per creation (scenario creation1)
//   F  simulate     status changes of one merchant: POST .../simulate PAID, a PENDING PIX each (F1: batching off)
//   E  embedded     B on PGlite, with group commit and without (E1) (scenario embedded)
//   C  list depth   GET /api/v1/transactions first page vs. a page 10,000 pages deep (1M rows)
//   S1 subsmetrics  GET /api/subscriptions/metrics over 100,000 subscriptions (bench/subscriptions.ts)
//   S2 subsrenewal  100,000 due card subscriptions renewed by 2 worker processes (bench/subscriptions.ts)
//   R  reports      GET /api/v1/reports/summary and /timeseries, 30 and 90 days, over 1M rows (a year)
//   G  card         production card payments over a fake Cielo answering in 150 ms, 200 connections (bench/card.ts)
//   H  boleto       4 bursts of 2,000 production boletos created on an API instance (alternated with the floor's), issued by one worker through a fake Inter at 300 ms (bench/boleto.ts)
//   P  payouts      5,000 queued withdrawals sent through a fake Efí answering in 100 ms by 1, then 2 workers; request to PROCESSING (bench/payouts.ts)
//   SP split        PIX creations and their confirmations (simulate PAID) without and with a 3-recipient split, alternating slices (bench/splits.ts; not in the default list)
//   HG history      creation and the deliveries list with events and deliveries at 10^5, then 10^7 rows each (bench/history.ts; not in the default list)
//
// Each server runs in its own child process (bench/floor.ts, bench/server.ts) so that autocannon,
// here, does not share their event loop; on this 2-core machine they still share the CPUs (with
// PostgreSQL too), which is why CPU time per process is recorded beside every figure.
//
// Environment: DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test), BENCH_SECONDS
// (default 20), BENCH_LIST_SECONDS (default 10), BENCH_ROWS (default 1000000), BENCH_OPEN_LOOP_WARMUP_SECONDS
// (default 30: an open loop's warm-up at its rate, before the checkpoint and the usual 3 s; 0 = none),
// BENCH_WRITE_README (default 1; 0 prints only), BENCH_SCENARIOS (default floor,floorsql,creation,interleaved,simulate,openloop,creation1,embedded,list,checkout,webhooks,subsmetrics,subsrenewal,reports,card; the
// README is only written when all ran), BENCH_PROFILE=1 (CPU profile of the gateway during B, F and G,
// summarised; slows it down, so not for the figures; =alloc / =promoted: the bytes it allocates, or
// those of them that survive the young generation, by function), BENCH_QUIET_WAIT (seconds to wait for other
// processes to leave the CPUs alone before starting, default 180), BENCH_SERVER_FLAGS (Node and V8
// flags for the floor and gateway processes started here, not the checkout and webhook scenarios'
// own; e.g. `--trace-gc-nvp`) with BENCH_SERVER_STDOUT (a file their
// standard output is appended to, where such flags print).
// Each scenario is a small function taking the shared context (context.ts): the write scenarios in
// scenarios-write.ts, the read ones in scenarios-read.ts, webhook deliveries in webhooks.ts; the
// settings in settings.ts, the child processes in processes.ts, the load in load.ts (CPU time from
// /proc in proc.ts), the report in report.ts.
import pg from 'pg';
import { connect, migrate } from '../src/db/index.ts';
import { generateCpf } from '../src/payments/documents.ts';
import { buildBrCode, newTxid } from '../src/payments/pix.ts';
import { scenarioBoleto } from './boleto.ts';
import { scenarioCard } from './card.ts';
import { payoutScenario } from './payouts.ts';
import { checkoutPageScenario } from './checkout.ts';
import { renderScenario } from './checkout-render.ts';
import { type Context, merchant, settle } from './context.ts';
import { waitForQuiet, watchPostgresDisk } from './load.ts';
import { cleanUpOnSignals, cleanup, cleanups, dropSchema, dropStaleSchemas, startGateway } from './processes.ts';
import { machine, report, writeReadme } from './report.ts';
import { scenarioListDepth, scenarioReports } from './scenarios-read.ts';
import {
  floorOnly,
  scenarioEmbedded,
  scenarioFloorSql,
  scenarioInterleaved,
  scenarioOpenLoop,
  scenarioPixCreation,
  scenarioSimulate,
  scenarioSingleStatements,
  withFloor,
} from './scenarios-write.ts';
import { ALL_SCENARIOS, DATABASE_URL, positiveInt, runId, SCENARIOS, SCHEMA, SUBSCRIPTIONS, WRITE_README } from './settings.ts';
import { metricsScenario, renewalScenario } from './subscriptions.ts';
import { scenarioSplit } from './splits.ts';
import { scenarioHistory } from './history.ts';
import { webhookScenarios } from './webhooks.ts';

cleanUpOnSignals();

async function main() {
  console.log(`benchmark run ${runId}: schema ${SCHEMA} on ${DATABASE_URL.replace(/\/\/[^@]*@/, '//')}`);
  await dropStaleSchemas();
  const database = await connect({ url: DATABASE_URL, schema: SCHEMA, poolSize: 2 });
  cleanups.push(dropSchema);
  try {
    // With the schema, Kysely's bookkeeping tables live there too (not found in another run's schema).
    await migrate(database.db, SCHEMA);
  } finally {
    await database.close();
  }
  const admin = new pg.Client({ connectionString: DATABASE_URL, options: `-c search_path=${SCHEMA}` });
  await admin.connect();
  cleanups.push(() => admin.end());

  let seed = 12345;
  const rand = () => ((seed = (seed * 16807) % 2147483647), seed / 2147483647);
  const cpfs = Array.from(new Set(Array.from({ length: 20_000 }, () => generateCpf(rand))));
  const qrCode = buildBrCode({ pixKey: 'pix@cofre.com.br', merchantName: 'COFRE PAGAMENTOS', merchantCity: 'SAO PAULO', amountCents: 1990, txid: newTxid() });
  const ctx: Context = { admin, cpfs, qrCode, results: {} };
  const mach = await machine(admin);
  await watchPostgresDisk(admin);

  if (SCENARIOS.includes('floor')) await withFloor(ctx, (floor) => floorOnly(ctx, floor));

  const gw = await startGateway();
  try {
    if (SCENARIOS.includes('creation')) await scenarioPixCreation(ctx, gw);
    if (SCENARIOS.includes('simulate')) ctx.results.simulate = await scenarioSimulate(ctx, gw, 'F');
    if (SCENARIOS.includes('split')) ctx.results.split = await scenarioSplit(ctx, gw);
    // Last of this gateway's scenarios: its rows stay in the tables the others write to.
    if (SCENARIOS.includes('history')) await scenarioHistory(ctx, gw);
    if (SCENARIOS.includes('openloop')) ctx.results.openLoop = await scenarioOpenLoop(ctx, gw, 'B2');
    if (SCENARIOS.includes('list')) await scenarioListDepth(ctx, gw);
    if (SCENARIOS.includes('reports')) await scenarioReports(ctx, gw);
    if (SCENARIOS.includes('checkout')) {
      await waitForQuiet();
      const m = await merchant(gw, 'checkout');
      const aff = await merchant(gw, 'affiliate');
      ctx.results.checkout = await checkoutPageScenario({ url: gw.url, apiKey: m.key, affiliateApiKey: aff.key });
      ctx.results.checkoutRender = await renderScenario({ url: gw.url, apiKey: m.key, databaseUrl: DATABASE_URL, schema: SCHEMA });
    }
    if (SCENARIOS.includes('subsmetrics')) {
      const m = await merchant(gw, 'metrics');
      await waitForQuiet();
      ctx.results.subsMetrics = await metricsScenario({ admin, url: gw.url, key: m.key, userId: m.userId, n: SUBSCRIPTIONS });
    }
  } finally {
    await gw.stop();
  }
  if (SCENARIOS.includes('interleaved')) await scenarioInterleaved(ctx);
  if (SCENARIOS.includes('creation1')) await scenarioSingleStatements(ctx);
  if (SCENARIOS.includes('embedded')) await scenarioEmbedded(ctx);
  // A gateway of its own, pointed at the fake Cielo (after the others stopped: pools of 50).
  if (SCENARIOS.includes('card')) await scenarioCard(ctx);
  if (SCENARIOS.includes('boleto')) await scenarioBoleto(ctx, positiveInt('BENCH_BOLETOS', 2000));
  // After the gateway stopped (its pool of 50 and the workers' would crowd max_connections).
  if (SCENARIOS.includes('subsrenewal')) {
    await settle(ctx);
    ctx.results.subsRenewal = await renewalScenario({ databaseUrl: DATABASE_URL, schema: SCHEMA, admin, n: SUBSCRIPTIONS, timeoutMs: positiveInt('BENCH_RENEWAL_TIMEOUT_S', 3600) * 1000 });
  }
  // A diagnostic, after B: its rows land in the tables B writes to, and B is the measurement that counts.
  if (SCENARIOS.includes('floorsql')) await withFloor(ctx, (floor) => scenarioFloorSql(ctx, floor));
  if (SCENARIOS.includes('payouts')) {
    await settle(ctx);
    ctx.results.payouts = await payoutScenario({ databaseUrl: DATABASE_URL, schema: SCHEMA, n: positiveInt('BENCH_PAYOUTS', 5000) });
  }
  if (SCENARIOS.includes('webhooks')) {
    await waitForQuiet();
    ctx.results.webhooks = await webhookScenarios({ databaseUrl: DATABASE_URL, schema: SCHEMA });
  }

  const section = report(ctx.results, mach);
  console.log('\n' + section);
  if (WRITE_README && ALL_SCENARIOS.every((x) => SCENARIOS.includes(x))) writeReadme(section);
  const c = ctx.results.creation;
  if (c && c.non2xx + c.errors + c.timeouts > 0) process.exitCode = 1;
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(async () => {
    await cleanup();
  });
