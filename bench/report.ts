// The run's report: the machine, a table per scenario group against its targets, the CPU lines; and
// bench/README.md's "Latest results", written when every scenario ran.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { boletoLines } from './boleto.ts';
import { cardLines } from './card.ts';
import { checkoutTable } from './report-checkout.ts';
import { splitLines } from './splits.ts';
import type { GatewayResult, Results } from './context.ts';
import { cpuLine, type LoadResult } from './load.ts';
import { ALL_SCENARIOS, CARD, CONNECTIONS, DEPTH_PAGES, HERE, LIST_CONNECTIONS, LIST_LIMIT, LIST_SECONDS, OPEN_LOOP_RATE, OPEN_LOOP_WARMUP_SECONDS, REPORT_CONNECTIONS, REPORT_SECONDS, SECONDS, TARGETS, TARGETS17, WARMUP_SECONDS } from './settings.ts';
import { fmt, met } from './stats.ts';
import { SUBSCRIPTION_TARGETS } from './subscriptions.ts';

export interface Machine {
  date: string;
  cpus: number;
  cpuModel: string;
  memoryGb: number;
  node: string;
  postgres: string;
  pgSettings: string;
}

export async function machine(admin: pg.Client): Promise<Machine> {
  const v = await admin.query<{ v: string }>(`SELECT current_setting('server_version') AS v`);
  const s = await admin.query<{ name: string; setting: string; unit: string | null }>(
    `SELECT name, setting, unit FROM pg_settings WHERE name IN ('max_connections','shared_buffers','synchronous_commit','fsync','wal_level') ORDER BY name`,
  );
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    cpus: os.availableParallelism(),
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    postgres: `PostgreSQL ${v.rows[0].v}`,
    pgSettings: s.rows.map((r) => `${r.name}=${r.setting}${r.unit && r.unit !== 'ms' ? ` (${r.unit})` : ''}`).join(', '),
  };
}

export function report(results: Results, mach: Machine): string {
  const { list } = results;
  const lines = [
    `Run of ${mach.date}. Machine: ${mach.cpus} CPUs (${mach.cpuModel}), ${mach.memoryGb} GB RAM; Node ${mach.node}; ${mach.postgres} (${mach.pgSettings}).`,
    `Load generator, servers and PostgreSQL all on this machine. Measured ${SECONDS} s per write scenario (after a ${WARMUP_SECONDS} s warm-up), ${LIST_SECONDS} s per list page.`,
    '',
    ...scenarioTable(results),
    '',
    ...targetTable(results),
    '',
    'CPU used during each measurement (cores, i.e. CPU seconds per second; "other" = processes outside this benchmark):',
    '',
    ...cpuLines(results),
    ...perRequest(results),
    ...checkoutTable(results),
    ...webhookTable(results),
    ...subscriptionTable(results),
    ...payoutTable(results),
    ...reportsTable(results),
    ...(results.boleto ? ['', `H. Production boletos over a fake Inter answering in ${results.boleto.bankMs} ms:`, '', ...boletoLines(results.boleto).map((l) => `- ${l}`)] : []),
    ...(results.split ? ['', 'SP. PIX sales without and with a 3-recipient split (issue 38), one seller, alternating slices:', '', ...splitLines(results.split).map((l) => `- ${l}`)] : []),
    ...(results.card ? ['', `G. Production card payments over a fake Cielo answering in ${CARD.acquirerMs} ms, ${CARD.connections} connections, ${CARD.merchants === 1 ? 'one merchant' : `${CARD.merchants} merchants`}:`, '', ...cardLines(results.card).map((l) => `- ${l}`)] : []),
  ];
  if (list) lines.push('', 'List query plans (EXPLAIN ANALYZE of the route\'s query, once, before the load):', '', ...list.plans.map((p) => `- ${p}`));
  return lines.join('\n') + '\n';
}

const row = (name: string, r: LoadResult | undefined, conns: number) =>
  r
    ? `| ${name} | ${conns} | ${fmt(r.seconds, 0)} s | ${fmt(r.rps, 0)} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.max, 1)} | ${r.ok.toLocaleString('en-US')} | ${r.non2xx} | ${r.errors + r.timeouts} |`
    : `| ${name} | - | - | not run | | | | | | |`;
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1];

