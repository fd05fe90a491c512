// The write scenarios (run.ts describes them): A, A2, A3 (the floor), B, B1, B2 (PIX creation), F
// (status changes), AB (A and B interleaved), E (embedded PGlite).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { api, type Context, type GatewayResult, merchant, pixBody, settle } from './context.ts';
import { closedLoop, cpuLine, type LoadResult, load, loadOpen, merge, waitForQuiet } from './load.ts';
import type { OpenLoopOptions } from './open-loop.ts';
import type { ChildStats } from './child.ts';
import { type Child, startChild, startGateway } from './processes.ts';
import { summarizeProfile } from './profile.ts';
import { CONNECTIONS, OPEN_LOOP_RATE, OPEN_LOOP_WARMUP_SECONDS, POOL_SIZE, PROFILE, runId, SCENARIOS, SECONDS, SLICE_SECONDS, WARMUP_SECONDS } from './settings.ts';
import { batchesLines, fmt } from './stats.ts';

/**
 * The floor's process (bench/floor.ts) around `run`: A and A2. Its table and merchant are made the
 * first time. It is stopped before the gateway starts: both pools at once (50 + 50) would reach
 * max_connections (100).
 */
export async function withFloor(ctx: Context, run: (floor: Child) => Promise<void>): Promise<void> {
  if (!ctx.floorUserId) {
    await ctx.admin.query(`CREATE TABLE floor_tx (LIKE transactions INCLUDING DEFAULTS)`);
    await ctx.admin.query(`ALTER TABLE floor_tx ADD PRIMARY KEY (id)`);
    await ctx.admin.query(`CREATE INDEX floor_tx_user_created ON floor_tx (user_id, livemode, created_at, id)`);
    const {
      rows: [user],
    } = await ctx.admin.query<{ id: string }>(
      `INSERT INTO users (id, name, email, password_hash, referral_code) VALUES (gen_random_uuid(), 'Floor', $1, 'x', $2) RETURNING id`,
      [`floor.${runId}@example.com`, `FLOOR${runId}`.toUpperCase()],
    );
    ctx.floorUserId = user.id;
  }
  const floor = await startChild('floor', 'floor.ts', { DATABASE_POOL_SIZE: String(POOL_SIZE), FLOOR_USER_ID: ctx.floorUserId });
  try {
    await run(floor);
  } finally {
    await floor.stop();
  }
}

/**
 * The warm-up of a fixed-rate load: OPEN_LOOP_WARMUP_SECONDS at the rate, a checkpoint (settle: the
 * database as every measurement starts it), then `opts.seconds` more at the rate. V8 optimises a
 * process's code for what it has seen: a fresh gateway and its client, warmed by 3,000 requests,
 * still compiled with TurboFan during the measurement (perf, 2026-11-27: both processes' compiler
 * threads at once, about 10,500 requests in, up to a core of the 2 for some 200 ms, and again later),
 * and every request of those moments waited; a warm-up at five times the rate left code optimised
 * for big batches, deoptimised and compiled again at the rate. bench/README.md, 2026-11-27.
 */
async function warmUpOpen(ctx: Context, opts: OpenLoopOptions, roles: Record<number, string>): Promise<void> {
  if (OPEN_LOOP_WARMUP_SECONDS) await loadOpen('warm-up', { ...opts, seconds: OPEN_LOOP_WARMUP_SECONDS }, roles, true);
  await settle(ctx);
  await loadOpen('warm-up', opts, roles, true);
}

