// The size budget (docs/decisions.md, rule 9 of DESIGN.md): no source file over 400 lines, no function
// over 80. test/budget.test.ts holds the tree to it; `node scripts/budget.ts` lists the offenders
// (exit code 1 when there are any), so a change can be checked before it is committed.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const FILE_LIMIT = 400;
export const FUNCTION_LIMIT = 80;
export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const DIRS = ['src', 'web/dashboard/src', 'bench', 'scripts', 'test'];

/** Files (or folders, ending in /) left out of the budget entirely, with the reason. */
export const FILES_ASIDE: { path: string; reason: string }[] = [
  { path: 'src/db/migrations/', reason: 'history: a migration is never edited once it has shipped' },
  { path: 'web/dashboard/src/api/schema.d.ts', reason: 'generated from /openapi.json by `npm run dashboard:types`' },
];

/** Functions left out of the function budget by name, with the reason. Route lists and test lists are detected (see isList). */
export const FUNCTIONS_ASIDE: { path: string; name: string; reason: string }[] = [
  { path: 'src/config.ts', name: 'loadConfig', reason: 'config: one flat list of settings read from the environment, in one place' },
];

export interface Offender {
  path: string;
  /** 1-based line of the function; absent for a whole file. */
  line?: number;
  name?: string;
  lines: number;
}

export interface FunctionSize {
  name: string;
  line: number;
  lines: number;
  /** A route list (a Fastify plugin that is mostly registrations) or a test list (a describe/test callback that is mostly nested tests). */
  list: 'routes' | 'tests' | null;
}

const HTTP_REGISTRATIONS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options', 'all', 'route', 'register']);
const TEST_CALLS = new Set(['test', 'it', 'describe', 'suite']);

const lineOf = (sf: ts.SourceFile, pos: number) => sf.getLineAndCharacterOfPosition(pos).line + 1;
const linesOf = (sf: ts.SourceFile, node: ts.Node) => lineOf(sf, node.getEnd()) - lineOf(sf, node.getStart(sf)) + 1;

export function countLines(text: string): number {
  if (text.length === 0) return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

/** The name of the method of a call (`app.get(...)` -> get, `test(...)` -> test, `test.skip(...)` -> test, `t.test(...)` -> test). */
function calleeName(call: ts.CallExpression): string | null {
  const callee = call.expression;
  if (ts.isIdentifier(callee)) return callee.text;
  if (ts.isPropertyAccessExpression(callee)) {
    const base = callee.expression;
    // test.skip / describe.only: the harness function itself
    if (ts.isIdentifier(base) && TEST_CALLS.has(base.text) && !TEST_CALLS.has(callee.name.text)) return base.text;
    return callee.name.text;
  }
  return null;
}

function callOf(statement: ts.Statement): ts.CallExpression | null {
  if (!ts.isExpressionStatement(statement)) return null;
  let e: ts.Expression = statement.expression;
  while (ts.isAwaitExpression(e) || ts.isVoidExpression(e) || ts.isParenthesizedExpression(e)) e = e.expression;
  return ts.isCallExpression(e) ? e : null;
}

/** Lines of a body taken by statements that are calls to one of `names` (looking into loops, ifs and blocks). */
function linesOfCalls(sf: ts.SourceFile, statements: readonly ts.Statement[], names: Set<string>): number {
  let total = 0;
  for (const s of statements) {
    const call = callOf(s);
    if (call) {
      const name = calleeName(call);
      if (name && names.has(name)) total += linesOf(sf, s);
    } else if (ts.isBlock(s)) total += linesOfCalls(sf, s.statements, names);
    else if (ts.isForOfStatement(s) || ts.isForStatement(s) || ts.isForInStatement(s)) total += linesOfCalls(sf, [s.statement], names);
    else if (ts.isIfStatement(s)) total += linesOfCalls(sf, s.elseStatement ? [s.thenStatement, s.elseStatement] : [s.thenStatement], names);
  }
  return total;
}

function mostlyCalls(sf: ts.SourceFile, fn: ts.FunctionLikeDeclaration, names: Set<string>): boolean {
  const body = fn.body;
  if (!body || !ts.isBlock(body)) return false;
  return linesOfCalls(sf, body.statements, names) * 2 >= linesOf(sf, body);
}

const takesApp = (fn: ts.FunctionLikeDeclaration) => fn.parameters.some((p) => ts.isIdentifier(p.name) && (p.name.text === 'app' || p.name.text === 'fastify'));

/** The test/describe call a function is the callback of, if any. */
function harnessCall(fn: ts.Node): ts.CallExpression | null {
  const parent = fn.parent;
  if (!parent || !ts.isCallExpression(parent) || !parent.arguments.includes(fn as ts.Expression)) return null;
  const name = calleeName(parent);
  return name && TEST_CALLS.has(name) ? parent : null;
}

function nameOf(fn: ts.FunctionLikeDeclaration): string {
  if (fn.name && (ts.isIdentifier(fn.name) || ts.isStringLiteral(fn.name) || ts.isPrivateIdentifier(fn.name))) {
    const owner = fn.parent && ts.isClassLike(fn.parent) && fn.parent.name ? `${fn.parent.name.text}.` : '';
    return owner + fn.name.text;
  }
  if (ts.isConstructorDeclaration(fn)) return fn.parent.name ? `${fn.parent.name.text}.constructor` : 'constructor';
  const parent = fn.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && (ts.isIdentifier(parent.name) || ts.isStringLiteral(parent.name))) return parent.name.text;
  if (ts.isPropertyDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isExportAssignment(parent)) return 'default export';
  const harness = harnessCall(fn);
  if (harness) {
    const title = harness.arguments[0];
    const text = title && (ts.isStringLiteral(title) || ts.isNoSubstitutionTemplateLiteral(title)) ? title.text : '…';
    return `${calleeName(harness)}(${JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text)})`;
  }
  if (ts.isCallExpression(parent)) return `callback of ${calleeName(parent) ?? 'a call'}()`;
  return '(anonymous)';
}