/** Every load scenario's figures, one row each. */
function scenarioTable(results: Results): string[] {
  const { floor, creation, list } = results;
  const ab = results.interleaved;
  return [
    '| Scenario | Connections | Duration | 2xx req/s | p50 ms | p99 ms | max ms | 2xx | non-2xx | errors |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    row('A. Floor: one INSERT (POST /floor)', floor, CONNECTIONS),
    ...(results.floorSql ? [row('A2. PIX creation\'s SQL from raw pg (POST /floor-sql)', results.floorSql, CONNECTIONS)] : []),
    row('B. PIX creation (POST /api/v1/transactions)', creation, CONNECTIONS),
    ...(results.floorOpenLoop ? [row(`A3. Floor at ${OPEN_LOOP_RATE.toLocaleString('en-US')}/s (open loop)`, results.floorOpenLoop, CONNECTIONS)] : []),
    ...(results.openLoop ? [row(`B2. PIX creation at ${OPEN_LOOP_RATE.toLocaleString('en-US')}/s (open loop)`, results.openLoop, CONNECTIONS)] : []),
    ...(results.creationSingle ? [row('B1. B with group commit off (one statement per creation)', results.creationSingle, CONNECTIONS)] : []),
    ...(results.openLoopSingle ? [row(`B2-1. B2 with group commit off`, results.openLoopSingle, CONNECTIONS)] : []),
    ...(results.simulate ? [row('F. Status changes of one merchant (simulate PAID)', results.simulate, CONNECTIONS)] : []),
    ...(results.simulateSingle ? [row('F1. F with batching off (a transaction per change)', results.simulateSingle, CONNECTIONS)] : []),
    ...(results.embedded ? [row('E. PIX creation, embedded PGlite', results.embedded, CONNECTIONS)] : []),
    ...(results.embeddedSingle ? [row('E1. E with group commit off', results.embeddedSingle, CONNECTIONS)] : []),
    ...(ab
      ? [
          row('AB. Floor, in alternating slices with B', ab.floor, CONNECTIONS),
          row('AB. PIX creation, in alternating slices with A', ab.creation, CONNECTIONS),
          ...(ab.floorOpenLoop ? [row(`AB. Floor at ${OPEN_LOOP_RATE.toLocaleString('en-US')}/s, in slices with B2`, ab.floorOpenLoop, CONNECTIONS)] : []),
          ...(ab.openLoop ? [row(`AB. PIX creation at ${OPEN_LOOP_RATE.toLocaleString('en-US')}/s, in slices with A3`, ab.openLoop, CONNECTIONS)] : []),
        ]
      : []),
    row(`C. List, first page (limit=${LIST_LIMIT})`, list?.first, LIST_CONNECTIONS),
    row(`C. List, page ${list ? list.depthPages.toLocaleString('en-US') : DEPTH_PAGES.toLocaleString('en-US')} (limit=${LIST_LIMIT})`, list?.deep, LIST_CONNECTIONS),
  ];
}

