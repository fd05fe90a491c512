// SP: a PIX sale split three ways (issue 38) beside the same sale without a split, in one gateway
// process and database, one seller: (1) creations/s, POST /api/v1/transactions with and without
// `split`; (2) confirmations/s of those same sales, POST .../simulate PAID (the PAID journal, with the
// three shares, their transaction_splits rows and events in it). Each pair in alternating slices of
// SLICE_SECONDS (plain split, then split plain, ...): the host drifts by tens of per cent in minutes,
// so both sides must see the same moments. Target (issue 38): the split side >= 90% of the plain one.
// The recipients are merchants registered through the API that accepted the seller's invitation
// (POST /api/v1/split-partners, then .../accept). Afterwards, in SQL: every user's accounts sum
// to zero, every account equals its entries, every paid split sale has exactly 3 shares.
import os from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { api, type Context, merchant, pixBody, settle } from './context.ts';
import { closedLoop, cpuLine, type LoadResult, load, merge } from './load.ts';
import type { OpenLoopOptions } from './open-loop.ts';
import type { Child } from './processes.ts';
import { summarizeProfile } from './profile.ts';
import { PROFILE, runId, SECONDS, SLICE_SECONDS, WARMUP_SECONDS } from './settings.ts';
import { fmt, met } from './stats.ts';

export const SPLIT_TARGET = 0.9;
const RECIPIENTS = 3;

type Request = OpenLoopOptions['request'];

/** One side of a pair: its slices merged, with what the gateway process did for it. */
export interface SplitSide extends LoadResult {
  /** Statements the gateway sent per request, by "verb table". */
  statements: Record<string, number>;
  gatewayCpuMs: number;
  postgresCpuMs: number;
}

export interface SplitPair {
  plain: SplitSide;
  split: SplitSide;
  /** split / plain of each pair of neighbouring slices. */
  ratios: number[];
}

export interface SplitVerified {
  /** Split sales paid, and those of them with exactly RECIPIENTS shares. */
  splitPaid: number;
  withAllShares: number;
  /** Shares on sales created without a split (must be 0). */
  strayShares: number;
  /** Users whose accounts do not sum to zero; accounts off their entries; journals not summing to zero. */
  usersOff: number;
  accountsOff: number;
  journalsOff: number;
  /** What the recipients hold (available) against the sum of their shares. */
  recipientsHeld: number;
  sharesSum: number;
}

export interface SplitBenchResult {
  creation: SplitPair;
  confirmation: SplitPair;
  /** The floor (A) of the same run, when it ran (BENCH_SCENARIOS=floor,split). */
  floor: LoadResult | null;
  /** The 1, 5 and 15 minute load averages when the scenario started and when it ended. */
  loadAverage: { start: number[]; end: number[] };
  verified: SplitVerified;
}

interface Parties {
  seller: { userId: string; key: string };
  recipients: { userId: string; walletId: string }[];
  /** The `split` member of a creation's body, as JSON. */
  rule: string;
}

/**
 * The seller and its recipients, each rule kind once: 10% of the net, 5% of the gross bearing its
 * part of the fee, a fixed 25 cents (fits the smallest sale pixBody makes, 100 cents).
 */
async function parties(gw: Child): Promise<Parties> {
  const seller = await merchant(gw, 'split-seller');
  const recipients: Parties['recipients'] = [];
  for (let i = 0; i < RECIPIENTS; i++) {
    const r = await merchant(gw, `split-recipient-${i}`);
    // The recipient accepts the seller's invitation, as a partner does through the API.
    const walletId = (await api(gw.url, 'GET', '/api/v1/balance', undefined, { 'api-key': r.key })).body.walletId as string;
    const invited = await api(gw.url, 'POST', '/api/v1/split-partners', { walletId }, { 'api-key': seller.key });
    if (invited.status !== 201) throw new Error(`split partner invitation: ${invited.status} ${JSON.stringify(invited.body)}`);
    const accepted = await api(gw.url, 'POST', `/api/v1/split-partners/${invited.body.data.id}/accept`, {}, { 'api-key': r.key });
    if (accepted.status !== 200) throw new Error(`split partner acceptance: ${accepted.status} ${JSON.stringify(accepted.body)}`);
    recipients.push({ userId: r.userId, walletId });
  }
  const [a, b, c] = recipients.map((r) => r.walletId);
  const rule = JSON.stringify([
    { walletId: a, percentageBp: 1000 },
    { walletId: b, percentageBp: 500, basis: 'GROSS', chargeFees: true },
    { walletId: c, fixedCents: 25 },
  ]);
  return { seller, recipients, rule };
}

