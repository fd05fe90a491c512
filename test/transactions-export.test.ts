// GET /api/v1/transactions/export?format=csv: the list's rows (its filters and order) as a pt-BR CSV
// file, formula-injection safe, scoped to the merchant and environment, streamed page by page.
// Runs on PGlite (default) and on PostgreSQL (TEST_DATABASE_URL).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { sql } from 'kysely';
import { call, merchant } from './helpers.ts';
import { card, create, ctx, list, m, pay, refund, useTransactionsApp } from './transactions-kit.ts';

useTransactionsApp();

const E = '/api/v1/transactions/export';
const HEADER = 'ID;Código;Criada em;Paga em;Status;Método;Produto;Cliente;E-mail;CPF/CNPJ;Telefone;Valor (R$);Desconto (R$);Valor cobrado (R$);Parcelas;Taxa (R$);Reembolsado (R$);Cartão;Motivo da recusa';

/** The CSV's rows as cells (a parser for the quoting the export uses), header first; checks BOM and CRLF. */
function parse(text: string): string[][] {
  assert.equal(text.charCodeAt(0), 0xfeff, 'starts with a BOM');
  const body = text.slice(1);
  assert.ok(body.endsWith('\r\n'), 'ends with CRLF');
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (quoted) {
      if (ch === '"' && body[i + 1] === '"') (cell += '"'), i++;
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"' && cell === '') quoted = true;
    else if (ch === ';') row.push(cell), (cell = '');
    else if (ch === '\r') {
      assert.equal(body[i + 1], '\n', 'CR is followed by LF');
      row.push(cell), rows.push(row), (row = []), (cell = ''), i++;
    } else {
      assert.notEqual(ch, '\n', 'no bare LF outside quotes');
      cell += ch;
    }
  }
  return rows;
}

const exportCsv = (query = '', key = m.devKey) => call(ctx.app, 'GET', `${E}?format=csv${query}`, { key });
const idsOf = (rows: string[][]) => rows.slice(1).map((r) => r[0]);