/** The targets of the write and list scenarios, met or missed. */
function targetTable(results: Results): string[] {
  const { floor, creation, list } = results;
  const share = floor && creation ? creation.rps / floor.rps : undefined;
  const ab = results.interleaved;
  const abShare = ab ? ab.creation.rps / ab.floor.rps : undefined;
  const p50Ratio = list ? list.deep.p50 / list.first.p50 : undefined;
  const p99Ratio = list ? list.deep.p99 / list.first.p99 : undefined;
  return [
    '| Target | Measured | Result |',
    '| --- | --- | --- |',
    `| PIX creations/s >= ${TARGETS.creationsPerSecond.toLocaleString('en-US')} | ${creation ? fmt(creation.rps, 0) : '-'} | ${met(creation && creation.rps >= TARGETS.creationsPerSecond)} |`,
    `| PIX creation p99 <= ${TARGETS.creationP99Ms} ms | ${creation ? `${fmt(creation.p99, 1)} ms` : '-'} | ${met(creation && creation.p99 <= TARGETS.creationP99Ms)} |`,
    `| PIX creation >= ${TARGETS.floorShare * 100}% of the floor | ${share !== undefined ? `${fmt(share * 100, 1)}% (${fmt(creation!.rps, 0)} / ${fmt(floor!.rps, 0)})` : '-'} | ${met(share === undefined ? undefined : share >= TARGETS.floorShare)} |`,
    `| PIX creation: 0 non-2xx | ${creation ? creation.non2xx + creation.errors + creation.timeouts : '-'} | ${met(creation && creation.non2xx + creation.errors + creation.timeouts === 0)} |`,
    `| Issue 17: PIX creation >= 100% of the floor, p99 <= ${TARGETS17.creationP99Ms} ms | ${share !== undefined ? `${fmt(share * 100, 1)}%, p99 ${fmt(creation!.p99, 1)} ms` : '-'} | ${met(share === undefined ? undefined : share >= 1 && creation!.p99 <= TARGETS17.creationP99Ms)} |`,
    ...(ab
      ? [
          `| Issue 17, A and B in alternating slices: PIX creation >= 100% of the floor, p99 <= ${TARGETS17.creationP99Ms} ms | ${fmt(abShare! * 100, 1)}% (per pair of slices: median ${fmt(median(ab.ratios) * 100, 1)}%, ${fmt(Math.min(...ab.ratios) * 100, 1)}-${fmt(Math.max(...ab.ratios) * 100, 1)}%), p99 ${fmt(ab.creation.p99, 1)} ms (the floor's ${fmt(ab.floor.p99, 1)} ms) | ${met(abShare! >= 1 && ab.creation.p99 <= TARGETS17.creationP99Ms)} |`,
          ...(ab.openLoop
            ? [`| Issue 17, A3 and B2 in alternating slices: open loop at ${OPEN_LOOP_RATE.toLocaleString('en-US')}/s, p99 <= ${TARGETS17.openLoopP99Ms} ms | p99 ${fmt(ab.openLoop.p99, 1)} ms (the floor's ${fmt(ab.floorOpenLoop!.p99, 1)} ms) | ${met(ab.openLoop.p99 <= TARGETS17.openLoopP99Ms)} |`]
            : []),
        ]
      : []),
    `| Issue 17: open loop at ${OPEN_LOOP_RATE.toLocaleString('en-US')}/s, p99 <= ${TARGETS17.openLoopP99Ms} ms | ${results.openLoop ? `p99 ${fmt(results.openLoop.p99, 1)} ms (${fmt(results.openLoop.rps, 0)}/s served)${results.floorOpenLoop ? `; the floor at the same rate (A3): p99 ${fmt(results.floorOpenLoop.p99, 1)} ms` : ''}` : '-'} | ${met(results.openLoop && results.openLoop.p99 <= TARGETS17.openLoopP99Ms)} |`,
    `| Issue 17: embedded (PGlite) >= ${TARGETS17.embeddedPerSecond.toLocaleString('en-US')} creations/s | ${results.embedded ? fmt(results.embedded.rps, 0) : '-'} | ${met(results.embedded && results.embedded.rps >= TARGETS17.embeddedPerSecond)} |`,
    `| Deep page <= ${TARGETS.deepOverFirst}x first page (${list ? list.rows.toLocaleString('en-US') : '-'} rows) | ${p50Ratio !== undefined ? `p50 x${fmt(p50Ratio, 2)}, p99 x${fmt(p99Ratio!, 2)}` : '-'} | ${met(p50Ratio === undefined ? undefined : p50Ratio <= TARGETS.deepOverFirst && p99Ratio! <= TARGETS.deepOverFirst)} |`,
  ];
}

