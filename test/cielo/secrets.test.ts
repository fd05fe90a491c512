// The PAN and the CVV live only in the request to Cielo: whatever happens (an approval, a decline,
// a lost answer, a refused request, a time-out, a card token), no log line and no table holds them,
// nor the merchant key or the notification secret.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'kysely';
import { card, cielo, ctx, LATE_MS, orderOf, pay, until } from './kit.ts';

describe('Cielo: card data and secrets stay out of logs and tables', () => {
  test('after sales of every outcome, lost answers, a refused request and a time-out', async () => {
    const cards = ['1', '2', '3', '5', '6', '7', '8'].map((last) => card(last, { cvv: '864' }));
    for (const c of cards) await pay({ card: c });
    cielo.dropAnswer('POST', '/1/sales');
    await pay({ card: cards[0] });
    cielo.failNext(2, 500, 'api');
    await pay({ card: cards[0] });
    cielo.failNext(1, 400, 'api');
    const refused = await pay({ card: cards[0] });
    assert.deepEqual([refused.status, refused.failureReason], ['FAILED', 'PROCESSING_ERROR']);
    cielo.delayNext(1, LATE_MS);
    const late = await pay({ card: cards[0] });
    await until(() => cielo.salesOf(orderOf(late.id)).length === 1);

    const logs = ctx.logs.join('');
    assert.ok(logs.length > 0);
    assert.ok(logs.includes('cielo:'), 'the connector did log (so the check below means something)');
    for (const c of cards) assert.ok(!logs.includes(c.number), `PAN ${c.number.slice(-4)} in the logs`);
    assert.ok(!/"(cvv|SecurityCode)"\s*:\s*"?\d/i.test(logs), 'a CVV field in the logs');
    assert.ok(!logs.includes('"864"'), 'the CVV value in the logs');
    assert.ok(!logs.includes(cielo.merchantKey), 'the merchant key in the logs');
    assert.ok(!logs.includes(cielo.notificationSecret), 'the notification secret in the logs');

    // Every table, as text: the PAN is nowhere (only brand and last 4 are kept).
    const tables = await sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`.execute(ctx.app.deps.db);
    for (const { table_name } of tables.rows) {
      const dump = await sql<{ t: string }>`SELECT coalesce(string_agg(x::text, ' '), '') AS t FROM ${sql.table(table_name)} x`.execute(ctx.app.deps.db);
      for (const c of cards) assert.ok(!dump.rows[0].t.includes(c.number), `PAN in table ${table_name}`);
    }
  });
});