export async function floorOnly(ctx: Context, floor: Child): Promise<void> {
  await settle(ctx);
  console.log(`\n[A] floor: POST /floor, ${CONNECTIONS} connections, ${SECONDS} s`);
  const roles = { [floor.pid]: 'server', [process.pid]: 'autocannon' };
  const request = () => ({ method: 'POST', path: '/floor', headers: { 'content-type': 'application/json' }, body: pixBody(ctx) });
  await load('warm-up', closedLoop(floor.url, WARMUP_SECONDS, request), roles, true);
  await floor.reset();
  const result = await load('floor', closedLoop(floor.url, SECONDS, request), roles);
  const stats = await floor.stats();
  const serverCpuMsPerRequest = stats.cpuMs / Math.max(1, result.ok + result.non2xx);
  console.log(`  floor process CPU: ${fmt(serverCpuMsPerRequest, 3)} ms per request`);
  ctx.results.floor = { ...result, serverCpuMsPerRequest };
  if (SCENARIOS.includes('openloop')) {
    // A3: the floor at B2's fixed rate: the latency this machine gives one INSERT per request with
    // the load generator beside it, for B2 to be read against (settled by its warm-up).
    console.log(`\n[A3] floor at ${OPEN_LOOP_RATE.toLocaleString('en-US')}/s (open loop): POST /floor, up to ${CONNECTIONS} connections, ${SECONDS} s`);
    const opts = (seconds: number): OpenLoopOptions => ({ url: floor.url, rate: OPEN_LOOP_RATE, seconds, connections: CONNECTIONS, request });
    await warmUpOpen(ctx, opts(WARMUP_SECONDS), roles);
    ctx.results.floorOpenLoop = await loadOpen('floor open loop', opts(SECONDS), roles);
  }
}

/**
 * A2: the same SQL statements as PIX creation from raw pg
 * in a bare route: separates the cost of the SQL design from the cost of the application code.
 */
export async function scenarioFloorSql(ctx: Context, floor: Child): Promise<void> {
  await settle(ctx);
  console.log(`\n[A2] SQL floor: POST /floor-sql (PIX creation's statement, raw pg), ${CONNECTIONS} connections, ${SECONDS} s`);
  const roles = { [floor.pid]: 'server', [process.pid]: 'autocannon' };
  let key = 0;
  const opts = (duration: number): autocannon.Options => ({
    url: floor.url,
    connections: CONNECTIONS,
    duration,
    requests: [
      {
        method: 'POST',
        path: '/floor-sql',
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => ({ ...req, headers: { ...req.headers, 'idempotency-key': `floor-${runId}-${key++}` }, body: pixBody(ctx) }),
      },
    ],
  });
  await load('warm-up', opts(WARMUP_SECONDS), roles, true);
  await floor.reset();
  const result = await load('SQL floor', opts(SECONDS), roles);
  const stats = await floor.stats();
  const sent = Math.max(1, result.ok + result.non2xx);
  const total = Object.values(stats.queries).reduce((a, b) => a + b, 0);
  console.log(`  statements per request: ${fmt(total / sent, 2)}; floor process CPU: ${fmt(stats.cpuMs / sent, 3)} ms per request; PostgreSQL CPU ${fmt(((result.cpu.seconds.postgres ?? 0) * 1000) / sent, 2)} ms per request`);
  ctx.results.floorSql = { ...result, serverCpuMsPerRequest: stats.cpuMs / sent };
}

/**
 * PIX creations through a gateway process, a unique Idempotency-Key per request: 50 connections as
 * fast as they go, or with `rate`, that many requests per second from all of them together.
 */
async function creationLoad(ctx: Context, gw: Child, label: string, rate?: number): Promise<GatewayResult> {
  const m = await merchant(gw, label.toLowerCase().replace(/[^a-z0-9]+/g, '-'));
  // One request first, to check the shape before hammering.
  const probe = await api(gw.url, 'POST', '/api/v1/transactions', JSON.parse(pixBody(ctx)), { 'api-key': m.key, 'idempotency-key': `probe-${runId}-${label}` });
  if (probe.status !== 201 || !probe.body.transaction?.pix?.qrCode) throw new Error(`PIX creation probe failed: ${probe.status} ${JSON.stringify(probe.body)}`);
  let key = 0;
  const request = () => ({
    method: 'POST',
    path: '/api/v1/transactions',
    headers: { 'content-type': 'application/json', 'api-key': m.key, 'idempotency-key': `bench-${runId}-${label}-${key++}` },
    body: pixBody(ctx),
  });
  return gatewayLoad(ctx, gw, label, request, rate);
}