/** The CPU each process used during each measurement. */
function cpuLines(results: Results): string[] {
  const { floor, creation, list } = results;
  const ab = results.interleaved;
  return [
    ...(floor ? [`- A: ${cpuLine(floor)}`] : []),
    ...(results.floorSql ? [`- A2: ${cpuLine(results.floorSql)}`] : []),
    ...(creation ? [`- B: ${cpuLine(creation)}`] : []),
    ...(ab ? [`- AB, A's slices: ${cpuLine(ab.floor)}`, `- AB, B's slices: ${cpuLine(ab.creation)}`] : []),
    ...(results.floorOpenLoop ? [`- A3: ${cpuLine(results.floorOpenLoop)}`] : []),
    ...(results.openLoop ? [`- B2: ${cpuLine(results.openLoop)}`] : []),
    ...(results.creationSingle ? [`- B1: ${cpuLine(results.creationSingle)}`] : []),
    ...(results.openLoopSingle ? [`- B2-1: ${cpuLine(results.openLoopSingle)}`] : []),
    ...(results.simulate ? [`- F: ${cpuLine(results.simulate)}`] : []),
    ...(results.simulateSingle ? [`- F1: ${cpuLine(results.simulateSingle)}`] : []),
    ...(results.embedded ? [`- E: ${cpuLine(results.embedded)} (the gateway process runs PGlite)`] : []),
    ...(results.embeddedSingle ? [`- E1: ${cpuLine(results.embeddedSingle)}`] : []),
    ...(list ? [`- C first page: ${cpuLine(list.first)}`, `- C deep page: ${cpuLine(list.deep)}`] : []),
  ];
}