/** A creation with and without the split, and a confirmation of it, checked once through the API before the load. */
async function probe(ctx: Context, gw: Child, p: Parties): Promise<void> {
  const headers = (n: string) => ({ 'api-key': p.seller.key, 'idempotency-key': `split-probe-${runId}-${n}` });
  const plain = await api(gw.url, 'POST', '/api/v1/transactions', JSON.parse(pixBody(ctx)), headers('plain'));
  const split = await api(gw.url, 'POST', '/api/v1/transactions', { ...JSON.parse(pixBody(ctx)), split: JSON.parse(p.rule) }, headers('split'));
  if (plain.status !== 201 || split.status !== 201) throw new Error(`split probe: creations ${plain.status} ${split.status} ${JSON.stringify(split.body)}`);
  const paid = await api(gw.url, 'POST', `/api/v1/transactions/${split.body.transaction.id}/simulate`, { outcome: 'PAID' }, { 'api-key': p.seller.key });
  if (paid.status !== 200) throw new Error(`split probe: simulate ${paid.status} ${JSON.stringify(paid.body)}`);
  const shares = await api(gw.url, 'GET', `/api/v1/transactions/${split.body.transaction.id}/splits`, undefined, { 'api-key': p.seller.key });
  if (shares.status !== 200 || shares.body.data?.length !== RECIPIENTS) throw new Error(`split probe: shares ${shares.status} ${JSON.stringify(shares.body)}`);
}

/** The two creation requests: the same bodies as B, one of them with the rule (spliced in, no JSON round trip in the load generator). */
function creationRequests(ctx: Context, p: Parties): { plain: Request; split: Request } {
  let key = 0;
  const request = (body: string) => ({
    method: 'POST',
    path: '/api/v1/transactions',
    headers: { 'content-type': 'application/json', 'api-key': p.seller.key, 'idempotency-key': `split-${runId}-${key++}` },
    body,
  });
  return { plain: () => request(pixBody(ctx)), split: () => request(`${pixBody(ctx).slice(0, -1)},"split":${p.rule}}`) };
}

/** The seller's PENDING sales from the creations, with and without a split: what the confirmations pay. */
async function confirmationRequests(ctx: Context, p: Parties): Promise<{ plain: Request; split: Request; available: { plain: number; split: number } }> {
  const pending = async (split: boolean) =>
    (
      await ctx.admin.query<{ id: string }>(`SELECT id FROM transactions WHERE user_id = $1 AND status = 'PENDING' AND (split IS NOT NULL) = $2 ORDER BY created_at`, [
        p.seller.userId,
        split,
      ])
    ).rows.map((r) => r.id);
  const ids = { plain: await pending(false), split: await pending(true) };
  // Past the last one, a sale comes round again: already PAID, a non-2xx the report shows.
  const next = (list: string[]) => {
    let i = 0;
    return () => ({ method: 'POST', path: `/api/v1/transactions/${list[i++ % list.length]}/simulate`, headers: { 'content-type': 'application/json', 'api-key': p.seller.key }, body: '{"outcome":"PAID"}' });
  };
  return { plain: next(ids.plain), split: next(ids.split), available: { plain: ids.plain.length, split: ids.split.length } };
}

/**
 * A warm-up of each side, then slices of SLICE_SECONDS in turn (plain split, split plain, ...) until
 * each has run SECONDS; the gateway's counters are reset before and read after every slice, so its
 * statements and CPU are each side's own.
 */
async function alternate(ctx: Context, gw: Child, label: string, requests: { plain: Request; split: Request }): Promise<SplitPair> {
  const roles = { [gw.pid]: 'server', [process.pid]: 'autocannon' };
  const rounds = Math.max(2, Math.round(SECONDS / SLICE_SECONDS));
  await settle(ctx);
  console.log(`\n[SP] ${label}, without and with a ${RECIPIENTS}-recipient split in alternating slices: ${rounds} x ${SLICE_SECONDS} s each`);
  const drain = (r: LoadResult) => sleep(Math.min(2000, Math.ceil(r.max)));
  for (const side of ['plain', 'split'] as const) await drain(await load('warm-up', closedLoop(gw.url, WARMUP_SECONDS, requests[side]), roles, true));
  const slices = { plain: [] as LoadResult[], split: [] as LoadResult[] };
  const acc = { plain: { statements: {} as Record<string, number>, cpuMs: 0 }, split: { statements: {} as Record<string, number>, cpuMs: 0 } };
  for (let round = 0; round < rounds; round++) {
    for (const side of round % 2 ? (['split', 'plain'] as const) : (['plain', 'split'] as const)) {
      await gw.reset();
      const slice = await load(`${label} ${side}`, closedLoop(gw.url, SLICE_SECONDS, requests[side]), roles, true);
      slices[side].push(slice);
      const stats = await gw.stats();
      // The requests still in the gateway when autocannon stopped (a confirmation takes a third of a
      // second: a tenth of a slice) finish before the next slice, not in it, and outside both counts.
      await drain(slice);
      acc[side].cpuMs += stats.cpuMs;
      for (const [k, v] of Object.entries(stats.queries)) acc[side].statements[k] = (acc[side].statements[k] ?? 0) + v;
    }
  }
  const side = (name: 'plain' | 'split'): SplitSide => {
    const merged = merge(`${label}, ${name === 'plain' ? 'no split' : `${RECIPIENTS}-recipient split`}`, slices[name]);
    const served = Math.max(1, merged.ok + merged.non2xx);
    const statements = Object.fromEntries(Object.entries(acc[name].statements).sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, v / served]));
    return { ...merged, statements, gatewayCpuMs: acc[name].cpuMs / served, postgresCpuMs: ((merged.cpu.seconds.postgres ?? 0) * 1000) / served };
  };
  const pair = { plain: side('plain'), split: side('split'), ratios: slices.split.map((s, i) => s.rps / slices.plain[i].rps) };
  for (const line of pairLines(pair)) console.log(`  ${line}`);
  return pair;
}