/**
 * A warm-up, then SECONDS of `request` against the gateway (with a rate, an open loop, bench/open-loop.ts,
 * not autocannon's overallRate: bursts, see there; else a closed loop), and what the gateway
 * process reports of it: statements, CPU, event loop, GC, its CPU profile with BENCH_PROFILE.
 */
async function gatewayLoad(ctx: Context, gw: Child, label: string, request: OpenLoopOptions['request'], rate?: number): Promise<GatewayResult> {
  const roles = { [gw.pid]: 'server', [process.pid]: 'autocannon' };
  const run = (name: string, seconds: number, quiet = false) =>
    rate
      ? loadOpen(name, { url: gw.url, rate, seconds, connections: CONNECTIONS, request }, roles, quiet)
      : load(name, closedLoop(gw.url, seconds, request), roles, quiet);
  if (rate) await warmUpOpen(ctx, { url: gw.url, rate, seconds: WARMUP_SECONDS, connections: CONNECTIONS, request }, roles);
  else await run('warm-up', WARMUP_SECONDS, true);
  await gw.reset();
  const profileFile = join(os.tmpdir(), `cofre-bench-${runId}-${label.replace(/[^A-Za-z0-9]+/g, '-')}.${PROFILE === 'cpu' ? 'cpuprofile' : 'heapprofile'}`);
  if (PROFILE) await gw.profileStart(PROFILE);
  const result = await run(label, SECONDS);
  if (PROFILE) await gw.profileStop(profileFile);
  const stats = await gw.stats();
  const sent = Math.max(1, result.ok + result.non2xx);
  const queriesPerRequest = Object.fromEntries(
    Object.entries(stats.queries)
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => [k, v / sent]),
  );
  const total = Object.values(queriesPerRequest).reduce((a, b) => a + b, 0);
  console.log(`  non-2xx responses: ${result.non2xx}${result.non2xx ? ` (status codes ${JSON.stringify(result.statusCodes)})` : ' (none, as required)'}`);
  console.log(`  statements per request: ${fmt(total, 2)} (${Object.entries(queriesPerRequest).map(([k, v]) => `${k} ${fmt(v, 2)}`).join(', ')})`);
  console.log(`  gateway process CPU: ${fmt(stats.cpuMs / sent, 2)} ms per request (kernel ${fmt(stats.systemMs / sent, 2)} ms)`);
  for (const line of timingLines(stats)) console.log(`  ${line}`);
  if (PROFILE) console.log(summarizeProfile(profileFile, sent));
  return { ...result, queriesPerRequest, serverCpuMsPerRequest: stats.cpuMs / sent, serverSystemMsPerRequest: stats.systemMs / sent };
}

/** Where a gateway's requests spent their time: its event loop, its GC pauses, its creation and status-change batches. */
export function timingLines(stats: ChildStats): string[] {
  return [
    `gateway event loop delay p50 ${fmt(stats.loopDelay.p50, 1)} ms, p99 ${fmt(stats.loopDelay.p99, 1)} ms, max ${fmt(stats.loopDelay.max, 1)} ms; ` +
      `GC ${stats.gc.count} pauses, ${fmt(stats.gc.totalMs, 0)} ms in all, longest ${fmt(stats.gc.maxMs, 1)} ms (${stats.gc.majorCount} mark-compact, longest ${fmt(stats.gc.majorMaxMs, 1)} ms); ` +
      `time inside the gateway p50 ${fmt(stats.served.p50, 1)} ms, p99 ${fmt(stats.served.p99, 1)} ms`,
    ...batchesLines(stats),
  ];
}

