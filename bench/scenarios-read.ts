// The read scenarios (run.ts describes them): C (list depth) and R (reports), over seeded transactions.
import { setTimeout as sleep } from 'node:timers/promises';
import type autocannon from 'autocannon';
import { loadConfig } from '../src/config.ts';
import { connect } from '../src/db/index.ts';
import { migrations } from '../src/db/migrations/index.ts';
import { Cursors } from '../src/http/pagination.ts';
import { api, type Context, merchant } from './context.ts';
import { type LoadResult, load, merge, waitForQuiet } from './load.ts';
import type { Child } from './processes.ts';
import { DATABASE_URL, DEPTH_PAGES, JWT_SECRET, LIST_CONNECTIONS, LIST_LIMIT, LIST_SECONDS, REPORT_CONNECTIONS, REPORT_DAYS, REPORT_SECONDS, ROWS, SCHEMA } from './settings.ts';
import { fmt } from './stats.ts';

export async function scenarioListDepth(ctx: Context, gw: Child): Promise<void> {
  console.log(`\n[C] list depth: ${ROWS.toLocaleString('en-US')} transactions, GET /api/v1/transactions?limit=${LIST_LIMIT}`);
  const m = await merchant(gw, 'listing');
  await seedTransactions(ctx, m.userId, ROWS);
  const depthPages = Math.min(DEPTH_PAGES, Math.floor(ROWS / LIST_LIMIT) - 2);
  const offset = depthPages * LIST_LIMIT;
  if (depthPages < 1) throw new Error('BENCH_ROWS is too small for the list scenario');
  const order = 'createdAt:desc';
  const { rows } = await ctx.admin.query<{ id: string; created_at: Date }>(
    `SELECT id, created_at FROM transactions WHERE user_id = $1 AND livemode = false ORDER BY created_at DESC, id DESC OFFSET $2 LIMIT 2`,
    [m.userId, offset - 1],
  );
  const cursors = new Cursors(loadConfig({ JWT_SECRET, DATABASE_URL }).cursorSecret);
  const cursor = cursors.of('transactions', { userId: m.userId, livemode: false }).encode({ order, value: rows[0].created_at.toISOString(), id: rows[0].id });
  const firstPath = `/api/v1/transactions?limit=${LIST_LIMIT}`;
  const deepPath = `/api/v1/transactions?limit=${LIST_LIMIT}&cursor=${encodeURIComponent(cursor)}`;
  // The deep page must be the one that follows row `offset - 1`: its first row is row `offset`.
  const check = await api(gw.url, 'GET', deepPath, undefined, { 'api-key': m.key });
  if (check.status !== 200 || check.body.transactions?.length !== LIST_LIMIT || check.body.transactions[0].id !== rows[1].id) {
    throw new Error(`deep page check failed: ${check.status} ${JSON.stringify(check.body).slice(0, 300)}`);
  }
  const first = await api(gw.url, 'GET', firstPath, undefined, { 'api-key': m.key });
  if (first.status !== 200 || first.body.transactions?.length !== LIST_LIMIT) throw new Error(`first page check failed: ${first.status}`);
  await waitForQuiet();
  console.log(`  deep page: ${depthPages.toLocaleString('en-US')} pages deep (rows ${offset + 1}..${offset + LIST_LIMIT} in createdAt desc order), cursor signed like the server's`);

  // The plans of the two queries the list route sends (same shape as Kysely's SQL), as evidence.
  const plans: string[] = [];
  for (const [name, cursorRow] of [['first page', null], ['deep page', rows[0]]] as const) {
    const where = cursorRow ? 'AND (created_at, id) < ($3, $4)' : '';
    const params = cursorRow ? [m.userId, false, cursorRow.created_at, cursorRow.id] : [m.userId, false];
    const { rows: plan } = await ctx.admin.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (ANALYZE, BUFFERS) SELECT * FROM transactions WHERE user_id = $1 AND livemode = $2 ${where} ORDER BY created_at DESC, id DESC LIMIT ${LIST_LIMIT + 1}`,
      params,
    );
    const text = plan.map((r) => r['QUERY PLAN']);
    console.log(`  plan, ${name}:\n${text.map((l) => `    ${l}`).join('\n')}`);
    const scan = text.find((l) => /Scan/.test(l))?.replace(/\s*\(cost=[^)]*\)/, '').replace(/^[\s>-]+/, '') ?? '?';
    const buffers = text.find((l) => /Buffers:/.test(l))?.trim() ?? '';
    const exec = text.find((l) => /Execution Time/.test(l))?.trim() ?? '';
    plans.push(`${name}: ${scan}; ${buffers}; ${exec}`);
  }

  const roles = { [gw.pid]: 'server', [process.pid]: 'autocannon' };
  const opts = (path: string, duration: number): autocannon.Options => ({
    url: gw.url,
    connections: LIST_CONNECTIONS,
    duration,
    requests: [{ method: 'GET', path, headers: { 'api-key': m.key } }],
  });
  await load('warm-up', opts(firstPath, 1), roles, true);
  await load('warm-up', opts(deepPath, 1), roles, true);
  // Alternating rounds, so that a burst of other activity on the machine hits both pages alike.
  const rounds = Math.max(1, LIST_SECONDS);
  const firstParts: LoadResult[] = [];
  const deepParts: LoadResult[] = [];
  for (let i = 0; i < rounds; i++) {
    firstParts.push(await load('first page', opts(firstPath, LIST_SECONDS / rounds), roles, true));
    deepParts.push(await load('deep page', opts(deepPath, LIST_SECONDS / rounds), roles, true));
  }
  const firstResult = merge('first page', firstParts);
  const deepResult = merge(`page ${depthPages}`, deepParts);
  for (const r of [firstResult, deepResult]) {
    console.log(`  ${r.label}: ${fmt(r.rps, 0)} req/s, p50 ${fmt(r.p50, 1)} ms, p99 ${fmt(r.p99, 1)} ms, 2xx ${r.ok}, non-2xx ${r.non2xx}, errors ${r.errors + r.timeouts}`);
  }
  console.log(`  deep / first: p50 x${fmt(deepResult.p50 / firstResult.p50, 2)}, p99 x${fmt(deepResult.p99 / firstResult.p99, 2)}, req/s x${fmt(deepResult.rps / firstResult.rps, 2)}`);
  ctx.results.list = { rows: ROWS, depthPages, offset, first: firstResult, deep: deepResult, plans };
}

/**
 * R: the reports of a merchant with ROWS transactions over REPORT_DAYS days (a third each PIX, boleto,
 * card; 40% paid; one paid payment in 50 refunded), as the dashboard asks for them: one request at a
 * time (REPORT_CONNECTIONS), for 30 and 90 days. The rows are seeded with the report triggers on (the
 * daily totals are built as the rows are written, as in production). The scan counters show what the
 * reports read: the daily totals' primary key, never the transactions.
 */
export async function scenarioReports(ctx: Context, gw: Child): Promise<void> {
  console.log(`\nR. reports: ${ROWS.toLocaleString('en-US')} transactions over ${REPORT_DAYS} days for one merchant`);
  const m = await merchant(gw, 'reports');
  const book = await seedReportBook(ctx, m.userId);
  const writeCost = await reportTriggerCost(ctx, m.userId);

  const indexStats = async () => {
    const { rows } = await ctx.admin.query<{ name: string; scans: string; read: string; fetched: string }>(
      `SELECT indexrelname AS name, idx_scan AS scans, idx_tup_read AS read, idx_tup_fetch AS fetched FROM pg_stat_user_indexes
        WHERE schemaname = current_schema() AND indexrelname IN ('report_days_pkey', 'transactions_user_created', 'transactions_pkey') ORDER BY 1`,
    );
    return rows;
  };
  const roles = { [gw.pid]: 'server', [process.pid]: 'autocannon' };
  const runs: LoadResult[] = [];
  await sleep(1000); // statistics of the seeding reach pg_stat_user_indexes
  const before = await indexStats();
  for (const path of ['/api/v1/reports/summary', '/api/v1/reports/timeseries']) {
    for (const preset of ['30d', '90d']) {
      await waitForQuiet();
      const opts = (duration: number): autocannon.Options => ({
        url: gw.url,
        connections: REPORT_CONNECTIONS,
        duration,
        requests: [{ method: 'GET', path: `${path}?preset=${preset}`, headers: { 'api-key': m.key } }],
      });
      await load('warm-up', opts(1), roles, true);
      runs.push(await load(`${path.split('/').pop()} ${preset}`, opts(REPORT_SECONDS), roles));
    }
  }
  await sleep(1000);
  const after = await indexStats();
  const indexUse = after.map((a) => {
    const b = before.find((x) => x.name === a.name);
    const d = (k: 'scans' | 'read' | 'fetched') => Number(a[k]) - Number(b?.[k] ?? 0);
    return `${a.name}: ${d('scans').toLocaleString('en-US')} scans, ${d('read').toLocaleString('en-US')} index entries read, ${d('fetched').toLocaleString('en-US')} table rows fetched`;
  });
  for (const line of indexUse) console.log(`  ${line}`);
  const check = await fetch(`${gw.url}/api/v1/reports/summary?preset=90d`, { headers: { 'api-key': m.key } });
  const body = (await check.json()) as { data: { current: { paidCount: number; grossCents: number } } };
  console.log(`  90 days: ${body.data.current.paidCount.toLocaleString('en-US')} paid, gross ${body.data.current.grossCents.toLocaleString('en-US')} cents`);
  ctx.results.reports = { rows: ROWS, days: REPORT_DAYS, ...book, writeCost, runs, indexUse };
}

/**
 * R's book: ROWS transactions of one merchant over REPORT_DAYS days and their refunds, seeded with the
 * report triggers off and totalled afterwards by migration 018 itself, as an existing database's rows
 * are (then 023 puts the transactions' triggers per statement back on top of it).
 */
async function seedReportBook(ctx: Context, userId: string): Promise<{ refunds: number; seedSeconds: number; migrationSeconds: number; dailyRows: number }> {
  const started = Date.now();
  await ctx.admin.query('ALTER TABLE transactions DISABLE TRIGGER transactions_report_days_insert');
  await ctx.admin.query('ALTER TABLE refunds DISABLE TRIGGER refunds_report_days');
  await seedTransactions(ctx, userId, ROWS, (REPORT_DAYS * 86_400) / ROWS);
  const refunds = await ctx.admin.query(
    `INSERT INTO refunds (id, user_id, livemode, transaction_id, amount_cents, fee_returned_cents, status, provider, created_at, updated_at)
     SELECT gen_random_uuid(), user_id, livemode, id, amount_cents / 2, 0, 'SUCCEEDED', 'sandbox', paid_at + interval '2 days', paid_at + interval '2 days'
       FROM transactions WHERE user_id = $1 AND status = 'PAID' AND abs(hashtext(id::text)) % 50 = 0 AND paid_at < now() - interval '2 days'`,
    [userId],
  );
  const totalling = Date.now();
  const database = await connect({ url: DATABASE_URL, schema: SCHEMA, poolSize: 1 });
  try {
    await migrations['023_report_days_per_statement'].down!(database.db);
    await migrations['018_report_days'].down!(database.db);
    await migrations['018_report_days'].up(database.db);
    await migrations['023_report_days_per_statement'].up(database.db);
  } finally {
    await database.close();
  }
  const migrationSeconds = (Date.now() - totalling) / 1000;
  await ctx.admin.query('VACUUM ANALYZE transactions');
  await ctx.admin.query('VACUUM ANALYZE refunds');
  await ctx.admin.query('VACUUM ANALYZE report_days');
  const seedSeconds = (Date.now() - started) / 1000;
  const { rows: [days] } = await ctx.admin.query<{ n: string }>('SELECT count(*) AS n FROM report_days');
  console.log(`  ${refunds.rowCount} refunds; migration 018 totalled them into ${days.n} daily rows in ${fmt(migrationSeconds, 1)} s; seeded in ${Math.round(seedSeconds)} s`);
  return { refunds: refunds.rowCount ?? 0, seedSeconds, migrationSeconds, dailyRows: Number(days.n) };
}

/**
 * What the report trigger adds to a write: single-row INSERTs (each its own statement and commit, as a
 * creation is), alternately with and without the trigger, in rounds; the medians in ms.
 */
async function reportTriggerCost(ctx: Context, userId: string): Promise<{ with: number; without: number }> {
  const insertMs = { with: [] as number[], without: [] as number[] };
  const { rows: [sample] } = await ctx.admin.query<{ id: string }>('SELECT id FROM transactions WHERE user_id = $1 LIMIT 1', [userId]);
  // LATERAL: `(f(row)).*` in a select list would call f once per column of the row, not once.
  const insertOne = `INSERT INTO transactions SELECT r.* FROM transactions t, LATERAL jsonb_populate_record(null::transactions, to_jsonb(t) || jsonb_build_object(
      'id', gen_random_uuid(), 'display_id', 'W' || md5(random()::text), 'pix_txid', null, 'created_at', now(), 'paid_at', now())) r WHERE t.id = $1`;
  for (let round = 0; round < 10; round++) {
    for (const mode of ['with', 'without'] as const) {
      if (mode === 'without') await ctx.admin.query('ALTER TABLE transactions DISABLE TRIGGER transactions_report_days_insert');
      const t0 = performance.now();
      for (let i = 0; i < 100; i++) await ctx.admin.query(insertOne, [sample.id]);
      insertMs[mode].push((performance.now() - t0) / 100);
      if (mode === 'without') await ctx.admin.query('ALTER TABLE transactions ENABLE TRIGGER transactions_report_days_insert');
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const writeCost = { with: median(insertMs.with), without: median(insertMs.without) };
  console.log(`  single-row INSERT (paid), median of 10 rounds of 100: ${fmt(writeCost.with, 3)} ms with the report trigger, ${fmt(writeCost.without, 3)} ms without`);
  return writeCost;
}

/**
 * ROWS transactions for one merchant straight into the table, in chunks; then ANALYZE. The newest
 * one minute ago, the others `spacingSeconds` apart going back (C: one second; R: a year's worth).
 */
async function seedTransactions(ctx: Context, userId: string, rows: number, spacingSeconds = 1) {
  const started = Date.now();
  const document = ctx.cpfs[0];
  const {
    rows: [client],
  } = await ctx.admin.query<{ id: string }>(
    `INSERT INTO clients (id, user_id, livemode, name, email, document, created_at, updated_at)
     VALUES (gen_random_uuid(), $1, false, 'Cliente Seed', 'seed@example.com', $2, now(), now()) RETURNING id`,
    [userId, document],
  );
  // Newest row (g = 1) one minute ago, then going back; ms precision like the API's.
  const base = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
  const chunk = 100_000;
  for (let from = 1; from <= rows; from += chunk) {
    const to = Math.min(rows, from + chunk - 1);
    await ctx.admin.query(
      `INSERT INTO transactions (id, user_id, livemode, display_id, product, amount_cents, charged_cents, fee_cents, status, payment_method,
         client_id, client_name, client_email, client_document, installments, card_brand, card_last4, pix_txid, pix_qr_code,
         boleto_barcode, boleto_line, due_date, expires_at, provider, authorized_at, paid_at, created_at, updated_at)
       SELECT
         -- time-ordered ids, like uuidv7(): 48 bits of ms, then pseudo-random bits
         (lpad(to_hex((extract(epoch FROM x.at) * 1000)::bigint), 12, '0') || '7' || substr(md5(g::text), 1, 3) || '8' || substr(md5(g::text), 4, 15))::uuid,
         $1, false, 'S' || lpad(g::text, 9, '0'), 'Pedido ' || (g % 1000), x.amount, x.amount,
         CASE x.method WHEN 'PIX' THEN x.amount * 99 / 10000 WHEN 'BOLETO' THEN 349 ELSE x.amount * 399 / 10000 + 39 END,
         x.status, x.method, $2, 'Cliente Seed', 'seed@example.com', $3, 1,
         CASE WHEN x.method = 'CARD' THEN 'visa' END, CASE WHEN x.method = 'CARD' THEN '4242' END,
         CASE WHEN x.method = 'PIX' THEN 'SEED' || lpad(g::text, 21, '0') END, CASE WHEN x.method = 'PIX' THEN $4 END,
         CASE WHEN x.method = 'BOLETO' THEN lpad(g::text, 44, '0') END, CASE WHEN x.method = 'BOLETO' THEN lpad(g::text, 47, '0') END,
         CASE WHEN x.method = 'BOLETO' THEN (x.at + interval '3 days')::date END,
         CASE WHEN x.method = 'PIX' THEN x.at + interval '1 day' WHEN x.method = 'BOLETO' THEN x.at + interval '3 days' END,
         'sandbox', CASE WHEN x.status = 'PAID' AND x.method = 'CARD' THEN x.at END,
         CASE WHEN x.status = 'PAID' THEN x.at + interval '1 minute' END, x.at, x.at
       FROM generate_series($5::int, $6::int) AS g
       CROSS JOIN LATERAL (SELECT
         (ARRAY['PIX','BOLETO','CARD'])[1 + g % 3] AS method,
         (ARRAY['PENDING','PAID','PAID','EXPIRED','FAILED'])[1 + g % 5] AS status,
         100 + (g::bigint * 7919) % 99900 AS amount,
         date_trunc('milliseconds', $7::timestamptz - g * $8::float8 * interval '1 second') AS at) AS x`,
      [userId, client.id, document, ctx.qrCode, from, to, base, spacingSeconds],
    );
    process.stdout.write(`\r  seeding: ${to.toLocaleString('en-US')} / ${rows.toLocaleString('en-US')} rows (${Math.round((Date.now() - started) / 1000)} s)`);
  }
  await ctx.admin.query('ANALYZE transactions');
  console.log(`\n  seeded and analysed in ${Math.round((Date.now() - started) / 1000)} s`);
}
