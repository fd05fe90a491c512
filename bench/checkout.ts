// Checkout page benchmark on real PostgreSQL (issue 5):
//
//   K1  GET /pay/{slug}   100 concurrent connections on one payment link page (a link priced by two
//                         products, so the page's one query joins link, products and merchant),
//                         br/gzip accepted like a browser.                 target: first byte p50 <= 20 ms
//   K2  GET /pay/{slug}?aff={code}  the same page reached through an affiliate's link (issue 14): the
//                         click is counted (batched) and the cookie set. Reported beside K1, so the
//                         click counter's cost on the page is the difference.
//
// autocannon reports the time from sending a request to receiving its response; the page is about
// 3 KB compressed, so that is the first byte plus, at most, one more packet.
//
// `checkoutPageScenario(opts)` runs against an already running gateway (bench/run.ts's child) with
// an API key of a merchant there, and returns the figures; run this file directly to get a
// throwaway schema and gateway process of its own:
//
//   node bench/checkout.ts     (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test;
//                               BENCH_SECONDS default 20; BENCH_CONNECTIONS default 100)
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { connect, migrate } from '../src/db/index.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

export const CHECKOUT_TARGETS = { firstByteP50Ms: 20 };

export interface CheckoutBenchOptions {
  /** Base URL of a running gateway, e.g. http://127.0.0.1:40123 */
  url: string;
  /** A development API key with paymentLinks:write and products:write on that gateway. */
  apiKey: string;
  /** A development API key of another merchant: with it, K2 (the page through its affiliate link). */
  affiliateApiKey?: string;
  seconds?: number;
  connections?: number;
  log?: (line: string) => void;
}

export interface CheckoutBenchResult {
  slug: string;
  connections: number;
  seconds: number;
  requests: number;
  perSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  /** Bytes of one response as sent (compressed). */
  pageBytes: number;
  targets: typeof CHECKOUT_TARGETS;
  pass: { firstByteP50: boolean };
  /** K2: the page through an affiliate link (`?aff=`), same load. */
  affiliate?: { requests: number; perSecond: number; latencyMs: { p50: number; p90: number; p99: number; max: number }; non2xx: number; errors: number };
}