/** Statements and CPU per request of B, and of B1, E and E1 beside it. */
function perRequest(results: Results): string[] {
  const { floor, creation } = results;
  const lines: string[] = [];
  if (creation) {
    const q = creation.queriesPerRequest;
    const total = Object.values(q).reduce((a, b) => a + b, 0);
    lines.push(
      '',
      `PIX creation, per request (counted in the gateway process): ${fmt(total, 2)} SQL statements ` +
        `(${Object.entries(q).map(([k, v]) => `\`${k}\` ${fmt(v, 2)}`).join(', ')}); ` +
        `${fmt(creation.serverCpuMsPerRequest, 2)} ms of gateway CPU (${fmt(creation.serverSystemMsPerRequest, 2)} ms of it in the kernel)` +
        (floor ? ` (floor: 1 statement, ${fmt(floor.serverCpuMsPerRequest, 2)} ms of CPU in its process)` : '') +
        (floor ? `; PostgreSQL CPU per request: creation ${fmt(((creation.cpu.seconds.postgres ?? 0) * 1000) / Math.max(1, creation.ok), 2)} ms, floor ${fmt(((floor.cpu.seconds.postgres ?? 0) * 1000) / Math.max(1, floor.ok), 2)} ms.` : '.'),
    );
  }
  const statements = (r: GatewayResult) => fmt(Object.values(r.queriesPerRequest).reduce((a, b) => a + b, 0), 2);
  // The embedded gateway runs its database itself: its CPU is the gateway's (no PostgreSQL figure).
  const gatewayLine = (name: string, r: GatewayResult | undefined, embedded = false) =>
    r
      ? [
          `- ${name}: ${embedded ? '' : `${statements(r)} statements, `}${fmt(r.serverCpuMsPerRequest, 2)} ms of gateway CPU` +
            `${embedded ? ' (PGlite included)' : `, ${fmt(((r.cpu.seconds.postgres ?? 0) * 1000) / Math.max(1, r.ok), 2)} ms of PostgreSQL CPU`} per request.`,
        ]
      : [];
  const compared = [...gatewayLine('B1 (group commit off)', results.creationSingle), ...gatewayLine('E (embedded)', results.embedded, true), ...gatewayLine('E1 (embedded, group commit off)', results.embeddedSingle, true)];
  if (compared.length) lines.push('', ...compared);
  return lines;
}

/** W: webhook deliveries. */
function webhookTable(results: Results): string[] {
  const lines: string[] = [];
  const wh = results.webhooks;
  if (wh) {
    lines.push(
      '',
      '| Webhooks (one worker process, local HTTPS receiver answering 200) | Measured | Target | Result |',
      '| --- | --- | --- | --- |',
      `| Deliveries per second | ${fmt(wh.throughput.perSecond, 0)} (${wh.throughput.deliveries.toLocaleString('en-US')} in ${fmt(wh.throughput.seconds, 1)} s) | >= ${wh.targets.deliveriesPerSecond.toLocaleString('en-US')} | ${met(wh.throughput.perSecond >= wh.targets.deliveriesPerSecond)} |`,
      `| Commit to first attempt, p50 | ${fmt(wh.latency.p50, 1)} ms | <= ${wh.targets.latencyP50Ms} ms | ${met(wh.latency.p50 <= wh.targets.latencyP50Ms)} |`,
      `| Commit to first attempt, p99 | ${fmt(wh.latency.p99, 1)} ms | <= ${wh.targets.latencyP99Ms} ms | ${met(wh.latency.p99 <= wh.targets.latencyP99Ms)} |`,
      '',
      `Webhook CPU per delivery: worker ${fmt(wh.throughput.cpuMsPerDelivery.worker, 2)} ms, PostgreSQL ${fmt(wh.throughput.cpuMsPerDelivery.postgres, 2)} ms, receiver ${fmt(wh.throughput.cpuMsPerDelivery.receiver, 2)} ms; latency measured on ${wh.latency.samples} transactions at ${wh.latency.rate}/s.`,
    );
  }
  return lines;
}

/** S1 and S2: subscription metrics and renewals. */
function subscriptionTable(results: Results): string[] {
  const { creation } = results;
  const lines: string[] = [];
  const sm = results.subsMetrics;
  const sr = results.subsRenewal;
  if (sm || sr) {
    lines.push('', '| Subscriptions (issue 13) | Measured | Target | Result |', '| --- | --- | --- | --- |');
    if (sm) {
      lines.push(
        `| GET /api/subscriptions/metrics (current month) over ${sm.subscriptions.toLocaleString('en-US')} subscriptions (${sm.cycles.toLocaleString('en-US')} cycles), ${sm.samples} requests one at a time: p99 | ${fmt(sm.p99, 1)} ms (p50 ${fmt(sm.p50, 1)} ms, max ${fmt(sm.max, 1)} ms) | <= ${SUBSCRIPTION_TARGETS.metricsP99Ms} ms | ${met(sm.p99 <= SUBSCRIPTION_TARGETS.metricsP99Ms)} |`,
      );
    }
    if (sr) {
      const ratio = creation ? sr.perSecond / creation.rps : undefined;
      lines.push(
        `| Renewal of ${sr.subscriptions.toLocaleString('en-US')} due card subscriptions of ${sr.merchants} merchants by ${sr.workers} worker processes | ${fmt(sr.perSecond, 0)} renewals/s (${sr.renewed.toLocaleString('en-US')}${sr.renewed < sr.subscriptions ? ` of ${sr.subscriptions.toLocaleString('en-US')}, time ran out,` : ''} in ${fmt(sr.seconds, 1)} s)${ratio !== undefined ? `; ${fmt(ratio * 100, 1)}% of B's ${fmt(creation!.rps, 0)} creations/s` : ''} | reported, with the ratio to B | each renewed exactly once, ${sr.verified.transactions.toLocaleString('en-US')} transactions, ledger balanced |`,
      );
    }
    if (sm) lines.push('', `Metrics book: ${sm.subscriptions.toLocaleString('en-US')} subscriptions, ${sm.cycles.toLocaleString('en-US')} cycles, ${sm.pauses.toLocaleString('en-US')} pauses, seeded in ${fmt(sm.seedSeconds, 0)} s; the endpoint answered activeSubscribers ${sm.sample.activeSubscribers.toLocaleString('en-US')}, mrrCents ${sm.sample.mrrCents.toLocaleString('en-US')}, totalPaused ${sm.sample.totalPaused.toLocaleString('en-US')}, pastDue ${sm.sample.pastDue.toLocaleString('en-US')}, trialing ${sm.sample.trialing.toLocaleString('en-US')}, totalCancelled ${sm.sample.totalCancelled.toLocaleString('en-US')}.`);
    if (sr) lines.push('', `Renewal CPU: the ${sr.workers} workers ${fmt(sr.cpuSeconds.workers, 0)} s (${fmt((sr.cpuSeconds.workers * 1000) / sr.subscriptions, 2)} ms per renewal), PostgreSQL ${fmt(sr.cpuSeconds.postgres, 0)} s (${fmt((sr.cpuSeconds.postgres * 1000) / sr.subscriptions, 2)} ms per renewal, all its processes).`);
  }
  return lines;
}

/** P: payouts through the fake Efí. */
function payoutTable(results: Results): string[] {
  const p = results.payouts;
  if (!p) return [];
  const ratio = p.perSecond.two / p.perSecond.one;
  return [
    '',
    `| Payouts through Efí (a fake answering in ${p.latencyMs} ms; issue 35) | Measured | Target | Result |`,
    '| --- | --- | --- | --- |',
    `| Draining ${p.queued.toLocaleString('en-US')} queued withdrawals: 1 worker, 2 workers | ${fmt(p.perSecond.one, 1)} and ${fmt(p.perSecond.two, 1)} sends/s (x${fmt(ratio, 2)}) | reported; the second worker nearly doubles it | ${met(ratio >= 1.7)} |`,
    `| Request to PROCESSING, queue empty, ${p.toProcessing.samples} withdrawals at ~2/s | p99 ${fmt(p.toProcessing.p99, 0)} ms (p50 ${fmt(p.toProcessing.p50, 0)} ms) | p99 <= 2,000 ms | ${met(p.toProcessing.p99 <= 2000)} |`,
    '',
    `Verified: ${p.verified.completed.toLocaleString('en-US')} withdrawals COMPLETED, each sent once at the fake, the ledger balanced.`,
  ];
}

/** R: the reports. */
function reportsTable(results: Results): string[] {
  const lines: string[] = [];
  const rep = results.reports;
  if (rep) {
    lines.push(
      '',
      `| Reports (issue 15): ${rep.rows.toLocaleString('en-US')} transactions of one merchant over ${rep.days} days, ${rep.refunds.toLocaleString('en-US')} refunds, ${REPORT_CONNECTIONS} connection(s), ${REPORT_SECONDS} s each | p50 ms | p99 ms | max ms | req/s | non-2xx | p99 <= ${TARGETS.reportP99Ms} ms |`,
      '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
      ...rep.runs.map((r) => `| ${r.label} | ${fmt(r.p50, 1)} | ${fmt(r.p99, 1)} | ${fmt(r.max, 1)} | ${fmt(r.rps, 1)} | ${r.non2xx + r.errors + r.timeouts} | ${met(r.p99 <= TARGETS.reportP99Ms && r.non2xx === 0)} |`),
      '',
      `Migration 018 totalled the ${rep.rows.toLocaleString('en-US')} transactions and the refunds into ${rep.dailyRows.toLocaleString('en-US')} daily rows in ${fmt(rep.migrationSeconds, 1)} s. ` +
        `A single-row INSERT of a paid transaction (its own commit) took ${fmt(rep.writeCost.with, 3)} ms with the report trigger and ${fmt(rep.writeCost.without, 3)} ms without (medians of 10 rounds of 100, from this process over TCP).`,
      '',
      ...rep.runs.map((r) => `- R ${r.label}: ${cpuLine(r)}`),
      ...rep.indexUse.map((l) => `- ${l}`),
    );
  }
  return lines;
}

const README_HEAD = `# Benchmarks

