// The OpenAPI document serves typed clients: types generated from the live /openapi.json with
// openapi-typescript type-check a small openapi-fetch client (the dashboard's stack, and what a
// merchant would do), which then talks to the running app. Fails if a query parameter with a default
// becomes required again, or an operation loses (or duplicates) its operationId.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { call, cpf, merchant } from './helpers.ts';
import { ready, useApp } from './kit/app.ts';

const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
const ROOT = join(import.meta.dirname, '..');

let doc: any;
let dir: string;
const ctx = useApp();
before(async () => {
  await ready(ctx);
  const res = await call(ctx.app, 'GET', '/openapi.json');
  assert.equal(res.status, 200);
  doc = res.body;
  // Under node_modules so that the generated client resolves openapi-fetch like any project would.
  dir = mkdtempSync(join(ROOT, 'node_modules', '.cache-typed-client-'));
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
});

/** Type-checks `files` (name -> text) in `dir` with the project's compiler options; the diagnostics as text. */
function typecheck(files: Record<string, string>): string[] {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const program = ts.createProgram(
    Object.keys(files).map((n) => join(dir, n)),
    {
      target: ts.ScriptTarget.ES2024,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2024.d.ts', 'lib.dom.d.ts'],
      types: [],
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      allowImportingTsExtensions: true,
    },
  );
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file ? `${d.file.fileName.slice(dir.length + 1)}:${d.file.getLineAndCharacterOfPosition(d.start ?? 0).line + 1} ` : ''}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

const operations = () =>
  Object.entries<any>(doc.paths).flatMap(([path, ops]) =>
    Object.entries<any>(ops)
      .filter(([m]) => METHODS.includes(m))
      .map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
  );

describe('the OpenAPI document for typed clients', () => {
  test('every operation has an operationId, camelCase and unique', () => {
    const seen = new Map<string, string>();
    for (const { name, op } of operations()) {
      assert.equal(typeof op.operationId, 'string', `${name} has no operationId`);
      assert.match(op.operationId, /^[a-z][A-Za-z0-9]*$/, `${name}: operationId ${op.operationId} is not camelCase`);
      assert.equal(seen.get(op.operationId), undefined, `${op.operationId} names both ${seen.get(op.operationId)} and ${name}`);
      seen.set(op.operationId, name);
    }
    // The names a client calls the main operations by.
    const expected: Record<string, string> = {
      listTransactions: 'GET /api/v1/transactions',
      createTransaction: 'POST /api/v1/transactions',
      getTransaction: 'GET /api/v1/transactions/{id}',
      refundTransaction: 'POST /api/v1/transactions/{id}/refund',
      exportTransactions: 'GET /api/v1/transactions/export',
      getReportSummary: 'GET /api/v1/reports/summary',
      getReportTimeseries: 'GET /api/v1/reports/timeseries',
      getBalance: 'GET /api/v1/balance',
      login: 'POST /api/auth/login',
      createCredential: 'POST /api/credentials',
    };
    for (const [id, name] of Object.entries(expected)) assert.equal(seen.get(id), name, id);
  });

  test('no query parameter with a default is documented as required', () => {
    let withDefaults = 0;
    for (const { name, op } of operations()) {
      for (const p of op.parameters ?? []) {
        if (p.in !== 'query' || p.schema?.default === undefined) continue;
        withDefaults++;
        assert.notEqual(p.required, true, `${name}: query parameter ${p.name} has a default and is required`);
      }
    }
    assert.ok(withDefaults > 20, `only ${withDefaults} query parameters with defaults`);
    const list = doc.paths['/api/v1/transactions'].get.parameters;
    for (const n of ['orderBy', 'orderDirection', 'limit']) assert.ok(list.some((p: any) => p.name === n && !p.required), n);
  });

  test('openapi-typescript types type-check an openapi-fetch client that calls by path and names operations, which works against the app', async () => {
    const types = astToString(await openapiTS(structuredClone(doc)));
    const client = `
import createClient from 'openapi-fetch';
import type { operations, paths } from './api.ts';

export function cofre(baseUrl: string, apiKey: string) {
  return createClient<paths>({ baseUrl, headers: { 'API-Key': apiKey } });
}

// Without orderBy / orderDirection / limit: their defaults apply.
export async function latestPaid(baseUrl: string, apiKey: string) {
  const { data, error } = await cofre(baseUrl, apiKey).GET('/api/v1/transactions', { params: { query: { status: 'PAID' } } });
  if (error) throw new Error(error.message);
  const ids: string[] = data.transactions.map((t) => t.id);
  return { ids, hasMore: data.pagination.hasMore };
}

export async function everything(baseUrl: string, apiKey: string) {
  const c = cofre(baseUrl, apiKey);
  await c.GET('/api/v1/transactions');
  await c.GET('/api/v1/products');
  await c.GET('/api/v1/webhooks/deliveries');
  await c.GET('/api/v1/reports/summary');
  const summary = await c.GET('/api/v1/reports/summary', { params: { query: { preset: '7d' } } });
  const rate: number | null | undefined = summary.data?.data.current.card.approvalRate;
  const series = await c.GET('/api/v1/reports/timeseries', { params: { query: { from: '2026-11-01', to: '2026-11-30' } } });
  return { rate, days: series.data?.data.days.map((d) => d.PIX + d.CARD + d.BOLETO) };
}

// Operations by their operationId.
type Query<K extends keyof operations> = operations[K]['parameters']['query'];
export const listQuery: Query<'listTransactions'> = {};
export type Named = [operations['createTransaction'], operations['getTransaction'], operations['refundTransaction'], operations['exportTransactions'], operations['getReportSummary'], operations['getReportTimeseries']];
`;
    assert.deepEqual(typecheck({ 'api.ts': types, 'client.ts': client }), []);

    // The check has teeth: a wrong parameter and an unknown operation are reported.
    const wrong = `
import type { operations } from './api.ts';
import { cofre } from './client.ts';
export const bad = () => cofre('', '').GET('/api/v1/transactions', { params: { query: { orderBy: 'nonsense' } } });
export type Missing = operations['listTransactionz'];
`;
    const diagnostics = typecheck({ 'api.ts': types, 'client.ts': client, 'wrong.ts': wrong });
    assert.equal(diagnostics.filter((d) => d.startsWith('wrong.ts:4')).length, 1, diagnostics.join('\n'));
    assert.equal(diagnostics.filter((d) => d.startsWith('wrong.ts:5')).length, 1, diagnostics.join('\n'));

    // And the client works against the running app (compiled to JavaScript as a project's build would).
    const m = await merchant(ctx.app);
    const created = await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: { product: 'Curso', amountCents: 1500, paymentMethod: 'PIX', clientName: 'Ana Souza', clientEmail: 'ana@example.com', clientDocument: cpf() } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await call(ctx.app, 'POST', `/api/v1/transactions/${created.body.transaction.id}/simulate`, { key: m.devKey, body: { outcome: 'PAID' } });
    const base = await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const js = ts.transpileModule(client, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2024, verbatimModuleSyntax: true } }).outputText;
    writeFileSync(join(dir, 'client.mjs'), js);
    const mod = await import(join(dir, 'client.mjs'));
    assert.deepEqual(await mod.latestPaid(base, m.devKey), { ids: [created.body.transaction.id], hasMore: false });
  });
});
