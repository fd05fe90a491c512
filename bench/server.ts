// The real gateway (buildApp) in its own process for the benchmark, against the schema that
// bench/run.ts created and migrated. Prints PORT=<n> once it listens on 127.0.0.1.
// Environment (set by bench/run.ts): DATABASE_URL, BENCH_SCHEMA, JWT_SECRET, DATABASE_POOL_SIZE,
// RATE_LIMIT_PER_MINUTE, LOG_LEVEL, RUN_JOBS=false; and for the comparison scenarios:
// - BENCH_GROUP_COMMIT=off: every creation in a statement of its own and every status change in a
//   transaction of its own, as before group commit;
// - BENCH_EMBEDDED_DIR=<dir>: embedded PGlite in that data directory (migrated here) instead of
//   PostgreSQL, as `cofre serve` runs without DATABASE_URL;
// - BENCH_CREATION_BATCH='{"maxInFlight":3,"minExtraBatch":8}': creations batched with these options
//   over the database's defaults (BATCH in transactions/creation.ts), to try other settings.
// - BENCH_CHANGE_BATCH='{"shards":8}': status changes batched with these options over
//   CHANGE_BATCH (transactions/changes.ts).
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { connect, migrate } from '../src/db/index.ts';
import { buildDeps } from '../src/deps.ts';
import { MemoryLimiter } from '../src/http/ratelimit.ts';
import { CHANGE_BATCH, type ChangeBatchOptions } from '../src/modules/transactions/changes.ts';
import { BATCH, type BatchOptions } from '../src/modules/transactions/creation.ts';
import { tuneRuntime } from '../src/runtime.ts';
import { countQueries, observeBatches, observeChangeBatches, requireEnv, serveParent, timeRequests } from './child.ts';

tuneRuntime(); // as `serve` does
countQueries();
const schema = requireEnv('BENCH_SCHEMA');
const config = loadConfig(process.env);
if (config.runJobs) throw new Error('bench/server.ts runs without background jobs (RUN_JOBS=false)');
const embeddedDir = process.env.BENCH_EMBEDDED_DIR;
const database = embeddedDir
  ? await connect({ url: null, dataDir: embeddedDir })
  : await connect({ url: config.databaseUrl, schema, poolSize: config.databasePoolSize });
if (embeddedDir) await migrate(database.db);
// Off: creations and status changes alike one at a time, as they came.
const unbatched = process.env.BENCH_GROUP_COMMIT === 'off' ? { maxBatch: 1, maxInFlight: Infinity } : undefined;
const tried = process.env.BENCH_CREATION_BATCH ? { ...BATCH[database.kind], ...(JSON.parse(process.env.BENCH_CREATION_BATCH) as Partial<BatchOptions>) } : undefined;
const limiter = new MemoryLimiter();
// Every creation and status-change batch is reported to the parent's stats (observeBatches,
// observeChangeBatches), whatever the batching.
const creationBatch = { ...(unbatched ?? tried ?? BATCH[database.kind]), observe: observeBatches };
const triedChanges = process.env.BENCH_CHANGE_BATCH ? { ...CHANGE_BATCH[database.kind], ...(JSON.parse(process.env.BENCH_CHANGE_BATCH) as Partial<ChangeBatchOptions>) } : undefined;
const changeBatch = { ...(unbatched ?? triedChanges ?? CHANGE_BATCH[database.kind]), observe: observeChangeBatches };
const app = await buildApp(buildDeps(config, database, { limiter, creationBatch, changeBatch }));
timeRequests(app.server);
// As `serve` does: every route's schemas compiled before the first request.
await app.ready();
app.schemas.compileAll();
await app.listen({ port: 0, host: '127.0.0.1' });
const addr = app.server.address();
const port = typeof addr === 'object' && addr ? addr.port : 0;

serveParent(port, async () => {
  await app.close();
  await limiter.close();
  await database.close();
});
