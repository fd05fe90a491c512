// The HTTP port, checked before anything else is opened: a second `serve` on a busy port must not
// open (or migrate) the database only to fail at listen() with a raw EADDRINUSE stack.
import { createServer } from 'node:net';
import { ConfigError } from '../config.ts';

/** The operator-facing refusal for a port in use (also used when listen() itself loses the race). */
export function portInUse(port: number, host: string): ConfigError {
  return new ConfigError(
    `Port ${port} is already in use on ${host} (PORT): another Cofre or another program is listening there.\n` +
      `Stop it, or start this one on another port (PORT=${port + 1} npm start).`,
  );
}

/** Resolves when `port` can be listened on at `host` (port 0: always); throws portInUse() otherwise. */
export async function assertPortFree(port: number, host: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' || err.code === 'EACCES' ? portError(err, port, host) : err));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

function portError(err: NodeJS.ErrnoException, port: number, host: string): ConfigError {
  if (err.code === 'EADDRINUSE') return portInUse(port, host);
  return new ConfigError(`Port ${port} on ${host} (PORT) cannot be used by this user (${err.code}): ports under 1024 need privileges; choose another PORT.`);
}