/** B: PIX creation through the real gateway, a unique Idempotency-Key per request. */
export async function scenarioPixCreation(ctx: Context, gw: Child): Promise<void> {
  await settle(ctx);
  console.log(`\n[B] PIX creation: POST /api/v1/transactions, ${CONNECTIONS} connections, ${SECONDS} s`);
  ctx.results.creation = await creationLoad(ctx, gw, 'PIX creation');
}

/**
 * F: status changes, the sandbox's POST /api/v1/transactions/{id}/simulate PAID, each on a PENDING
 * PIX transaction of its own (seeded in SQL), 50 connections: every one a locked row, a ledger
 * journal on the merchant's accounts, events. Afterwards the ledger is checked.
 */
export async function scenarioSimulate(ctx: Context, gw: Child, label: string): Promise<GatewayResult> {
  const m = await merchant(gw, label.toLowerCase());
  const n = 400_000;
  const { rows: [client] } = await ctx.admin.query<{ id: string }>(
    `INSERT INTO clients (id, user_id, livemode, name, email, document, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, false, 'Cliente Seed', 'seed@example.com', $2, now(), now()) RETURNING id`,
    [m.userId, ctx.cpfs[0]],
  );
  // Display ids and txids unique to this label (F and F1 run in one schema).
  const { rows } = await ctx.admin.query<{ id: string }>(
    `INSERT INTO transactions (id, user_id, livemode, display_id, product, amount_cents, charged_cents, fee_cents, status, payment_method,
       client_id, client_name, client_email, client_document, installments, pix_txid, pix_qr_code, expires_at, provider, created_at, updated_at)
     SELECT gen_random_uuid(), $1, false, rpad($6, 2, 'X') || lpad(g::text, 8, '0'), 'Pedido', 1000, 1000, 10, 'PENDING', 'PIX', $2, 'Cliente Seed',
       'seed@example.com', $3, 1, 'S' || rpad($6, 4, 'X') || lpad(g::text, 20, '0'), $4, now() + interval '1 day', 'sandbox', now(), now()
     FROM generate_series(1, $5::int) g RETURNING id`,
    [m.userId, client.id, ctx.cpfs[0], ctx.qrCode, n, label],
  );
  await ctx.admin.query('ANALYZE transactions');
  await settle(ctx);
  console.log(`\n[${label}] status changes: POST /api/v1/transactions/{id}/simulate PAID, ${CONNECTIONS} connections, ${SECONDS} s`);
  let next = 0;
  const request = () => ({
    method: 'POST',
    path: `/api/v1/transactions/${rows[next++ % n].id}/simulate`,
    headers: { 'content-type': 'application/json', 'api-key': m.key },
    body: '{"outcome":"PAID"}',
  });
  const result = await gatewayLoad(ctx, gw, `${label} simulate PAID`, request);
  console.log(`  ${cpuLine(result)}`);
  const { rows: [check] } = await ctx.admin.query(
    `SELECT (SELECT count(*) FROM transactions WHERE user_id = $1 AND status = 'PAID')::int AS paid,
            (SELECT coalesce(sum(amount_cents), 0) FROM ledger_entries)::bigint AS entries,
            (SELECT count(*) FROM ledger_accounts a WHERE a.balance_cents <> (SELECT coalesce(sum(e.amount_cents), 0) FROM ledger_entries e WHERE e.account_id = a.id))::int AS off`,
    [m.userId],
  );
  console.log(`  paid ${check.paid} (warm-up included), ledger entries sum ${check.entries}, accounts off their entries ${check.off}`);
  if (Number(check.entries) !== 0 || check.off !== 0 || result.non2xx + result.errors > 0) process.exitCode = 1;
  return result;
}

/**
 * B2: the same creations at a fixed rate (OPEN_LOOP_RATE per second, one every 1/rate s, over up to
 * 50 connections): the latency a steady load sees, rather than the throughput of a saturating one.
 */