\`npm run bench\` (bench/run.ts) measures the gateway on real PostgreSQL
(\`DATABASE_URL\`, default \`postgres://postgres@127.0.0.1:5432/test\`) in a fresh schema \`bench_<random>\`,
dropped at the end, also on failure or Ctrl-C. With every scenario it takes well over half an hour on a
2-core machine (S2's 100,000 renewals alone took about 25 minutes on 2026-11-23); \`BENCH_SCENARIOS\` picks some.

## Targets (issue 3)

- PIX creation >= 1,500 creations/s, p99 <= 100 ms, and >= 25% of the floor's throughput.
- 0 non-2xx responses during PIX creation.
- With 1,000,000 transactions stored, a page 10,000 pages deep costs no more than 2x the first page.

## Targets (issue 5)

- The hosted checkout page \`GET /pay/{slug}\` at 100 concurrent requests: first byte p50 <= 20 ms
  (autocannon measures the whole response, an upper bound on the first byte). Method: bench/checkout.ts.

## Targets (issue 4)

- Webhook deliveries from one worker to a local receiver answering 200: >= 1,000/s.
- Time from the commit of a transaction to its first delivery attempt: p50 <= 50 ms, p99 <= 250 ms.
- Method: bench/webhooks.ts. The worker runs in its own process against a local HTTPS receiver
  (self-signed certificate trusted through WEBHOOK_CA_FILE); throughput is a pre-enqueued batch,
  latency is measured on transactions committed at a steady rate.

## Targets (issue 13)

- \`GET /api/subscriptions/metrics\` over 100,000 subscriptions: p99 <= 200 ms (S1, bench/subscriptions.ts:
  a book seeded in SQL over two years, 8 plans, every state; requests one after another).
- Renewal of 100,000 due card subscriptions by 2 worker processes (\`src/main.ts worker\`, the real
  job runner): renewals/s and its ratio to PIX creation (B) of the same run; afterwards every
  subscription renewed exactly once (one new cycle, one PAID transaction) and the ledger balanced (S2).
  \`BENCH_SUBSCRIPTIONS\` (default 100,000) sets both sizes; \`BENCH_RENEWAL_TIMEOUT_S\` (default 3600)
  bounds S2, which then reports (and verifies) the renewals made by then.

## Method

- **A. Floor.** bench/floor.ts, in its own process: a bare Fastify route \`POST /floor\` doing ONE
  \`INSERT\` into \`floor_tx\` (\`LIKE transactions INCLUDING DEFAULTS\`, no foreign keys, only the primary
  key and a \`(user_id, livemode, created_at, id)\` index), pg Pool of 50. autocannon, 50 connections,
  20 s, the same JSON bodies as B.
- **A2. SQL floor** (not a target; a diagnostic). The same process, \`POST /floor-sql\`: the statements
  PIX creation sends (idempotency claim; the creation statement, built by the gateway's own code;
  idempotency response), on the real tables, from raw pg as the same named prepared statements: no validation, schemas or hooks. The gap
  A -> A2 is the cost of the SQL design; A2 -> B, of the application code.
- **B. PIX creation.** bench/server.ts, in its own process: the real app (\`buildApp\`) with a pool of 50,
  rate limit out of the way, \`LOG_LEVEL=warn\`, no background jobs. A merchant and a development key
  are made through the API; then autocannon, 50 connections, 20 s, \`POST /api/v1/transactions\` PIX,
  a unique \`Idempotency-Key\` per request, a valid CPF from a pool of 20,000, the amount varying.
  Any non-2xx response is a failure. The gateway process counts the SQL statements it sends.
- **B2. Open loop** (issue 17). B at a fixed rate: 1,000 requests/s (\`BENCH_OPEN_LOOP_RATE\`), one
  every millisecond whatever the answers, over up to 50 keep-alive connections (\`bench/open-loop.ts\`);
  each latency runs from the request's due time, so a request kept waiting for a free connection
  counts its wait. Not autocannon's \`overallRate\`: that sends each connection's share of the second
  back to back as the second starts (bursts of 50 concurrent requests, then silence), which measures
  a saturated server for part of every second.
- **A3. Floor open loop** (with \`openloop\`). A at B2's fixed rate: what this machine gives one
  INSERT per request at that rate, the load generator beside it; B2's latencies are read against it.
- **B1. Group commit off** (issue 17, the comparison in the same run). B (and B2) against a second
  gateway process with \`BENCH_GROUP_COMMIT=off\`: every creation in a statement of its own.
- **E. Embedded** (issue 17). B against a gateway on PGlite (no \`DATABASE_URL\`) in a fresh data
  directory, with group commit and without (E1). The gateway process also runs the database.
- **C. List depth.** 1,000,000 transactions (\`BENCH_ROWS\`) seeded for one merchant with
  \`INSERT ... SELECT FROM generate_series\` in chunks of 100,000, one second apart, then \`ANALYZE\`.
  \`GET /api/v1/transactions?limit=20\`: the first page vs. the page 10,000 pages deep (after row
  200,000 in createdAt desc order). Walking 10,000 cursors would take too long, so the deep cursor is
  signed here the way the server signs it (the server gets a fixed \`JWT_SECRET\`) and checked to
  return the right rows; both queries' plans are recorded. autocannon, 10 connections, 10 s each, in
  alternating 1 s rounds (first, deep, first, ...) so that a burst of other work hits both alike.
- Warm-up before each measurement (3 s; 1 s per page for C). An open loop (A3, B2) first runs
  ${OPEN_LOOP_WARMUP_SECONDS} s at its rate (\`BENCH_OPEN_LOOP_WARMUP_SECONDS\`), then the checkpoint, then its 3 s:
  3,000 requests leave V8 compiling the request path during the measurement, a closed loop's
  warm-up sends five times as many (2026-11-27 below). Latencies are exact percentiles of the
  2xx responses' times as autocannon measures them; req/s counts 2xx responses only. Floor and
  gateway run one after the other, not together: two pools of 50 would reach max_connections (100).

**Caveat: this machine has 2 cores.** autocannon (bench/run.ts), the server process and PostgreSQL
share them: the load generator takes CPU from the system under test, so every figure is lower than
with the client on another machine. The CPU time each used is printed under the results ("postgres"
is every PostgreSQL process, "other" everything else, e.g. a test suite running meanwhile, which
distorts the figures: the run waits up to \`BENCH_QUIET_WAIT\` s, default 180, for a quiet machine
before each part, then measures anyway and shows it). The gateway is one Node process: it can use
at most one of the two cores.

**The disk.** Each line also counts the stalls of the disk under PostgreSQL's data directory (when
PostgreSQL runs on this machine; bench/disk.ts reads /proc/diskstats every 20 ms): moments of 50 ms
or more in which it had requests in flight and completed none. Every commit of such a moment waits
for its WAL flush, the floor's as the gateway's; at 1,000/s one stall of 100 ms alone puts an open
loop's p99 above 10 ms.

A run killed outright (kill -9) leaves its schema behind; the next run drops such schemas (a
\`bench_*\` schema that no connection is using as its application_name).

Options: \`BENCH_SECONDS\`, \`BENCH_LIST_SECONDS\`, \`BENCH_ROWS\`, \`BENCH_POOL_SIZE\`,
\`BENCH_SCENARIOS=${ALL_SCENARIOS.join(',')}\`, \`BENCH_OPEN_LOOP_RATE\` (B2), \`BENCH_OPEN_LOOP_WARMUP_SECONDS\` (A3, B2: the warm-up at the rate before the checkpoint, default 30), \`BENCH_SLICE_SECONDS\` (AB), \`BENCH_CREATION_BATCH\` (the gateway's creation batching, as JSON over its defaults, e.g. \`{"maxInFlight":3,"minExtraBatch":8}\`), \`BENCH_REPORT_DAYS\` / \`BENCH_REPORT_SECONDS\` / \`BENCH_REPORT_CONNECTIONS\` (R), \`BENCH_WRITE_README=0\` (print only; also when
not every scenario ran), \`BENCH_PROFILE=1\` (CPU profile of the gateway during B and F, summarised; it
slows the gateway down; \`=alloc\`: where its bytes are allocated, \`=promoted\`: which of them survive
the young generation, both through V8's sampling heap profiler), \`BENCH_SERVER_FLAGS\` (Node and V8 flags for the server processes, e.g. \`--trace-gc-nvp\`) with
\`BENCH_SERVER_STDOUT=<file>\` (where what they print goes). Quick check: \`BENCH_SECONDS=5 BENCH_ROWS=100000 BENCH_WRITE_README=0 npm run bench\`.
`;

export function writeReadme(section: string) {
  const file = join(HERE, 'README.md');
  let head = README_HEAD;
  if (existsSync(file)) {
    const current = readFileSync(file, 'utf8');
    const at = current.indexOf('\n## Latest results');
    head = at >= 0 ? current.slice(0, at) : current.trimEnd();
  }
  writeFileSync(file, `${head.trimEnd()}\n\n## Latest results\n\n${section}`);
  console.log(`\nwrote ${file}`);
}
