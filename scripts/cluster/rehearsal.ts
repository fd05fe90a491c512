// `npm run rehearsal [-- --seconds 80 --clients 6 --keep]`: a bounded mixed load through HAProxy
// while processes are killed and restarted at set moments, then the checks that nothing was lost
// or done twice (scripts/cluster/checks.ts), each fault's window of failed requests, and the
// throughput with one and with two API processes. Uses the running cluster or starts one (and
// then stops it, unless --keep). Exits 1 if a check fails. docs/operations.md ("Rehearsal").
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { runChecks, settle } from './checks.ts';
import { Client } from './client.ts';
import { FAULTS, setApiEnabled } from './faults.ts';
import { PORTS, readState, URLS, type ClusterState } from './layout.ts';
import { runLoad, setUpMerchant, type Merchant } from './load.ts';
import { startCluster, stopCluster } from './main.ts';
import { alive } from './procs.ts';
import { startReceiver } from './receiver.ts';
import { faultWindows, throughput, type FaultMark } from './windows.ts';

const { values } = parseArgs({ options: { seconds: { type: 'string', default: '80' }, clients: { type: 'string', default: '6' }, merchants: { type: 'string', default: '4' }, keep: { type: 'boolean', default: false } } });
const seconds = Math.max(40, Number(values.seconds));
const lines: string[] = [];
const say = (line: string) => {
  lines.push(line);
  console.log(line);
};

/** Moments of the run, as fractions of it: the faults first, then the two throughput phases. */
const FAULT_AT = [0.12, 0.27, 0.42, 0.55, 0.68];
const ONE_API = [0.8, 0.9];
const TWO_APIS = [0.9, 1];

async function main(): Promise<boolean> {
  const running = readState();
  const reuse = running !== null && Object.values(running.pids).every(alive);
  const state: ClusterState = reuse ? running : await startCluster();
  const receiver = await startReceiver(PORTS.receiver);
  const client = new Client(URLS.api);
  const run = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const merchants: Merchant[] = [];
  for (let i = 0; i < Number(values.merchants); i++) merchants.push(await setUpMerchant(client, run, i, receiver.url));
  say(`rehearsal ${run}: ${seconds} s, ${values.clients} clients, ${merchants.length} merchants, through ${URLS.api} (cluster in ${state.dir})`);

  const t0 = Date.now();
  const at = (f: number) => t0 + f * seconds * 1000;
  let stopped = false;
  const load = runLoad(client, merchants, Number(values.clients), () => stopped);
  const marks: FaultMark[] = [];
  const timeline = (async () => {
    for (let i = 0; i < FAULTS.length; i++) {
      await sleep(Math.max(0, at(FAULT_AT[i]) - Date.now()));
      marks.push({ name: FAULTS[i].name, at: Date.now() });
      await FAULTS[i].run(state).catch((err) => say(`  fault "${FAULTS[i].name}" failed: ${(err as Error).message}`));
    }
    await sleep(Math.max(0, at(ONE_API[0]) - Date.now()));
    await setApiEnabled(state, 1, false);
    await sleep(Math.max(0, at(TWO_APIS[0]) - Date.now()));
    await setApiEnabled(state, 1, true);
    await sleep(Math.max(0, at(1) - Date.now()));
  })();
  await timeline;
  stopped = true;
  await load;
  const loadEnd = Date.now();

  // Requests left unanswered (a key held by a killed process: 409 until its lease ends) are sent again.
  const unfinished = client.outcomes.filter((o) => o.status === null);
  await Promise.all(unfinished.map((o) => client.retry(o, merchants[o.merchant].key, Date.now() + 90_000)));
  const finishedMs = Date.now() - loadEnd;
  const settledMs = await settle(URLS.primary, merchants);
  const checks = await runChecks(URLS.primary, merchants, client.outcomes, receiver.received);
  await receiver.close();

  report(client, marks, t0, loadEnd, { unfinished: unfinished.length, finishedMs, settledMs });
  for (const c of checks) say(`  ${c.ok ? 'PASS' : 'FAIL'}  ${c.name}: ${c.detail}`);
  const passed = checks.every((c) => c.ok);
  say(passed ? 'rehearsal passed' : 'rehearsal FAILED');
  writeFileSync(join(state.dir, `rehearsal-${run}.txt`), lines.join('\n') + '\n');
  if (!reuse && !values.keep) await stopCluster();
  return passed;
}

function report(client: Client, marks: FaultMark[], t0: number, loadEnd: number, after: { unfinished: number; finishedMs: number; settledMs: number }): void {
  const byOp = new Map<string, { n: number; ok: number }>();
  for (const o of client.outcomes) {
    const s = byOp.get(o.op) ?? { n: 0, ok: 0 };
    s.n++;
    if (o.status !== null && o.status < 300) s.ok++;
    byOp.set(o.op, s);
  }
  const retried = client.outcomes.filter((o) => o.attempts > 1).length;
  say(`load: ${client.attempts.length} HTTP requests in ${((loadEnd - t0) / 1000).toFixed(1)} s; POSTs by operation (2xx/sent): ${[...byOp].map(([op, s]) => `${op} ${s.ok}/${s.n}`).join(', ')}`);
  say(`  POSTs sent again with the same key: ${retried}; unanswered when the load stopped (a key held by a killed process answers 409 until its 60 s lease ends): ${after.unfinished}, answered within ${(after.finishedMs / 1000).toFixed(1)} s; workers idle ${(after.settledMs / 1000).toFixed(1)} s after that`);
  const { windows, unattributed } = faultWindows(marks, client.attempts);
  say('faults (failed = 5xx or no answer, each attributed to the latest fault before it):');
  for (const w of windows) {
    const at = ((marks.find((m) => m.name === w.name)?.at ?? t0) - t0) / 1000;
    say(`  t=${at.toFixed(1).padStart(5)} s  ${w.name.padEnd(48)} ${w.failures === 0 ? 'no failed request' : `${w.failures} failed, window ${w.windowMs} ms (from +${w.firstMs} to +${w.lastMs} ms)`}`);
  }
  say(`  failed requests outside any fault's 30 s: ${unattributed}`);
  const span = (f: number[]) => [t0 + f[0] * seconds * 1000 + 1000, t0 + f[1] * seconds * 1000] as const;
  const one = throughput(client.attempts, ...span(ONE_API));
  const two = throughput(client.attempts, ...span(TWO_APIS));
  say(`throughput (answered requests/s, ${values.clients} closed-loop clients): one API process ${one.toFixed(1)}/s, two ${two.toFixed(1)}/s (x${(two / one).toFixed(2)})`);
}

main().then(
  (passed) => process.exit(passed ? 0 : 1),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
