// What PgBouncer (1.18, transaction mode: named statements off) costs the creation path: the
// benchmark's floor and creation scenarios run with DATABASE_URL straight at PostgreSQL and through
// a PgBouncer in front of it, alternately, N pairs. Each run's figures are in its own output
// (bench/README.md, "Through PgBouncer"). Usage: node scripts/cluster/bench-pooler.ts [pairs=2]
// with DATABASE_URL as for npm run bench (default postgres://postgres@127.0.0.1:5432/test).
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPgbouncer } from './pgbouncer.ts';
import { stopPid } from './procs.ts';

const direct = new URL(process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test');
const database = direct.pathname.slice(1);
const port = 26600; // below the ephemeral range, beside the cluster's 26000-26999 but clear of its ports
const pairs = Number(process.argv[2] ?? 2);

function bench(url: string, runId: string): void {
  // LISTEN goes to PostgreSQL itself either way (the gateway refuses to start with it through the pooler).
  const env = { ...process.env, DATABASE_URL: url, DATABASE_LISTEN_URL: direct.href, BENCH_RUN_ID: runId, BENCH_SCENARIOS: process.env.BENCH_SCENARIOS ?? 'floor,creation', BENCH_WRITE_README: '0' };
  spawnSync(process.execPath, ['bench/run.ts'], { env, stdio: 'inherit' });
}

for (let i = 0; i < pairs; i++) {
  for (const through of [false, true]) {
    const runId = `pool${randomBytes(4).toString('hex')}`;
    console.log(`\n=== pair ${i + 1}: ${through ? 'through PgBouncer (transaction mode)' : 'direct'} (run ${runId})`);
    if (!through) {
      bench(direct.href, runId);
      continue;
    }
    const dir = mkdtempSync(join(tmpdir(), 'cofre-bench-pooler-'));
    const pid = await startPgbouncer({ dir, port, serverPort: Number(direct.port || 5432), database, user: direct.username, poolSize: 50, connectQuery: `SET search_path = bench_${runId}` });
    try {
      bench(`postgres://${direct.username}@127.0.0.1:${port}/${database}`, runId);
    } finally {
      await stopPid(pid, 'SIGINT');
      rmSync(dir, { recursive: true, force: true });
    }
  }
}
