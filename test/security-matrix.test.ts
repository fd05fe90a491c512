// The security matrix, generated from the route table: every route the app serves is either public
// (listed, with the reason) or authenticated, and every authenticated route is exercised with no
// credential (401), an unknown key (401), keys lacking its permission (403), the wrong kind of
// credential (401), a merchant's token on an operator route (403), and, when its path names an
// object, another merchant's credentials (404) and the other environment's key (404), after which
// the object is unchanged and its owner still reaches it. A new route needs no entry here; one the
// tables in security-fixtures.ts do not cover fails with what to add.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { PERMISSIONS, type Permission } from '../src/http/auth.ts';
import { call, emailedCode, merchant, operator, type Merchant, type Res } from './helpers.ts';
import { ready, useApp, useMerchant } from './kit/app.ts';
import { documentedRoutes, fillPath, objectPath, sampleBody, sampleQuery, servedRoutes, type Route } from './kit/routes.ts';
import { BODIES, canonical, HIDDEN, OBJECTS, PERMISSION_EXCEPTIONS, PUBLIC, RESOURCE_OF, SANDBOX_ONLY, SHARED } from './security-fixtures.ts';

const FIXTURES_FILE = 'test/security-fixtures.ts';
// Production objects need a production provider: the sandbox serves both environments here.
const ctx = useApp({ env: { PAYMENT_PROVIDER: 'sandbox', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
const a = useMerchant(ctx, { live: true }); // owns the objects
const b = useMerchant(ctx, { live: true }); // asks for them
const third = useMerchant(ctx, { live: true }); // joins a's affiliate programs
let op: { token: string };
const allBut = new Map<Permission, string>();
const only = new Map<Permission, string>();
let routes: Route[];

before(async () => {
  await Promise.all([ready(a), ready(b), ready(third)]);
  op = await operator(ctx.app);
  for (const p of PERMISSIONS) {
    only.set(p, await keyOf(a, [p]));
    allBut.set(p, await keyOf(a, PERMISSIONS.filter((q) => q !== p)));
  }
  routes = documentedRoutes(ctx.app);
});

async function keyOf(m: Merchant, permissions: Permission[]): Promise<string> {
  const res = await call(ctx.app, 'POST', '/api/credentials', { token: m.token, body: { name: permissions.join(',').slice(0, 90), environment: 'DEVELOPMENT', permissions } });
  assert.equal(res.status, 201, res.raw);
  return res.body.key;
}

/** How a request is sent: nothing, an API key, or a dashboard token (with X-Environment). */
type Cred = { key?: string; token?: string; env?: 'production' };
/** What a check expects: a status, or only that the request got past authentication (and the object was found). */
type Want = 401 | 403 | 404 | 'passes' | 'found';
const isPublic = (path: string) => Object.keys(PUBLIC).some((p) => path.startsWith(p));
const isAdmin = (r: Route) => r.path.startsWith('/api/admin/');
const routeKey = (r: Route) => `${r.method} ${canonical(r.path)}`;
const wellFormedKey = () => `cofre_test_${randomBytes(32).toString('base64url')}`;

async function send(r: Route, cred: Cred, values: Record<string, string> = {}): Promise<Res> {
  const override = BODIES[routeKey(r)];
  const body = r.method === 'GET' || r.method === 'DELETE' ? undefined : override ? override(values) : sampleBody(r.op);
  const headers: Record<string, string> = cred.env ? { 'x-environment': cred.env } : {};
  // A money-moving route asks a token for a second factor (test/second-factor.test.ts checks the refusals): give one.
  if (cred.token && r.op.parameters?.some((p) => p.in === 'header' && p.name === 'x-second-factor')) {
    const userId = JSON.parse(Buffer.from(cred.token.split('.')[1], 'base64url').toString()).sub as string;
    await ctx.limiter.reset(`second-factor:mail:${userId}`);
    headers['x-second-factor'] = await emailedCode(ctx.app, cred.token, userId);
  }
  return call(ctx.app, r.method, fillPath(r.path, values) + sampleQuery(r.op), { key: cred.key, token: cred.token, headers, body });
}

/** Sends and compares with what is wanted; returns the problem seen, or null. */
async function check(r: Route, label: string, cred: Cred, want: Want, values?: Record<string, string>): Promise<string | null> {
  const res = await send(r, cred, values);
  const s = res.status;
  let ok: boolean;
  if (want === 'passes') ok = s !== 401 && s !== 403 && s < 500;
  else if (want === 'found') ok = s !== 401 && s !== 403 && s !== 404 && s < 500;
  else ok = s === want && res.body !== null && typeof res.body === 'object' && Object.keys(res.body).join() === 'message';
  return ok ? null : `${label}: want ${want === 'passes' ? 'past auth' : want === 'found' ? 'not 401/403/404' : `${want} { message }`}, got ${s} ${res.raw.slice(0, 160)}`;
}

/** The permission a key needs for the route: GET reads, other methods write (exceptions listed). */
function permissionOf(r: Route): Permission | null {
  const exception = PERMISSION_EXCEPTIONS[routeKey(r)];
  if (exception) return exception[0];
  const path = canonical(r.path);
  const prefix = Object.keys(RESOURCE_OF)
    .filter((p) => path === p || path.startsWith(`${p}/`))
    .sort((x, y) => y.length - x.length)[0];
  return prefix ? (`${RESOURCE_OF[prefix]}:${r.method === 'GET' ? 'read' : 'write'}` as Permission) : null;
}

/** A dashboard token of `m` for a check that may end its session (logout, password): a fresh login for /api/auth routes. */
async function tokenFor(r: Route, m: Merchant): Promise<string> {
  if (!r.path.startsWith('/api/auth/')) return m.token;
  // Ending every other session would end the shared merchants' tokens: a merchant of its own.
  if (r.path === '/api/auth/sessions/others') return (await merchant(ctx.app)).token;
  const res = await call(ctx.app, 'POST', '/api/auth/login', { body: { email: m.email, password: m.password } });
  assert.equal(res.status, 200, res.raw);
  return res.body.token;
}

/**
 * Credentials refused before the route runs (401, 403), sent for `values` (a's object, else fresh
 * ids); then credentials that get past authentication (for fresh ids: they may act).
 */
async function credentialChecks(r: Route, values?: Record<string, string>): Promise<(string | null)[]> {
  const out = [await check(r, 'an unknown API key', { key: wellFormedKey() }, 401, values)];
  out.push(r.auth === 'optional' ? await check(r, 'no credential (optional)', {}, 'passes') : await check(r, 'no credential', {}, 401, values));
  if (r.auth === 'key' || r.auth === 'keyOrToken' || r.auth === 'optional') {
    const p = permissionOf(r);
    if (!p) return [...out, `no permission known for ${r.path}: add its area to RESOURCE_OF (or the route to PERMISSION_EXCEPTIONS) in ${FIXTURES_FILE}`];
    out.push(await check(r, `a key with every permission but ${p}`, { key: allBut.get(p) }, 403, values));
    for (const q of PERMISSIONS) if (q !== p) out.push(await check(r, `a key with only ${q}`, { key: only.get(q) }, 403, values));
    out.push(await check(r, `a key with only ${p}`, { key: only.get(p) }, 'passes'));
  }
  if (r.auth === 'key') out.push(await check(r, 'a dashboard token on an API-key route', { token: a.token }, 401, values));
  if (r.auth === 'token') out.push(await check(r, 'an API key on a token route', { key: a.devKey }, 401, values));
  if (isAdmin(r)) {
    out.push(await check(r, "a merchant's token on an operator route", { token: a.token }, 403));
    out.push(await check(r, "an operator's token", { token: op.token }, 'passes'));
  } else if (r.auth === 'token' || r.auth === 'keyOrToken') {
    out.push(await check(r, 'a dashboard token', { token: await tokenFor(r, a) }, 'passes'));
  }
  return out;
}

/** The object the route's path names, as its owner sees it (through the documented GET of that path), or null. */
async function snapshot(r: Route, owner: Merchant, values: Record<string, string>): Promise<string | null> {
  const path = objectPath(r.path)!;
  const get = routes.find((x) => x.method === 'GET' && x.path === path);
  if (!get) return null;
  const res = await send(get, get.auth === 'token' ? { token: owner.token } : { key: owner.devKey }, values);
  return `${res.status} ${JSON.stringify(res.body)}`;
}

/** Another merchant's credentials on the object, and the other environment's on each environment's object: 404. */
async function objectChecks(r: Route, owner: Merchant, dev: Record<string, string>, live: Record<string, string> | null): Promise<(string | null)[]> {
  const viaToken = r.auth === 'token' || r.auth === 'keyOrToken';
  const viaKey = r.auth !== 'token';
  const out: (string | null)[] = [];
  if (!SHARED[routeKey(r)]) {
    if (viaKey) out.push(await check(r, "another merchant's key", { key: b.devKey }, 404, dev));
    if (viaToken) out.push(await check(r, "another merchant's token", { token: b.token }, 404, dev));
  }
  const production = SANDBOX_ONLY[routeKey(r)] ? 403 : 404;
  if (live && viaKey) {
    out.push(await check(r, 'the production key on a development object', { key: owner.liveKey }, production, dev));
    out.push(await check(r, 'the development key on a production object', { key: owner.devKey }, 404, live));
  }
  if (live && viaToken) {
    out.push(await check(r, 'a token in production on a development object', { token: owner.token, env: 'production' }, production, dev));
    out.push(await check(r, 'a token in development on a production object', { token: owner.token }, 404, live));
  }
  return out;
}

/**
 * Every check of one route. With an object in its path (and not an operator route): the object is
 * made in both environments, every refused request is sent for it, the object is then unchanged,
 * and its owner still reaches it (with the one permission the route needs, when the owner is a).
 */
async function routeChecks(r: Route): Promise<string[]> {
  const path = r.params.length && !isAdmin(r) ? canonical(objectPath(r.path)!) : null;
  const fixture = path ? OBJECTS[path] : undefined;
  if (!path || !fixture) {
    const out = await credentialChecks(r);
    if (path) out.push(`no fixture for ${path}: add to OBJECTS in ${FIXTURES_FILE} how a merchant makes one (in each environment)`);
    return out.filter((p) => p !== null);
  }
  const owner = fixture.freshOwner ? await merchant(ctx.app, { live: true }) : a;
  const dev = await fixture.create({ ctx, third }, owner, 'development');
  const live = fixture.accountLevel ? null : await fixture.create({ ctx, third }, owner, 'production');
  const before = await snapshot(r, owner, dev);
  const out = await credentialChecks(r, owner === a ? dev : undefined);
  out.push(...(await objectChecks(r, owner, dev, live)));
  const after = await snapshot(r, owner, dev);
  if (before !== after) out.push(`the refused requests changed the object: before ${before?.slice(0, 200)}, after ${after?.slice(0, 200)}`);
  const p = permissionOf(r);
  const ownerCred = r.auth === 'token' ? { token: owner.token } : owner === a && p ? { key: only.get(p) } : { key: owner.devKey };
  out.push(await check(r, 'its owner', ownerCred, 'found', dev));
  return out.filter((p) => p !== null);
}

describe('the route table', () => {
  test('every route the router serves is documented, or listed in HIDDEN with the reason', () => {
    const documented = new Set(routes.map((r) => `${r.method} ${r.path}`));
    const unlisted = servedRoutes(ctx.app).filter((s) => !documented.has(s) && !Object.keys(HIDDEN).some((h) => s === h || s.startsWith(`${h}/`) || s.startsWith(`${h}*`)));
    assert.deepEqual(unlisted, [], `undocumented routes: document them (schema) or add them to HIDDEN in ${FIXTURES_FILE}`);
  });

  test('every route without credentials is listed in PUBLIC with the reason', () => {
    const unlisted = routes.filter((r) => r.auth === 'public' && !isPublic(r.path)).map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(unlisted, [], `routes without auth: declare config.auth, or add them to PUBLIC in ${FIXTURES_FILE} with the reason`);
    assert.ok(routes.filter((r) => r.auth !== 'public').length > 100, 'the authenticated routes were read');
  });

  test('operator routes (/api/admin/...) take a dashboard token only', () => {
    const admin = routes.filter(isAdmin);
    assert.ok(admin.length >= 10);
    assert.deepEqual(admin.filter((r) => r.auth !== 'token').map((r) => `${r.method} ${r.path} (${r.auth})`), []);
  });

  test('no entry of the tables is stale', () => {
    const paths = new Set(routes.map((r) => canonical(r.path)));
    const keys = new Set(routes.map(routeKey));
    const objects = new Set(routes.map((r) => objectPath(r.path)).filter((p) => p !== null).map((p) => canonical(p)));
    assert.deepEqual(Object.keys(OBJECTS).filter((p) => !objects.has(p)), [], 'OBJECTS without a route');
    assert.deepEqual(Object.keys(RESOURCE_OF).filter((p) => ![...paths].some((x) => x === p || x.startsWith(`${p}/`))), [], 'RESOURCE_OF without a route');
    for (const [name, table] of Object.entries({ SHARED, PERMISSION_EXCEPTIONS, BODIES, SANDBOX_ONLY })) assert.deepEqual(Object.keys(table).filter((k) => !keys.has(k)), [], `${name} without a route`);
  });
});

describe('every authenticated route', () => {
  test('refuses what it must: 401, 403, and 404 for objects that are not the caller\'s', async (t) => {
    const failures: string[] = [];
    for (const r of routes.filter((x) => x.auth !== 'public')) {
      await t.test(`${r.method} ${r.path} (${r.auth})`, async () => {
        const problems = await routeChecks(r);
        failures.push(...problems.map((p) => `${r.method} ${r.path}: ${p}`));
        assert.deepEqual(problems, []);
      });
    }
    assert.deepEqual(failures, []);
  });
});
