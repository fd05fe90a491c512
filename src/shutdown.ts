// How `serve` and `worker` stop on SIGTERM/SIGINT, as process managers and a load balancer's drain
// expect: the steps run once, bounded by a deadline; a second signal stops the process at once.
import type { FastifyBaseLogger } from 'fastify';

export const sleep = (ms: number) => new Promise<void>((res) => setTimeout(res, ms));

/**
 * Runs `steps` on the first SIGTERM or SIGINT and exits 0 when they end; exits 1 when they fail or
 * outlast `timeoutMs` (a request or job that never ends must not keep a stopped process alive).
 */
export function onShutdown(log: Pick<FastifyBaseLogger, 'info' | 'warn' | 'error'>, timeoutMs: number, steps: (signal: string) => Promise<void>) {
  let started = false;
  const stop = (signal: NodeJS.Signals) => {
    if (started) {
      log.warn({ signal }, 'second signal: stopping now');
      process.exit(1);
    }
    started = true;
    log.info({ signal, timeoutMs }, 'shutting down');
    setTimeout(() => {
      log.error({ timeoutMs }, 'shutdown did not finish in time: stopping now');
      process.exit(1);
    }, timeoutMs).unref();
    steps(signal).then(
      () => process.exit(0),
      (err) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