/** BENCH_PROFILE: a profiled load of each side (after the measurement: a profile slows the process), summarised. */
async function profileSides(gw: Child, label: string, requests: { plain: Request; split: Request }): Promise<void> {
  const roles = { [gw.pid]: 'server', [process.pid]: 'autocannon' };
  for (const side of ['plain', 'split'] as const) {
    const file = join(os.tmpdir(), `cofre-bench-${runId}-split-${label}-${side}.${PROFILE === 'cpu' ? 'cpuprofile' : 'heapprofile'}`);
    await gw.profileStart(PROFILE!);
    const r = await load(`${label} ${side} (profiled)`, closedLoop(gw.url, SECONDS, requests[side]), roles);
    await gw.profileStop(file);
    console.log(`  [${label}, ${side}]\n${summarizeProfile(file, r.ok + r.non2xx)}`);
  }
}

/** The books after the run, in SQL: balanced, and every paid split sale with its shares. */
async function verify(ctx: Context, p: Parties): Promise<SplitVerified> {
  const { rows: [v] } = await ctx.admin.query(
    `SELECT
       (SELECT count(*) FROM transactions t WHERE t.user_id = $1 AND t.split IS NOT NULL AND t.status = 'PAID')::int AS split_paid,
       (SELECT count(*) FROM transactions t WHERE t.user_id = $1 AND t.split IS NOT NULL AND t.status = 'PAID'
          AND (SELECT count(*) FROM transaction_splits s WHERE s.transaction_id = t.id) = $3)::int AS with_all,
       (SELECT count(*) FROM transaction_splits s JOIN transactions t ON t.id = s.transaction_id WHERE t.split IS NULL)::int AS stray,
       (SELECT count(*) FROM (SELECT 1 FROM ledger_accounts GROUP BY user_id, livemode HAVING sum(balance_cents) <> 0) x)::int AS users_off,
       (SELECT count(*) FROM ledger_accounts a WHERE a.balance_cents <> (SELECT coalesce(sum(e.amount_cents), 0) FROM ledger_entries e WHERE e.account_id = a.id))::int AS accounts_off,
       (SELECT count(*) FROM (SELECT 1 FROM ledger_entries GROUP BY journal_id HAVING sum(amount_cents) <> 0) x)::int AS journals_off,
       (SELECT coalesce(sum(balance_cents), 0) FROM ledger_accounts WHERE user_id = ANY($2::uuid[]) AND kind = 'available')::bigint AS held,
       (SELECT coalesce(sum(amount_cents), 0) FROM transaction_splits WHERE user_id = $1)::bigint AS shares`,
    [p.seller.userId, p.recipients.map((r) => r.userId), RECIPIENTS],
  );
  return {
    splitPaid: v.split_paid,
    withAllShares: v.with_all,
    strayShares: v.stray,
    usersOff: v.users_off,
    accountsOff: v.accounts_off,
    journalsOff: v.journals_off,
    recipientsHeld: Number(v.held),
    sharesSum: Number(v.shares),
  };
}

const failed = (s: SplitSide) => s.non2xx + s.errors + s.timeouts;
const loadAvg = (l: number[]) => l.map((x) => fmt(x, 2)).join(' / ');

