// The shape of the code (docs/decisions.md, Architecture): no import cycles between files, type
// imports included; none between the parts (each domain module, web, http, db, payments, jobs); and
// the layers below the modules (db, payments, http) import nothing above them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import madge from 'madge';

const SRC = new URL('../src/', import.meta.url).pathname;

async function graph(): Promise<Record<string, string[]>> {
  const result = await madge(SRC, {
    fileExtensions: ['ts'],
    tsConfig: new URL('../tsconfig.json', import.meta.url).pathname,
    // Type-only imports are edges too: a type cycle is a design cycle.
    detectiveOptions: { ts: { skipTypeImports: false }, es6: { skipTypeImports: false } },
  });
  return result.obj();
}

/** The part a file belongs to: modules/<domain>, a top-level folder, or a root file itself (the composition root). */
const partOf = (file: string) => (file.startsWith('modules/') ? file.split('/').slice(0, 2).join('/') : file.includes('/') ? file.split('/')[0] : file);
const ROOT = new Set(['deps.ts', 'app.ts', 'main.ts', 'cli.ts', 'logger.ts']);

function cycles(edges: Map<string, Set<string>>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (n: string) => {
    state.set(n, 'open');
    path.push(n);
    for (const m of edges.get(n) ?? []) {
      if (state.get(m) === 'open') found.push([...path.slice(path.indexOf(m)), m]);
      else if (!state.has(m)) visit(m);
    }
    path.pop();
    state.set(n, 'done');
  };
  for (const n of edges.keys()) if (!state.has(n)) visit(n);
  return found;
}

test('no import cycles between files, type imports included', async () => {
  const g = await graph();
  assert.ok(Object.keys(g).length > 50, 'madge read the source tree');
  const fileEdges = new Map(Object.entries(g).map(([f, deps]) => [f, new Set(deps)]));
  assert.deepEqual(cycles(fileEdges), []);
});

test('no cycles between the parts (domain modules, web, http, db, payments, jobs); the composition root sits above them all', async () => {
  const g = await graph();
  const edges = new Map<string, Set<string>>();
  for (const [file, deps] of Object.entries(g)) {
    const from = partOf(file);
    if (ROOT.has(from)) continue;
    for (const d of deps) {
      const to = partOf(d);
      if (to === from) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)!.add(to);
    }
  }
  assert.ok(edges.has('modules/transactions') && edges.has('web'));
  assert.deepEqual(cycles(edges), []);
});

test('the composition root sits above everything: no file outside it imports deps.ts, app.ts, main.ts or logger.ts', async () => {
  const g = await graph();
  const wrong = Object.entries(g).flatMap(([file, deps]) => (ROOT.has(file) ? [] : deps.filter((d) => ROOT.has(d)).map((d) => `${file} -> ${d}`)));
  assert.deepEqual(wrong, []);
});

test('db, payments and http import nothing above them (modules, web, jobs, the composition root)', async () => {
  const g = await graph();
  const above = (d: string) => d.startsWith('modules/') || d.startsWith('web/') || d.startsWith('jobs/') || ROOT.has(d);
  const wrong = Object.entries(g).flatMap(([file, deps]) => (/^(db|payments|http)\//.test(file) ? deps.filter(above).map((d) => `${file} -> ${d}`) : []));
  assert.deepEqual(wrong, []);
});
