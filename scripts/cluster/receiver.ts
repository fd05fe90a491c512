// The merchants' webhook endpoint for the rehearsal: answers 200 to every delivery and counts each
// event id it receives (a second receipt is a duplicate: delivery is at least once).
import { createServer, type Server } from 'node:http';

export interface Receiver {
  url: string;
  /** Event id -> times received. */
  received: Map<string, number>;
  close(): Promise<void>;
}

export async function startReceiver(port: number): Promise<Receiver> {
  const received = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const id = JSON.parse(Buffer.concat(chunks).toString('utf8'))?.id;
        if (typeof id === 'string') received.set(id, (received.get(id) ?? 0) + 1);
      } catch {
        /* not an envelope: answered all the same */
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
