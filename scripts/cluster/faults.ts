// The faults the rehearsal injects, each on the cluster recorded in the state file: a process killed
// outright (SIGKILL) and started again, Redis and PgBouncer restarted, the replica stopped and
// started; and the runtime API switch that takes an API process out of HAProxy's rotation.
import { setTimeout as sleep } from 'node:timers/promises';
import { startNode, stopNode } from '../pg-pair.ts';
import { startApi, startWorker } from './gateway.ts';
import { haproxyCommand } from './haproxy.ts';
import { PORTS, writeState, type ClusterState } from './layout.ts';
import { pairOf, pgbouncerOptions } from './main.ts';
import { startPgbouncer } from './pgbouncer.ts';
import { stopPid } from './procs.ts';
import { startRedis } from './redis.ts';

export interface Fault {
  name: string;
  /** Seconds into the load. */
  at: number;
  run(state: ClusterState): Promise<void>;
}

async function killed(state: ClusterState, name: string, start: () => Promise<number> | number): Promise<void> {
  await stopPid(state.pids[name], 'SIGKILL');
  state.pids[name] = await start();
  writeState(state);
}

export const FAULTS: Omit<Fault, 'at'>[] = [
  { name: 'SIGKILL api1, started again', run: (s) => killed(s, 'api1', () => startApi(s.dir, 0)) },
  { name: 'SIGKILL worker1, started again', run: (s) => killed(s, 'worker1', () => startWorker(s.dir, 0)) },
  {
    name: 'Redis restarted',
    run: async (s) => {
      await stopPid(s.pids.redis, 'SIGTERM');
      s.pids.redis = await startRedis(s.dir, PORTS.redis);
      writeState(s);
    },
  },
  {
    name: 'replica stopped for 3 s, started again',
    run: async (s) => {
      const pair = pairOf(s.dir);
      await stopNode(pair, 'replica', 'fast');
      await sleep(3000);
      await startNode(pair, 'replica');
    },
  },
  {
    // SIGINT is PgBouncer's safe shutdown: it waits for the transactions in progress, then exits.
    name: 'PgBouncer restarted (safe shutdown, then start)',
    run: async (s) => {
      await stopPid(s.pids.pgbouncer, 'SIGINT');
      s.pids.pgbouncer = await startPgbouncer(pgbouncerOptions(s.dir));
      writeState(s);
    },
  },
];

/** Takes API process i (0-based) out of HAProxy's rotation, or puts it back. */
export async function setApiEnabled(state: ClusterState, i: number, enabled: boolean): Promise<void> {
  const answer = await haproxyCommand(state.dir, `${enabled ? 'enable' : 'disable'} server apis/api${i + 1}`);
  if (answer) throw new Error(`HAProxy: ${answer}`);
}
