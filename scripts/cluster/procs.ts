// Child processes of the cluster: started detached (they outlive `npm run cluster`), each with its
// output in a log file of the cluster's directory, found again later by pid.
import { spawn } from 'node:child_process';
import { openSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export function startDetached(dir: string, name: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): number {
  const log = openSync(join(dir, `${name}.log`), 'a');
  const child = spawn(cmd, args, { detached: true, stdio: ['ignore', log, log], env, cwd: process.cwd() });
  child.unref();
  if (!child.pid) throw new Error(`${name}: ${cmd} did not start`);
  return child.pid;
}

/** A real child's pid: 0 and negatives would name a process group (kill(0) signals our own). */
function checkPid(pid: number): void {
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`not a process id: ${pid}`);
}

export function alive(pid: number): boolean {
  checkPid(pid);
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sends `signal` and waits (up to timeoutMs) for the process to be gone; SIGKILL after that. */
export async function stopPid(pid: number, signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 20_000): Promise<void> {
  if (!alive(pid)) return;
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGKILL');
      await sleep(100);
      return;
    }
    await sleep(50);
  }
}

/** Whether something accepts TCP connections on port (loopback). */
export function portOpen(port: number): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    const s = connect({ host: '127.0.0.1', port }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

/** Resolves once something accepts TCP connections on port (polls every 100 ms). */
export async function waitPort(port: number, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await portOpen(port))) {
    if (Date.now() > deadline) throw new Error(`${what} is not listening on ${port} after ${timeoutMs} ms (see its log)`);
    await sleep(100);
  }
}

/** Resolves once GET url answers 200 (polls every 200 ms). */
export async function waitHttp(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const last = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      async (r) => (r.ok ? null : `${r.status} ${await r.text()}`),
      (err: Error) => err.message,
    );
    if (last === null) return;
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms (last: ${last}; see the logs)`);
    await sleep(200);
  }
}
