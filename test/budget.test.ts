// The size budget (DESIGN.md, rule 9): no source file over 400 lines and no function over 80, over
// src/, web/dashboard/src/, bench/, scripts/ and test/. What is left out, and why, is listed in
// scripts/budget.ts (FILES_ASIDE, FUNCTIONS_ASIDE); route lists and test lists are detected.
// `node scripts/budget.ts` prints the same list before a commit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describe as describeOffender, FILES_ASIDE, FUNCTIONS_ASIDE, functionsOf, offenders } from '../scripts/budget.ts';

const lines = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i)).join('\n');

test('a function is measured from its first line to its last: declarations, methods, arrows and function expressions', () => {
  const source = [
    'export function declared() {', // 1
    lines(3, (i) => `  const a${i} = ${i};`), // 2-4
    '}', // 5
    'class C {', // 6
    '  method() {', // 7
    '    return 1;', // 8
    '  }', // 9
    '}', // 10
    'const arrow = () => {', // 11
    '  return function inner() { return 2; };', // 12
    '};', // 13
  ].join('\n');
  const sizes = functionsOf('src/x.ts', source).map((f) => [f.name, f.line, f.lines]);
  assert.deepEqual(sizes, [
    ['declared', 1, 5],
    ['C.method', 7, 3],
    ['arrow', 11, 3],
    ['inner', 12, 1],
  ]);
});

test('a Fastify plugin that is mostly route registrations is a route list; a function that takes app but does work is not', () => {
  const route = (i: number) => `  app.get('/r${i}', { schema: {} }, async () => {\n    return ${i};\n  });`;
  const plugin = `export default async function someRoutes(app: App) {\n  const { db } = app.deps;\n${lines(30, route)}\n}`;
  assert.equal(functionsOf('src/modules/x/service.ts', plugin)[0].list, 'routes');
  const worker = `export function build(app: App) {\n${lines(30, (i) => `  const v${i} = compute(${i});`)}\n  app.get('/x', h);\n}`;
  assert.equal(functionsOf('src/modules/x/service.ts', worker)[0].list, null);
});

test('a describe (or test) callback that is mostly nested tests is a test list; a long test is measured', () => {
  const nested = (i: number) => `  test('case ${i}', async () => {\n    assert.ok(${i});\n  });`;
  const suite = `describe('suite', () => {\n  let ctx;\n${lines(30, nested)}\n});`;
  const [outer, first] = functionsOf('test/x.test.ts', suite);
  assert.deepEqual([outer.name, outer.list], ['describe("suite")', 'tests']);
  assert.deepEqual([first.name, first.list, first.lines], ['test("case 0")', null, 3]);
  const long = `test('long', async () => {\n${lines(90, (i) => `  assert.ok(${i});`)}\n});`;
  assert.deepEqual(functionsOf('test/x.test.ts', long).map((f) => [f.name, f.lines, f.list]), [['test("long")', 92, null]]);
});

test('every aside has its reason', () => {
  for (const a of [...FILES_ASIDE, ...FUNCTIONS_ASIDE]) assert.ok(a.reason.length > 10, a.path);
});

test('no source file over 400 lines, no function over 80 (asides in scripts/budget.ts)', () => {
  const { files, functions } = offenders();
  const report = [...files, ...functions].map(describeOffender);
  assert.deepEqual(report, [], `${files.length} file(s) and ${functions.length} function(s) over the budget (node scripts/budget.ts lists them)`);
});
