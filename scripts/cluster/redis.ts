// Redis on its own port, nothing saved to disk (it holds only rate-limit counters).
import { startDetached, waitPort } from './procs.ts';

export async function startRedis(dir: string, port: number): Promise<number> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir];
  const pid = startDetached(dir, 'redis', process.env.REDIS_BIN ?? 'redis-server', args);
  await waitPort(port, 'Redis');
  return pid;
}
