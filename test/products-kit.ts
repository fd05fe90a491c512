// Shared by the product test files (products-*.test.ts): the requests, over the file's app.
import assert from 'node:assert/strict';
import { call, type TestContext } from './helpers.ts';

export const P = '/api/v1/products';
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function productApi(ctx: TestContext) {
  async function create(key: string, body: Record<string, unknown>) {
    const res = await call(ctx.app, 'POST', P, { key, body });
    assert.equal(res.status, 201, res.raw);
    return res.body.product;
  }
  const get = (key: string, id: string) => call(ctx.app, 'GET', `${P}/${id}`, { key });
  const patch = (key: string, id: string, body: unknown) => call(ctx.app, 'PATCH', `${P}/${id}`, { key, body });
  const del = (key: string, id: string) => call(ctx.app, 'DELETE', `${P}/${id}`, { key });
  const list = (key: string, query = '') => call(ctx.app, 'GET', `${P}${query}`, { key });
  async function total(key: string) {
    const res = await list(key, '?limit=100');
    assert.equal(res.status, 200);
    return res.body.pagination.total as number;
  }
  return { create, get, patch, del, list, total };
}