async function listIds(query: string, key = m.devKey): Promise<string[]> {
  const ids: string[] = [];
  let cursor = '';
  for (;;) {
    const res = await list(key, `?limit=100${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    assert.equal(res.status, 200, res.raw);
    ids.push(...res.body.transactions.map((t: { id: string }) => t.id));
    if (!res.body.pagination.nextCursor) return ids;
    cursor = res.body.pagination.nextCursor;
  }
}

describe('transactions CSV export', () => {
  let paid: any;
  let boleto: any;
  let injected: any;
  before(async () => {
    paid = await pay(m.devKey, (await create(m.devKey, { amountCents: 123456, product: 'Curso; módulo "avançado"', clientName: 'José Araújo' })).id);
    assert.equal((await refund(m.devKey, paid.id, 10001)).status, 200);
    // 14:05 UTC on 2 March 2026 is 11:05 in São Paulo.
    await sql`update transactions set created_at = ${new Date('2026-03-02T14:05:00Z')}::timestamptz, paid_at = ${new Date('2026-03-02T14:06:30Z')}::timestamptz where id = ${paid.id}`.execute(ctx.database.db);
    boleto = await create(m.devKey, { paymentMethod: 'BOLETO', amountCents: 990 });
    injected = await create(m.devKey, { paymentMethod: 'CARD', amountCents: 5000, card: card('4000000000000002'), product: '=HYPERLINK("http://evil.example/x")', clientName: '@SUM(1+1)', clientPhone: '+55 11 91234-5678' });
  });

  test('is a pt-BR CSV: BOM, CRLF, `;`, the pt-BR header, amounts as 1234,56, São Paulo dates, a download', async () => {
    const res = await exportCsv();
    assert.equal(res.status, 200, res.raw);
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8');
    assert.match(String(res.headers['content-disposition']), /^attachment; filename="cofre-transacoes-desenvolvimento-\d{4}-\d{2}-\d{2}\.csv"$/);
    const rows = parse(res.raw);
    assert.equal(rows[0].join(';'), HEADER);
    assert.ok(rows.every((r) => r.length === rows[0].length), 'every row has every column');
    const stored = await ctx.database.db.selectFrom('transactions').select(['display_id', 'client_email', 'client_document']).where('id', '=', paid.id).executeTakeFirstOrThrow();
    const row = Object.fromEntries(rows[0].map((h, i) => [h, rows.find((r) => r[0] === paid.id)![i]]));
    assert.deepEqual(row, {
      ID: paid.id,
      Código: stored.display_id,
      'Criada em': '02/03/2026 11:05',
      'Paga em': '02/03/2026 11:06',
      Status: 'Reembolsado em parte',
      Método: 'PIX',
      Produto: 'Curso; módulo "avançado"',
      Cliente: 'José Araújo',
      'E-mail': stored.client_email,
      'CPF/CNPJ': stored.client_document,
      Telefone: '',
      'Valor (R$)': '1234,56',
      'Desconto (R$)': '0,00',
      'Valor cobrado (R$)': '1234,56',
      Parcelas: '1',
      'Taxa (R$)': `${Math.floor(paid.feeCents / 100)},${String(paid.feeCents % 100).padStart(2, '0')}`,
      'Reembolsado (R$)': '100,01',
      Cartão: '',
      'Motivo da recusa': '',
    });
    // The quoting as written: the product has `;` and quotes.
    assert.ok(res.raw.includes(';"Curso; módulo ""avançado""";'), 'quoted cell, quotes doubled');
    const b = rows.find((r) => r[0] === boleto.id)!;
    assert.deepEqual([b[4], b[5], b[11], b[3]], ['Pendente', 'Boleto', '9,90', '']);
    // Newest first, like the list.
    assert.deepEqual(idsOf(rows), await listIds(''));
  });

  test('a cell a spreadsheet would run as a formula starts with an apostrophe', async () => {
    const rows = parse((await exportCsv()).raw);
    const r = rows.find((x) => x[0] === injected.id)!;
    assert.equal(r[6], `'=HYPERLINK("http://evil.example/x")`);
    assert.equal(r[7], "'@SUM(1+1)");
    assert.equal(r[10], "'+55 11 91234-5678");
    assert.deepEqual([r[4], r[5]], ['Recusado', 'Cartão']);
    assert.match(r[17], /^\S+ •••• 0002$/);
    assert.ok(r[18].length > 0, 'the decline reason');
    for (const cell of rows.flat()) assert.ok(!/^[=+\-@]/.test(cell), `unsafe cell ${cell}`);
  });

  test("the list's filters and order apply, origin spellings included", async () => {
    for (const q of ['&status=PAID', '&paymentMethod=BOLETO', '&method=CREDIT_CARD', '&orderBy=amountCents&orderDirection=asc', `&createdTo=${encodeURIComponent('2026-03-03T00:00:00Z')}`]) {
      const res = await exportCsv(q);
      assert.equal(res.status, 200, `${q}: ${res.raw}`);
      const listQuery = q.replace('CREDIT_CARD', 'CARD');
      assert.deepEqual(idsOf(parse(res.raw)), await listIds(listQuery), q);
    }
    assert.deepEqual(idsOf(parse((await exportCsv('&paymentMethod=BOLETO')).raw)), [boleto.id]);
    const none = parse((await exportCsv('&status=EXPIRED')).raw);
    assert.deepEqual(none, [HEADER.split(';')]);
  });

  test("another merchant's and the other environment's transactions are never exported", async () => {
    const other = await merchant(ctx.app);
    const theirs = await create(other.devKey, { amountCents: 4444 });
    const mine = idsOf(parse((await exportCsv()).raw));
    assert.ok(!mine.includes(theirs.id));
    assert.deepEqual(idsOf(parse((await exportCsv('', other.devKey)).raw)), [theirs.id]);
    // The dashboard token: development by default, production has none of these.
    const dev = await call(ctx.app, 'GET', E, { token: m.token });
    assert.deepEqual(idsOf(parse(dev.raw)), mine);
    const prod = await call(ctx.app, 'GET', E, { token: m.token, headers: { 'x-environment': 'production' } });
    assert.equal(prod.status, 200);
    assert.match(String(prod.headers['content-disposition']), /producao/);
    assert.deepEqual(parse(prod.raw).length, 1);
  });

  test('permission transactions:read; bad filters are 400 before anything is sent', async () => {
    const writer = await merchant(ctx.app, { permissions: ['transactions:write'] });
    assert.equal((await call(ctx.app, 'GET', E, { key: writer.devKey })).status, 403);
    assert.equal((await call(ctx.app, 'GET', E)).status, 401);
    for (const [q, field] of [['&format=xlsx', 'format'], ['&status=PAGO', 'status'], ['&limit=10', 'limit'], ['&createdFrom=ontem', 'createdFrom']]) {
      const res = await exportCsv(q);
      assert.equal(res.status, 400, res.raw);
      assert.equal(res.body.code, 'VALIDATION_ERROR');
      assert.ok(res.body.errors.some((e: { field: string }) => e.field.endsWith(field)), res.raw);
    }
  });

  test('a large export streams every row once, in order, in several chunks', async () => {
    const big = await merchant(ctx.app);
    const seed = await create(big.devKey, { amountCents: 1000 });
    const n = 4500; // several pages of 1000
    // LATERAL: `(f(row)).*` in a select list would call f once per column of the row, not once.
    await sql`insert into transactions
      select r.* from transactions t, generate_series(1, ${n - 1}) g,
        lateral jsonb_populate_record(null::transactions, to_jsonb(t) || jsonb_build_object(
          'id', gen_random_uuid(), 'display_id', 'BIG' || g, 'pix_txid', null, 'pix_qr_code', null, 'amount_cents', 1000 + g, 'charged_cents', 1000 + g,
          'created_at', t.created_at - g * interval '1 second')) r
      where t.id = ${seed.id}`.execute(ctx.database.db);
    const base = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const res = await fetch(`${base}${E}?format=csv`, { headers: { 'api-key': big.devKey } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('transfer-encoding'), 'chunked');
    assert.equal(res.headers.get('content-length'), null);
    let chunks = 0;
    const parts: Uint8Array[] = [];
    for await (const part of res.body as unknown as AsyncIterable<Uint8Array>) {
      chunks++;
      parts.push(part);
    }
    assert.ok(chunks > 3, `${chunks} chunks`);
    const rows = parse(new TextDecoder('utf-8', { ignoreBOM: true }).decode(Buffer.concat(parts)));
    assert.equal(rows.length, n + 1);
    const ids = idsOf(rows);
    assert.equal(new Set(ids).size, n);
    assert.equal(ids[0], seed.id);
    assert.deepEqual(rows.slice(1, 4).map((r) => r[11]), ['10,00', '10,01', '10,02']);
    assert.equal(rows[n][11], `${Math.floor((1000 + n - 1) / 100)},${String((1000 + n - 1) % 100).padStart(2, '0')}`);
  });
});
