import { test } from 'node:test';
import { call, merchant, startApp } from './helpers.ts';
test('dbg', async () => {
  const ctx = await startApp();
  const m = await merchant(ctx.app);
  const r = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: { product: 'x', amountCents: 1000, clientName: 'A B', clientEmail: 'a@b.com', clientDocument: '52998224725', paymentMethod: 'BOLETO' } });
  console.log(r.status, JSON.stringify(r.body));
  console.log(ctx.logs.filter((l) => l.includes('"level":50') || l.includes('rror')).join('\n').slice(0, 3000));
  await ctx.close();
});
