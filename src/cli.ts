// The command line (`node src/main.ts`, through main.cjs): serve | worker | migrate | admin create --email E --password P [--name N]
import { parseArgs } from 'node:util';
import { buildApp } from './app.ts';
import { ConfigError, loadConfig, type Config } from './config.ts';
import { connect, migrate, type Database } from './db/index.ts';
import { buildDeps } from './deps.ts';
import { assertUnlocked } from './db/lock.ts';
import { assertPortFree, portInUse } from './http/port.ts';
import { createLimiter } from './http/ratelimit.ts';
import { backgroundJobs } from './jobs/runner.ts';
import { createUser } from './modules/auth/service.ts';
import { tuneRuntime } from './runtime.ts';
import { onShutdown, sleep } from './shutdown.ts';

const USAGE = `Usage: npm run cli -- <command>
  serve                                         start the API (and background jobs unless RUN_JOBS=false)
  worker                                        run background jobs and webhook deliveries only (any number of them)
  migrate                                       apply database migrations and exit
  admin create --email E --password P [--name N]  create an operator (role ADMIN)`;

async function open(config: Config): Promise<Database> {
  const database = await connect({ url: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize, schema: config.databaseSchema ?? undefined });
  await migrate(database.db, config.databaseSchema ?? undefined);
  return database;
}

async function serve(config: Config) {
  if (!config.databaseUrl) assertUnlocked(config.dataDir); // a second `serve` names the running one, whatever the port
  await assertPortFree(config.port, config.host); // before the database is opened
  const database = await open(config);
  const limiter = createLimiter(config.redisUrl);
  const deps = buildDeps(config, database, { limiter });
  const app = await buildApp(deps);
  const jobs = config.runJobs ? backgroundJobs(deps, { jobIntervalMs: config.jobIntervalMs, payoutIntervalMs: config.payouts.intervalMs }, deps.log) : null;
  // Readiness fails first so a load balancer stops sending; then the listener closes and the
  // requests in flight (and the job in hand) finish before the pool closes.
  onShutdown(app.log, config.shutdown.timeoutMs, async () => {
    deps.lifecycle.draining = true;
    await sleep(config.shutdown.drainMs);
    await Promise.all([app.close(), jobs?.stop()]);
    await limiter.close();
    await database.close();
  });
  // Every route's schemas compiled before the first request can arrive (http/lazy-schemas.ts).
  await app.ready();
  app.schemas.compileAll();
  await app.listen({ port: config.port, host: config.host }).catch((err) => {
    throw err?.code === 'EADDRINUSE' ? portInUse(config.port, config.host) : err; // taken since the check
  });
  // Connectors register where their providers notify, once this answers (their sweeps retry on failure).
  await deps.connectors.start();
  jobs?.start();
  if (config.runJobs) await deps.webhooks.dispatcher.start(); // stopped by app.close()
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.port;
  const local = `http://localhost:${port}`;
  const where = database.kind === 'pglite' ? `embedded PGlite at ${config.dataDir}/pgdata` : 'PostgreSQL (DATABASE_URL)';
  process.stdout.write(
    `\nCofre ${process.env.npm_package_version ?? ''} is running (database: ${where})\n` +
      `  Painel:  ${local}/dashboard\n  API:     ${local}/api\n  Docs:    ${local}/docs  (OpenAPI: ${local}/openapi.json)\n  Health:  ${local}/health  (readiness: ${local}/ready)\n\n`,
  );
}

async function worker(config: Config) {
  const database = await open(config);
  const limiter = createLimiter(config.redisUrl);
  const deps = buildDeps(config, database, { limiter });
  const { log, webhooks } = deps;
  const jobs = backgroundJobs(deps, { jobIntervalMs: config.jobIntervalMs, payoutIntervalMs: config.payouts.intervalMs }, log);
  onShutdown(log, config.shutdown.timeoutMs, async () => {
    await Promise.all([jobs.stop(), webhooks.close()]);
    await limiter.close();
    await database.close();
  });
  jobs.start();
  await webhooks.dispatcher.start();
  log.info({ database: database.kind }, 'worker started');
}

async function main(argv: string[]) {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { email: { type: 'string' }, password: { type: 'string' }, name: { type: 'string' } },
  });
  const [command, sub] = positionals;
  const config = loadConfig();
  switch (command) {
    case 'serve':
      tuneRuntime();
      return serve(config);
    case 'worker':
      tuneRuntime();
      return worker(config);
    case 'migrate': {
      const database = await open(config);
      await database.close();
      console.log('migrations applied');
      return;
    }
    case 'admin': {
      if (sub !== 'create' || !values.email || !values.password) throw new UsageError();
      if (values.password.length < 8) throw new ConfigError('--password must be at least 8 characters');
      const database = await open(config);
      try {
        const user = await createUser(database.db, { name: values.name ?? 'Operator', email: values.email, password: values.password, role: 'ADMIN' });
        console.log(`operator created: ${user.email} (id ${user.id}, role ADMIN)`);
      } finally {
        await database.close();
      }
      return;
    }
    default:
      throw new UsageError();
  }
}

class UsageError extends Error {}

main(process.argv.slice(2)).catch((err) => {
  if (err instanceof UsageError) console.error(USAGE);
  else if (String(err?.code).startsWith('ERR_PARSE_ARGS_')) console.error(`${err.message}\n\n${USAGE}`); // unknown or malformed option
  else if (err instanceof ConfigError) console.error(err.message);
  else if (err?.code === 'EMAIL_ALREADY_REGISTERED' || err?.status === 400) console.error(`error: ${err.message}`);
  else console.error(err);
  process.exit(1);
});
