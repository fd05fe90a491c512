// What one card renewal costs, counted in this process (bench/README.md, S2): N due card
// subscriptions (spread over 20 merchants) renewed by the subscriptions sweep of this one process
// (its 8 lanes), then the SQL statements per renewal by kind and this process's CPU per renewal.
// PostgreSQL only (the counter wraps pg): TEST_DATABASE_URL=postgres://… node bench/renewal-profile.ts [N]
import assert from 'node:assert/strict';
import { countQueries, takeCounts } from './child.ts';
import { advanceDue } from '../src/modules/subscriptions/sweep.ts';
import { call, cpf, merchant, startApp } from '../test/helpers.ts';

countQueries();
const N = Number(process.argv[2] ?? 200);
const MERCHANTS = 20;
const GOOD = { number: '4242424242424242', holderName: 'Ana Souza', expMonth: 12, expYear: 2035, cvv: '123' };
if (!process.env.TEST_DATABASE_URL) throw new Error('TEST_DATABASE_URL is required (the statement counter wraps pg)');

const ctx = await startApp();
const app = ctx.app;
try {
  const ids: string[] = [];
  for (let k = 0; k < MERCHANTS; k++) {
    const m = await merchant(app);
    const plan = await call(app, 'POST', '/api/subscriptions/plans', { key: m.devKey, body: { name: 'Clube', amountCents: 4990, interval: 'MONTHLY', trialDays: 1, paymentMethods: ['CARD'] } });
    for (let i = k; i < N; i += MERCHANTS) {
      const r = await call(app, 'POST', '/api/v1/subscriptions', { key: m.devKey, body: { planId: plan.body.plan.id, paymentMethod: 'CARD', card: GOOD, client: { name: `Assinante ${i}`, email: `a${i}@example.com`, document: cpf() } } });
      assert.equal(r.status, 201, r.raw);
      ids.push(r.body.subscription.id);
    }
  }
  const at = new Date(Date.now() + 86_400_000 + 60_000);
  takeCounts();
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  while ((await advanceDue(app.deps.subscriptions, at, 50)) > 0);
  const wallMs = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  const counts = takeCounts();
  const paid = await app.deps.db.selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).where('subscription_id', 'in', ids).where('status', '=', 'PAID').executeTakeFirstOrThrow();
  assert.equal(Number(paid.n), N, 'every subscription renewed, once');
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  const per = (x: number) => (x / N).toFixed(2);
  console.log(`${N} renewals: ${per(total)} statements per renewal, ${per((used.user + used.system) / 1000)} ms of this process's CPU per renewal, ${per(wallMs)} ms wall per renewal`);
  for (const [k, v] of Object.entries(counts).sort((a, b) => b[1] - a[1])) console.log(`  ${per(v).padStart(6)}  ${k}`);
} finally {
  await ctx.close();
}