export async function scenarioOpenLoop(ctx: Context, gw: Child, label: string): Promise<GatewayResult> {
  // Settled by its warm-up (warmUpOpen).
  console.log(`\n[${label}] PIX creation at ${OPEN_LOOP_RATE.toLocaleString('en-US')}/s: POST /api/v1/transactions, ${CONNECTIONS} connections, ${SECONDS} s`);
  return creationLoad(ctx, gw, `${label} open loop`, OPEN_LOOP_RATE);
}

/**
 * AB: the floor (A) and PIX creation (B) in alternating slices of SLICE_SECONDS (A B, then B A, ...),
 * both servers up, until each has run SECONDS; with openloop, A3 and B2 the same way. A run of A
 * then a run of B a minute apart measures two moments of a host whose speed drifts by tens of per
 * cent in minutes (bench/README.md); slices put both in the same moments, and the ratio of each
 * pair of neighbouring slices shows how much a single ratio can be trusted. Both pools at once:
 * the floor's 50 connections and the few the gateway's group commit uses stay under max_connections.
 */
export async function scenarioInterleaved(ctx: Context): Promise<void> {
  await withFloor(ctx, async (floor) => {
    const gw = await startGateway();
    try {
      const m = await merchant(gw, 'interleaved');
      let key = 0;
      const floorRequest = () => ({ method: 'POST', path: '/floor', headers: { 'content-type': 'application/json' }, body: pixBody(ctx) });
      const creationRequest = () => ({
        method: 'POST',
        path: '/api/v1/transactions',
        headers: { 'content-type': 'application/json', 'api-key': m.key, 'idempotency-key': `ab-${runId}-${key++}` },
        body: pixBody(ctx),
      });
      const roles = { [floor.pid]: 'server', [gw.pid]: 'server', [process.pid]: 'autocannon' };
      const rounds = Math.max(2, Math.round(SECONDS / SLICE_SECONDS));
      const slices = async (label: string, rate: number | undefined) => {
        const run = (url: string, request: OpenLoopOptions['request'], seconds: number) =>
          rate ? loadOpen(label, { url, rate, seconds, connections: CONNECTIONS, request }, roles, true) : load(label, closedLoop(url, seconds, request), roles, true);
        await settle(ctx);
        console.log(`\n[${label}] ${rate ? `A3 and B2 at ${rate.toLocaleString('en-US')}/s` : 'A and B'} in alternating slices: ${rounds} x ${SLICE_SECONDS} s each, ${CONNECTIONS} connections`);
        const warmUp = (url: string, request: OpenLoopOptions['request']) =>
          rate ? warmUpOpen(ctx, { url, rate, seconds: WARMUP_SECONDS, connections: CONNECTIONS, request }, roles) : run(url, request, WARMUP_SECONDS);
        await warmUp(floor.url, floorRequest);
        await warmUp(gw.url, creationRequest);
        await floor.reset();
        await gw.reset();
        const a: LoadResult[] = [];
        const b: LoadResult[] = [];
        for (let round = 0; round < rounds; round++) {
          for (const side of round % 2 ? ['B', 'A'] : ['A', 'B']) {
            if (side === 'A') a.push(await run(floor.url, floorRequest, SLICE_SECONDS));
            else b.push(await run(gw.url, creationRequest, SLICE_SECONDS));
          }
        }
        const [floorStats, gwStats] = [await floor.stats(), await gw.stats()];
        const A = merge(rate ? 'floor open loop' : 'floor', a);
        const B = merge(rate ? 'B2 open loop' : 'PIX creation', b);
        const served = (r: LoadResult) => Math.max(1, r.ok + r.non2xx);
        const pg = (r: LoadResult) => ((r.cpu.seconds.postgres ?? 0) * 1000) / served(r);
        for (const r of [A, B]) {
          console.log(`  ${r.label}: ${fmt(r.rps, 0)} req/s, p50 ${fmt(r.p50, 1)} ms, p99 ${fmt(r.p99, 1)} ms, 2xx ${r.ok}, non-2xx ${r.non2xx}, errors ${r.errors}, timeouts ${r.timeouts}`);
        }
        console.log(`  CPU per request: floor process ${fmt(floorStats.cpuMs / served(A), 3)} ms, PostgreSQL ${fmt(pg(A), 3)} ms; gateway ${fmt(gwStats.cpuMs / served(B), 3)} ms, PostgreSQL ${fmt(pg(B), 3)} ms`);
        const creation: GatewayResult = { ...B, queriesPerRequest: {}, serverCpuMsPerRequest: gwStats.cpuMs / served(B), serverSystemMsPerRequest: gwStats.systemMs / served(B) };
        return { A, B: creation, ratios: b.map((x, i) => x.rps / a[i].rps) };
      };
      const closed = await slices('AB', undefined);
      const sorted = [...closed.ratios].sort((x, y) => x - y);
      console.log(`  B / A: ${fmt((closed.B.rps / closed.A.rps) * 100, 1)}% over all slices; per pair of neighbouring slices median ${fmt(sorted[sorted.length >> 1] * 100, 1)}%, from ${fmt(sorted[0] * 100, 1)}% to ${fmt(sorted[sorted.length - 1] * 100, 1)}%`);
      ctx.results.interleaved = { floor: closed.A, creation: closed.B, ratios: closed.ratios };
      if (SCENARIOS.includes('openloop')) {
        const open = await slices('AB open loop', OPEN_LOOP_RATE);
        Object.assign(ctx.results.interleaved, { floorOpenLoop: open.A, openLoop: open.B });
      }
      if (closed.B.non2xx + closed.B.errors + closed.B.timeouts > 0) process.exitCode = 1;
    } finally {
      await gw.stop();
    }
  });
}

