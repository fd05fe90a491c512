// The process's logger (pino, as Fastify uses it): one JSON line per entry, with credentials,
// secrets, documents and card data redacted, and request paths without their query strings.
import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.ts';

export function createLogger(config: Pick<Config, 'logLevel'>, stream?: DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      redact: {
        paths: ['req.headers.authorization', 'req.headers["api-key"]', 'req.headers.cookie', '*.password', '*.token', '*.key', '*.secret', '*.document', '*.card'],
        censor: '[redacted]',
      },
      serializers: {
        // Path only: query strings can carry search text (names, documents).
        req: (req: { method: string; url: string; id: string }) => ({ method: req.method, path: req.url.split('?')[0], requestId: req.id }),
      },
    },
    stream,
  );
}
