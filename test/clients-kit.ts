// Shared by the client test files (clients-*.test.ts): bodies and requests, over the file's app.
import assert from 'node:assert/strict';
import { call, cpf, type Res, type TestContext } from './helpers.ts';

export const C = '/api/clients';
export const ALNUM_CNPJ = '12ABC34501DE35';
export const NUMERIC_CNPJ = '11222333000181';
/** What the kit's assert400 checks the path of a client route against. */
export const ON_CLIENTS = { path: /^\/api\/clients/ };
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let n = 0;
/** A valid, not yet used client body. */
export function body(over: Record<string, unknown> = {}) {
  n++;
  return { name: `Cliente ${n}`, email: `cliente${n}@example.com`, document: cpf(), ...over };
}

export const ids = (res: Res) => res.body.clients.map((c: { id: string }) => c.id);

export function clientApi(ctx: TestContext) {
  const post = (key: string, b: unknown) => call(ctx.app, 'POST', C, { key, body: b });
  async function create(key: string, b: Record<string, unknown> = body()) {
    const res = await post(key, b);
    assert.equal(res.status, 201, res.raw);
    return res.body.client;
  }
  const get = (key: string, id: string) => call(ctx.app, 'GET', `${C}/${id}`, { key });
  const patch = (key: string, id: string, b: unknown) => call(ctx.app, 'PATCH', `${C}/${id}`, { key, body: b });
  const del = (key: string, id: string) => call(ctx.app, 'DELETE', `${C}/${id}`, { key });
  const list = (key: string, query = '') => call(ctx.app, 'GET', `${C}${query}`, { key });
  async function total(key: string) {
    const res = await list(key, '?limit=100');
    assert.equal(res.status, 200, res.raw);
    return res.body.pagination.total as number;
  }
  return { post, create, get, patch, del, list, total };
}