/** Every function of a file with its size, and whether it is a route list or a test list. */
export function functionsOf(path: string, text: string): FunctionSize[] {
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, path.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const routesFile = /routes[^/]*\.tsx?$/.test(path);
  const found: FunctionSize[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const fn = node as ts.FunctionLikeDeclaration;
      let list: FunctionSize['list'] = null;
      if ((routesFile || takesApp(fn)) && mostlyCalls(sf, fn, HTTP_REGISTRATIONS)) list = 'routes';
      else if (harnessCall(fn) && mostlyCalls(sf, fn, TEST_CALLS)) list = 'tests';
      found.push({ name: nameOf(fn), line: lineOf(sf, fn.getStart(sf)), lines: linesOf(sf, fn), list });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : sourceFiles(p);
    return /\.tsx?$/.test(e.name) ? [p] : [];
  });
}

const isAside = (path: string) => FILES_ASIDE.some((a) => (a.path.endsWith('/') ? path.startsWith(a.path) : path === a.path));

/** The files over FILE_LIMIT lines and the functions over FUNCTION_LIMIT, outside the asides. Paths are relative to the repository, with /. */
export function offenders(root = ROOT): { files: Offender[]; functions: Offender[] } {
  const files: Offender[] = [];
  const functions: Offender[] = [];
  for (const dir of DIRS) {
    for (const abs of sourceFiles(join(root, dir))) {
      const path = relative(root, abs).split(sep).join('/');
      if (isAside(path)) continue;
      const text = readFileSync(abs, 'utf8');
      const lines = countLines(text);
      if (lines > FILE_LIMIT) files.push({ path, lines });
      for (const f of functionsOf(path, text)) {
        if (f.lines <= FUNCTION_LIMIT || f.list || FUNCTIONS_ASIDE.some((a) => a.path === path && a.name === f.name)) continue;
        functions.push({ path, line: f.line, name: f.name, lines: f.lines });
      }
    }
  }
  const byPath = (a: Offender, b: Offender) => a.path.localeCompare(b.path) || (a.line ?? 0) - (b.line ?? 0);
  return { files: files.sort(byPath), functions: functions.sort(byPath) };
}

export function describe(o: Offender): string {
  return o.line ? `${o.path}:${o.line} ${o.name}: ${o.lines} lines (limit ${FUNCTION_LIMIT})` : `${o.path}: ${o.lines} lines (limit ${FILE_LIMIT})`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { files, functions } = offenders();
  console.log(`files over ${FILE_LIMIT} lines: ${files.length}`);
  for (const o of files) console.log(`  ${describe(o)}`);
  console.log(`functions over ${FUNCTION_LIMIT} lines: ${functions.length}`);
  for (const o of functions) console.log(`  ${describe(o)}`);
  process.exitCode = files.length + functions.length > 0 ? 1 : 0;
}
