// Shared plumbing of the benchmark's child processes (bench/server.ts, bench/floor.ts):
// a per-statement query counter on pg, the IPC protocol with bench/run.ts, and shutdown.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import pg from 'pg';

/** Statements sent to PostgreSQL by this process since the last reset, keyed "verb table". */
const counts = new Map<string, number>();

function statementKey(text: string): string {
  const head = text.slice(0, 200); // the verb and first table are near the start; long statements cost the counter nothing more
  const verb = /^\s*(\w+)/.exec(head)?.[1]?.toLowerCase() ?? '?';
  const table = /"(\w+)"/.exec(head)?.[1] ?? /\b(?:into|from|update)\s+(\w+)/i.exec(head)?.[1];
  return table ? `${verb} ${table}` : verb;
}

/** Wraps pg.Client#query (which Pool#query and Kysely both go through) to count statements. */
export function countQueries() {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  proto.query = function (this: unknown, ...args: unknown[]) {
    const first = args[0];
    const text = typeof first === 'string' ? first : typeof (first as { text?: unknown })?.text === 'string' ? (first as { text: string }).text : '';
    const key = statementKey(text);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return original.apply(this, args);
  };
}

/** The statements counted since the last call (or reset), cleared. */
export function takeCounts(): Record<string, number> {
  const out = Object.fromEntries(counts);
  counts.clear();
  return out;
}

export type ParentMessage =
  | { type: 'reset' }
  | { type: 'stats' }
  | { type: 'stop' }
  | { type: 'profile-start' }
  | { type: 'profile-stop'; file: string };
export interface ChildStats {
  type: 'stats';
  queries: Record<string, number>;
  /** process.cpuUsage() since the last reset, in ms (user + system). */
  cpuMs: number;
  /** The system (kernel) part of cpuMs: socket reads and writes, mostly. */
  systemMs: number;
}

/**
 * Tells the parent the port, answers its stats requests and shuts down on 'stop', SIGTERM, SIGINT
 * or when the parent goes away (IPC disconnect), so no child outlives a crashed benchmark.
 */
export function serveParent(port: number, close: () => Promise<void>) {
  let cpu = process.cpuUsage();
  let closing = false;
  const shutdown = async (code: number) => {
    if (closing) return;
    closing = true;
    const force = setTimeout(() => process.exit(code), 5000);
    force.unref();
    try {
      await close();
    } finally {
      process.exit(code);
    }
  };
  process.on('message', (m: ParentMessage) => {
    if (m.type === 'reset') {
      counts.clear();
      cpu = process.cpuUsage();
      process.send?.({ type: 'reset' });
    } else if (m.type === 'stats') {
      const used = process.cpuUsage(cpu);
      const stats: ChildStats = { type: 'stats', queries: Object.fromEntries(counts), cpuMs: (used.user + used.system) / 1000, systemMs: used.system / 1000 };
      process.send?.(stats);
    } else if (m.type === 'stop') void shutdown(0);
    else if (m.type === 'profile-start') void profileStart().then(() => process.send?.({ type: 'profile-started' }));
    else if (m.type === 'profile-stop') void profileStop(m.file).then(() => process.send?.({ type: 'profile-stopped', file: m.file }));
  });
  process.on('disconnect', () => void shutdown(0));
  process.once('SIGTERM', () => void shutdown(0));
  process.once('SIGINT', () => void shutdown(0));
  process.stdout.write(`PORT=${port}\n`);
  process.send?.({ type: 'ready', port });
}

export function requireEnv(name: string): string {
  const v = process.env[name];
  if (!v) {
    console.error(`${name} is required (this process is started by bench/run.ts)`);
    process.exit(2);
  }
  return v;
}

// CPU profile of a chosen window (BENCH_PROFILE=1 in bench/run.ts), through the inspector.
let session: Session | null = null;
async function profileStart() {
  session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
}
async function profileStop(file: string) {
  if (!session) return;
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(file, JSON.stringify(profile));
  session.disconnect();
  session = null;
}