/**
 * B1: B with group commit off (BENCH_GROUP_COMMIT=off: every creation in a statement of its own, as
 * before issue 17), and B2 on it too when asked: the comparison, in the same run.
 */
export async function scenarioSingleStatements(ctx: Context): Promise<void> {
  const gw = await startGateway({ BENCH_GROUP_COMMIT: 'off' });
  try {
    await settle(ctx);
    console.log(`\n[B1] PIX creation, group commit off: POST /api/v1/transactions, ${CONNECTIONS} connections, ${SECONDS} s`);
    ctx.results.creationSingle = await creationLoad(ctx, gw, 'B1 one statement per creation');
    if (SCENARIOS.includes('openloop')) ctx.results.openLoopSingle = await scenarioOpenLoop(ctx, gw, 'B2-1');
    if (SCENARIOS.includes('simulate')) ctx.results.simulateSingle = await scenarioSimulate(ctx, gw, 'F1');
  } finally {
    await gw.stop();
  }
}

/**
 * E: PIX creation on the embedded database (PGlite in a fresh data directory, one connection), with
 * group commit and without it (E1). The gateway process runs the database too.
 */
export async function scenarioEmbedded(ctx: Context): Promise<void> {
  for (const [label, env] of [
    ['E embedded', {}],
    ['E1 embedded, one statement per creation', { BENCH_GROUP_COMMIT: 'off' }],
  ] as const) {
    const dir = mkdtempSync(join(os.tmpdir(), 'cofre-bench-embedded-'));
    const gw = await startGateway({ ...env, BENCH_EMBEDDED_DIR: dir });
    try {
      await waitForQuiet();
      console.log(`\n[${label}] PIX creation on PGlite (${dir}): POST /api/v1/transactions, ${CONNECTIONS} connections, ${SECONDS} s`);
      const result = await creationLoad(ctx, gw, label);
      if (label === 'E embedded') ctx.results.embedded = result;
      else ctx.results.embeddedSingle = result;
    } finally {
      await gw.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
