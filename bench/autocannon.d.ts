// Minimal typings for the parts of autocannon 9 that the benchmark uses (the package ships none).
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      setupRequest?: (req: Request, context: Record<string, unknown>) => Request | null | undefined;
    }

    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      amount?: number;
      timeout?: number;
      pipelining?: number;
      /** Requests per second from all connections together (a fixed rate). */
      overallRate?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string;
      requests?: Request[];
      idReplacement?: boolean;
      renderProgressBar?: boolean;
      renderResultsTable?: boolean;
    }

    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p50: number;
      p90: number;
      p97_5: number;
      p99: number;
      p99_9: number;
      [key: string]: number;
    }

    interface Result {
      duration: number;
      errors: number;
      timeouts: number;
      non2xx: number;
      resets: number;
      '1xx': number;
      '2xx': number;
      '3xx': number;
      '4xx': number;
      '5xx': number;
      statusCodeStats: Record<string, { count: number }>;
      latency: Histogram & { totalCount: number };
      requests: Histogram & { sent: number };
      throughput: Histogram;
    }

    type Instance = EventEmitter & PromiseLike<Result>;
  }

  function autocannon(opts: autocannon.Options): autocannon.Instance;
  export default autocannon;
}