async function api(url: string, key: string, path: string, body: unknown) {
  const res = await fetch(url + path, { method: 'POST', headers: { 'api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = (await res.json()) as Record<string, any>;
  if (res.status !== 201) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

export async function checkoutPageScenario(opts: CheckoutBenchOptions): Promise<CheckoutBenchResult> {
  const log = opts.log ?? ((l: string) => console.log(l));
  const connections = opts.connections ?? 100;
  const seconds = opts.seconds ?? 20;
  const a = await api(opts.url, opts.apiKey, '/api/v1/products', { name: 'Camiseta Cofre', price: 7990, description: 'Algodão orgânico' });
  const b = await api(opts.url, opts.apiKey, '/api/v1/products', { name: 'Caneca', price: 3500 });
  const link = await api(opts.url, opts.apiKey, '/api/v1/payment-links', {
    title: 'Kit Cofre — camiseta e caneca',
    description: 'Entrega em todo o Brasil',
    products: [
      { productId: a.product.id, quantity: 2 },
      { productId: b.product.id, quantity: 1 },
    ],
    settings: { maxInstallments: 6, interestFreeInstallments: 3 },
    stockEnabled: true,
    stockQuantity: 1000,
  });
  const slug: string = link.paymentLink.slug;
  const path = `/pay/${slug}`;
  const headers = { 'accept-encoding': 'br, gzip', accept: 'text/html' };
  // Bytes on the wire (fetch would decompress): one raw request.
  const pageBytes = await new Promise<number>((res, rej) => {
    http
      .get(opts.url + path, { headers }, (r) => {
        if (r.statusCode !== 200) return rej(new Error(`GET ${path}: ${r.statusCode}`));
        let n = 0;
        r.on('data', (c: Buffer) => (n += c.length));
        r.on('end', () => res(n));
      })
      .on('error', rej);
  });

  log(`K1 GET /pay/{slug}: warm-up 3 s, then ${seconds} s at ${connections} connections`);
  await autocannon({ url: opts.url, connections, duration: 3, requests: [{ method: 'GET', path, headers }], renderProgressBar: false, renderResultsTable: false });
  const r = await autocannon({ url: opts.url, connections, duration: seconds, requests: [{ method: 'GET', path, headers }], renderProgressBar: false, renderResultsTable: false });
  const result: CheckoutBenchResult = {
    slug,
    connections,
    seconds,
    requests: r.requests.total,
    perSecond: r.requests.average,
    latencyMs: { p50: r.latency.p50, p90: r.latency.p90, p99: r.latency.p99, max: r.latency.max },
    non2xx: r.non2xx,
    errors: r.errors,
    pageBytes,
    targets: CHECKOUT_TARGETS,
    pass: { firstByteP50: r.latency.p50 <= CHECKOUT_TARGETS.firstByteP50Ms && r.non2xx === 0 && r.errors === 0 },
  };
  if (opts.affiliateApiKey) {
    const program = await api(opts.url, opts.apiKey, '/api/affiliate/programs', { productId: a.product.id, commissionType: 'PERCENTAGE', commissionValue: 1000 });
    const joined = await api(opts.url, opts.affiliateApiKey, `/api/affiliate/join/${program.data.id}`, {});
    const affPath = `${path}?aff=${joined.data.code}`;
    log(`K2 GET /pay/{slug}?aff={code}: ${seconds} s at ${connections} connections`);
    const k2 = await autocannon({ url: opts.url, connections, duration: seconds, requests: [{ method: 'GET', path: affPath, headers }], renderProgressBar: false, renderResultsTable: false });
    result.affiliate = { requests: k2.requests.total, perSecond: k2.requests.average, latencyMs: { p50: k2.latency.p50, p90: k2.latency.p90, p99: k2.latency.p99, max: k2.latency.max }, non2xx: k2.non2xx, errors: k2.errors };
    log(`  ${k2.requests.total} pages, ${k2.requests.average.toFixed(0)}/s; p50 ${k2.latency.p50} ms, p99 ${k2.latency.p99} ms; non-2xx ${k2.non2xx}, errors ${k2.errors}`);
  }
  log(
    `  ${result.requests} pages, ${result.perSecond.toFixed(0)}/s; p50 ${result.latencyMs.p50} ms, p90 ${result.latencyMs.p90} ms, p99 ${result.latencyMs.p99} ms; ` +
      `${pageBytes} bytes each; non-2xx ${result.non2xx}, errors ${result.errors}; target p50 <= ${CHECKOUT_TARGETS.firstByteP50Ms} ms ${result.pass.firstByteP50 ? 'met' : 'MISSED'}`,
  );
  return result;
}

// Standalone: a throwaway schema, the gateway in a child process (bench/server.ts), K1, cleanup.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const databaseUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  const schema = `bench_co_${randomBytes(4).toString('hex')}`;
  const setup = await connect({ url: databaseUrl, schema, poolSize: 2 });
  await migrate(setup.db, schema);
  await setup.close();
  const child = fork(join(HERE, 'server.ts'), [], {
    execPath: process.execPath,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      BENCH_SCHEMA: schema,
      JWT_SECRET: 'bench-jwt-secret-0123456789-abcdefghijklmnopqrstuvwxyz',
      DATABASE_POOL_SIZE: '50',
      RATE_LIMIT_PER_MINUTE: '100000000',
      LOG_LEVEL: 'silent',
      RUN_JOBS: 'false',
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  let code = 0;
  try {
    const port = await new Promise<number>((res, rej) => {
      child.on('message', (msg: { type: string; port?: number }) => msg.type === 'ready' && res(msg.port!));
      child.once('exit', (c) => rej(new Error(`gateway exited (${c})`)));
    });
    const url = `http://127.0.0.1:${port}`;
    const reg = await fetch(`${url}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Loja Bench', email: `bench.${Date.now()}@example.com`, password: 'bench-password-123' }),
    }).then((r) => r.json() as Promise<{ token: string }>);
    const key = await fetch(`${url}/api/credentials`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${reg.token}` },
      body: JSON.stringify({ name: 'bench', environment: 'DEVELOPMENT' }),
    }).then((r) => r.json() as Promise<{ key: string }>);
    const r = await checkoutPageScenario({
      url,
      apiKey: key.key,
      seconds: Number(process.env.BENCH_SECONDS || 20),
      connections: Number(process.env.BENCH_CONNECTIONS || 100),
    });
    console.log('\n' + JSON.stringify(r, null, 2));
  } catch (err) {
    console.error(err);
    code = 1;
  } finally {
    if (child.connected) child.send({ type: 'stop' });
    await new Promise((res) => (child.exitCode !== null ? res(null) : child.once('exit', res)));
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await c.end();
  }
  process.exit(code);
}