/** SP in the shared gateway process (run.ts), after A when it ran. */
export async function scenarioSplit(ctx: Context, gw: Child): Promise<SplitBenchResult> {
  const start = os.loadavg();
  const p = await parties(gw);
  await probe(ctx, gw, p);
  const created = creationRequests(ctx, p);
  const creation = await alternate(ctx, gw, 'PIX creations', created);
  if (PROFILE) await profileSides(gw, 'creations', created);
  const confirm = await confirmationRequests(ctx, p);
  console.log(`  ${confirm.available.plain.toLocaleString('en-US')} PENDING sales without a split and ${confirm.available.split.toLocaleString('en-US')} with one to confirm`);
  const confirmation = await alternate(ctx, gw, 'confirmations (simulate PAID)', confirm);
  if (PROFILE) await profileSides(gw, 'confirmations', confirm);
  const verified = await verify(ctx, p);
  const out: SplitBenchResult = { creation, confirmation, floor: ctx.results.floor ?? null, loadAverage: { start, end: os.loadavg() }, verified };
  for (const line of splitLines(out)) console.log(`  ${line}`);
  const v = verified;
  const broken = v.withAllShares !== v.splitPaid || v.strayShares || v.usersOff || v.accountsOff || v.journalsOff || v.recipientsHeld !== v.sharesSum;
  if (broken || [creation.plain, creation.split, confirmation.plain, confirmation.split].some(failed)) process.exitCode = 1;
  return out;
}

/** One pair's figures: each side, the ratio overall and per pair of slices, statements and CPU per request. */
function pairLines(pair: SplitPair): string[] {
  const sorted = [...pair.ratios].sort((a, b) => a - b);
  const side = (s: SplitSide) =>
    `${s.label}: ${fmt(s.rps, 0)}/s, p50 ${fmt(s.p50, 1)} ms, p99 ${fmt(s.p99, 1)} ms (${s.ok.toLocaleString('en-US')} 2xx, ${failed(s)} failed); ` +
    `${fmt(Object.values(s.statements).reduce((a, b) => a + b, 0), 2)} statements (${Object.entries(s.statements).map(([k, v]) => `${k} ${fmt(v, 2)}`).join(', ')}), ` +
    `gateway CPU ${fmt(s.gatewayCpuMs, 2)} ms, PostgreSQL CPU ${fmt(s.postgresCpuMs, 2)} ms per request; ${cpuLine(s)}`;
  return [
    side(pair.plain),
    side(pair.split),
    `split / no split: ${fmt((pair.split.rps / pair.plain.rps) * 100, 1)}% (per pair of slices ${fmt(sorted[0] * 100, 1)}-${fmt(sorted[sorted.length - 1] * 100, 1)}%, median ${fmt(sorted[sorted.length >> 1] * 100, 1)}%)`,
  ];
}

/** SP's figures against its target: printed after the run and in the report. */
export function splitLines(r: SplitBenchResult): string[] {
  const ratio = (pair: SplitPair) => pair.split.rps / pair.plain.rps;
  const sorted = (pair: SplitPair) => [...pair.ratios].sort((a, b) => a - b);
  const figure = (name: string, pair: SplitPair) => {
    const s = sorted(pair);
    return (
      `${name}: with the split ${fmt(pair.split.rps, 0)}/s (p50 ${fmt(pair.split.p50, 1)} ms, p99 ${fmt(pair.split.p99, 1)} ms) against ${fmt(pair.plain.rps, 0)}/s without ` +
      `(p50 ${fmt(pair.plain.p50, 1)} ms, p99 ${fmt(pair.plain.p99, 1)} ms) = ${fmt(ratio(pair) * 100, 1)}% (pairs of slices ${fmt(s[0] * 100, 1)}-${fmt(s[s.length - 1] * 100, 1)}%): ` +
      `>= ${SPLIT_TARGET * 100}% ${met(ratio(pair) >= SPLIT_TARGET)}`
    );
  };
  const v = r.verified;
  const floor = r.floor ? `the floor (A) of the same run ${fmt(r.floor.rps, 0)}/s, p99 ${fmt(r.floor.p99, 1)} ms` : 'the floor (A) not run (BENCH_SCENARIOS=floor,split)';
  return [
    figure('PIX creations', r.creation),
    figure('confirmations (simulate PAID)', r.confirmation),
    `${floor}; load average ${loadAvg(r.loadAverage.start)} at the start, ${loadAvg(r.loadAverage.end)} at the end (2 cores)`,
    `verified: ${v.withAllShares.toLocaleString('en-US')} of ${v.splitPaid.toLocaleString('en-US')} paid split sales with ${RECIPIENTS} shares, ${v.strayShares} shares on unsplit sales; ` +
      `users whose accounts do not sum to 0: ${v.usersOff}, accounts off their entries: ${v.accountsOff}, journals off: ${v.journalsOff}; ` +
      `the recipients hold ${v.recipientsHeld.toLocaleString('en-US')} cents, their shares ${v.sharesSum.toLocaleString('en-US')}`,
  ];
}
