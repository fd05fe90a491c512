// Schema-driven fuzz of the whole API: reads the app's own /openapi.json and sends a few thousand
// requests from a seeded generator across every operation, with values that fit the schema and
// hostile ones (NUL, huge and non-finite numbers, deep JSON, long strings, wrong types, unicode,
// prototype keys), with no, wrong, foreign and valid credentials. Nothing may answer 5xx, and every
// error must come in the gateway's shapes (docs/errors.md). Seeded: a failure names the seed and
// request number, and FUZZ_SEED=<n> replays it.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';
import { call, cpf, merchant, operator, type Merchant } from './helpers.ts';
import { ready, useApp, useBefore, useMerchant } from './kit/app.ts';
import { specBody } from './envelope.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3000);

/** mulberry32: small, fast, good enough to spread the cases; the seed makes a run repeatable. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)];
  return { next, int, pick, chance: (p: number) => next() < p };
}
type Rng = ReturnType<typeof prng>;

type Schema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
  pattern?: string;
  additionalProperties?: boolean | Schema;
  $ref?: string;
};

const HOSTILE_STRINGS = [
  'a\u0000b',
  '\u0000',
  'x'.repeat(10_000),
  '',
  ' ',
  '😀👩‍👩‍👧‍👦'.repeat(50),
  '\u202Egnp.exe',
  'ｓｃｒｉｐｔ',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4j lookup string, hostile on purpose
  '${jndi:ldap://127.0.0.1/a}',
  '../../../../etc/passwd',
  '\r\nX-Injected: 1',
  '\uD800',
  'Infinity',
  'NaN',
  '-0',
  '1e308',
  '9223372036854776000',
  '%00',
  '%E0%A4%A',
  '__proto__',
];
// biome-ignore lint/correctness/noPrecisionLoss: 9007199254740993 is not a double on purpose (2^53 + 1)
const HOSTILE_NUMBERS = [1e308, -1e308, 2 ** 63, -(2 ** 63), 9007199254740993, -1, 0, 0.5, -0.000001, 1e-308, 2147483648];

/** A value the generator makes for `schema`: mostly valid-ish, sometimes hostile. */
class Generator {
  private rng: Rng;
  private ids: string[];
  private slugs: string[];
  private doc: { components?: { schemas?: Record<string, Schema> } };
  constructor(rng: Rng, doc: Generator['doc'], ids: string[], slugs: string[]) {
    this.rng = rng;
    this.doc = doc;
    this.ids = ids;
    this.slugs = slugs;
  }

  private resolve(s: Schema): Schema {
    if (s.$ref) return this.doc.components?.schemas?.[s.$ref.split('/').pop()!] ?? {};
    return s;
  }

  hostile(depth = 0): unknown {
    const r = this.rng;
    switch (r.int(0, 7)) {
      case 0:
      case 1:
        return r.pick(HOSTILE_STRINGS);
      case 2:
        return r.pick(HOSTILE_NUMBERS);
      case 3:
        return r.pick([null, true, false, [], {}]);
      case 4: {
        let v: unknown = 'deep';
        for (let i = 0; i < r.int(20, 40); i++) v = r.chance(0.5) ? [v] : { a: v };
        return v;
      }
      case 5:
        return depth < 2 ? { ['__proto__']: { admin: true }, constructor: { prototype: { x: 1 } } } : 'x';
      case 6:
        return Array.from({ length: r.int(0, 3) }, () => (depth < 2 ? this.hostile(depth + 1) : 1));
      default:
        return r.pick(['a\u0000', 'ok', 1, -1]);
    }
  }

  value(schema: Schema, hostility: number, depth = 0): unknown {
    const r = this.rng;
    const s = this.resolve(schema);
    if (depth > 6) return null;
    if (r.chance(hostility)) return this.hostile(depth);
    if (s.const !== undefined) return s.const;
    if (s.enum) return r.pick(s.enum);
    const alternatives = s.anyOf ?? s.oneOf;
    if (alternatives) return this.value(r.pick(alternatives), hostility, depth + 1);
    if (s.allOf) return Object.assign({}, ...s.allOf.map((x) => this.value(x, hostility, depth + 1)));
    const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : ['string'];
    const type = r.pick(types);
    switch (type) {
      case 'null':
        return null;
      case 'boolean':
        return r.chance(0.5);
      case 'integer':
      case 'number': {
        const lo = s.minimum ?? 0;
        const hi = Math.min(s.maximum ?? 1_000_000, lo + 1_000_000);
        const n = r.chance(0.2) ? r.pick([lo, hi]) : r.int(lo, hi);
        return type === 'number' && r.chance(0.3) ? n + 0.5 : n;
      }
      case 'array': {
        const n = r.int(s.minItems ?? 0, Math.min(s.maxItems ?? 3, (s.minItems ?? 0) + 3));
        return Array.from({ length: n }, () => this.value(s.items ?? {}, hostility, depth + 1));
      }
      case 'object': {
        const out: Record<string, unknown> = {};
        for (const [k, v] of Object.entries(s.properties ?? {})) {
          if (s.required?.includes(k) ? r.chance(0.95) : r.chance(0.5)) out[k] = this.value(v, hostility, depth + 1);
        }
        if (s.additionalProperties && typeof s.additionalProperties === 'object' && r.chance(0.5)) {
          out[r.pick(['utm_source', 'k', 'chave', 'a\u0000', '😀'])] = this.value(s.additionalProperties, hostility, depth + 1);
        }
        if (r.chance(0.05)) out[r.pick(['unknownField', '__proto__', 'constructor'])] = 1;
        return out;
      }
      default:
        return this.string(s);
    }
  }

  string(s: Schema): string {
    const r = this.rng;
    switch (s.format) {
      case 'uuid':
        return r.chance(0.8) ? r.pick(this.ids) : '0190f0f0-0000-7000-8000-00000000000' + r.int(0, 9);
      case 'email':
        return r.pick(['ana@example.com', 'x@y.co', 'UPPER@EXAMPLE.COM', 'a+b@example.com.br']);
      case 'date-time':
        return r.pick([new Date(Date.now() + r.int(-5, 30) * 86_400_000).toISOString(), '2026-13-40T99:00:00Z', '1970-01-01T00:00:00Z']);
      case 'date':
        return r.pick(['2026-12-31', '1990-01-01', '2099-02-29', '0000-00-00']);
      case 'uri':
        // Loopback only: nothing the fuzz makes may send traffic off this machine.
        return r.pick(['https://127.0.0.1:9/hook', 'http://127.0.0.1:9/', 'https://[::1]:9/x', 'javascript:alert(1)']);
    }
    const min = s.minLength ?? 0;
    const max = Math.min(s.maxLength ?? 40, min + 40);
    const roll = r.int(0, 5);
    if (roll === 0) return r.pick(this.slugs);
    if (roll === 1) return cpf();
    const alphabet = roll === 2 ? 'abcdefghijklmnopqrstuvwxyz0123456789' : 'aZ09 -_.ãçé€😀<>"\'&';
    let out = '';
    const n = r.int(min, max);
    while ([...out].length < n) out += alphabet[r.int(0, alphabet.length - 1)];
    return out;
  }
}

/** Percent-encodes text; a lone surrogate becomes the bytes of an invalid UTF-8 sequence (hostile on purpose). */
const enc = (s: string) => (s.isWellFormed() ? encodeURIComponent(s) : encodeURIComponent(s.toWellFormed()) + '%ED%A0%80');

interface Operation {
  method: string;
  path: string;
  params: { name: string; in: string; required?: boolean; schema: Schema }[];
  body: Schema | null;
  /** The credential kinds the route takes (from its OpenAPI security). */
  takesKey: boolean;
  takesToken: boolean;
}

let victim: Merchant;
let ops: Operation[];
let doc: any;
const ids: string[] = [];
const slugs: string[] = [];

// Private targets allowed so that URL fields never trigger a DNS lookup; the URLs are loopback only.
const ctx = useApp({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' } });
const m = useMerchant(ctx, { live: true });
const other = useMerchant(ctx);
const admin = useBefore('an operator', async () => operator((await ready(ctx)).app));
before(async () => {
  await Promise.all([ready(ctx), ready(m)]);
  victim = await merchant(ctx.app); // logout and password changes spend this one's session
  // Real objects so that ids in paths and bodies often exist.
  const made = [
    await call(ctx.app, 'POST', '/api/v1/products', { key: m.devKey, body: { name: 'Caneca', price: 3500, stockEnabled: true, stockQuantity: 5 } }),
    await call(ctx.app, 'POST', '/api/clients', { key: m.devKey, body: { name: 'Pedro', email: 'pedro@example.com', document: cpf() } }),
    await call(ctx.app, 'POST', '/api/v1/transactions', { key: m.devKey, body: { product: 'Plano', amountCents: 7990, clientName: 'Ana', clientEmail: 'ana@example.com', clientDocument: cpf(), paymentMethod: 'PIX' } }),
    await call(ctx.app, 'POST', '/api/v1/payment-links', { key: m.devKey, body: { title: 'Ingresso', amountCents: 10000 } }),
    await call(ctx.app, 'POST', '/api/v1/coupons', { key: m.devKey, body: { code: 'FUZZ10', type: 'PERCENTAGE', value: 10 } }),
    await call(ctx.app, 'POST', '/api/credentials', { token: m.token, body: { name: 'spare', environment: 'DEVELOPMENT' } }),
    await call(ctx.app, 'POST', '/api/v1/webhooks/subscriptions', { key: m.devKey, body: { url: 'https://127.0.0.1:9/hook', events: ['transaction.created'] } }),
  ];
  for (const res of made) {
    const found = JSON.stringify(res.body).match(/"id":"([0-9a-f-]{36})"/);
    if (found) ids.push(found[1]);
    const slug = JSON.stringify(res.body).match(/"slug":"([^"]+)"/);
    if (slug) slugs.push(slug[1]);
  }
  assert.ok(ids.length >= 5, `fixtures: ${made.map((r) => r.status).join(',')}`);
  const paid = await call(ctx.app, 'POST', `/api/v1/transactions/${ids[2]}/simulate`, { key: m.devKey, body: { outcome: 'PAID' } });
  assert.equal(paid.status, 200, paid.raw);

  doc = (await call(ctx.app, 'GET', '/openapi.json')).body;
  ops = [];
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      ops.push({
        method: method.toUpperCase(),
        path,
        params: op.parameters ?? [],
        body: op.requestBody?.content?.['application/json']?.schema ?? null,
        takesKey: (op.security ?? []).some((x: object) => 'apiKey' in x),
        takesToken: (op.security ?? []).some((x: object) => 'bearerToken' in x),
      });
    }
  }
});

/** The shape every error must have: the 400 body, or { message } alone (docs/errors.md). */
function shapeProblem(op: Operation, status: number, headers: Record<string, unknown>, body: any): string | null {
  if (status < 400) return null;
  if (!String(headers['content-type'] ?? '').startsWith('application/json')) {
    // Hosted pages answer their 404 as a page.
    return String(headers['content-type']).startsWith('text/html') && status === 404 ? null : `non-JSON ${status} (${headers['content-type']})`;
  }
  if (!body || typeof body !== 'object') return 'error body is not a JSON object';
  if (status === 400) {
    // Coupon validation (and its origin-compatible alias) answers an unusable coupon with the spec's { valid: false, message }.
    if (['/api/coupons/validate', '/api/v1/coupons/validate'].includes(op.path) && body.valid === false && Object.keys(body).join() === 'valid,message') return null;
    if (Object.keys(body).join() !== 'message,code,timestamp,path,errors') return `400 keys ${Object.keys(body).join()}`;
    if (!Array.isArray(body.errors) || !body.errors.every((e: any) => typeof e.field === 'string' && typeof e.message === 'string')) return '400 errors list malformed';
    return null;
  }
  return Object.keys(body).join() === 'message' && typeof body.message === 'string' ? null : `${status} keys ${Object.keys(body).join()}`;
}

test(`fuzz of /openapi.json: ${REQUESTS} seeded requests, no 5xx, every error in the gateway's shape`, { timeout: 170_000 }, async () => {
  const rng = prng(SEED);
  const gen = new Generator(rng, doc, ids, slugs);
  const failures: string[] = [];
  const statuses: Record<string, number> = {};
  for (let i = 0; i < REQUESTS; i++) {
    const op = ops[i % ops.length];
    const hostility = rng.pick([0, 0, 0.05, 0.2, 0.6]);
    let path = op.path;
    const query: string[] = [];
    for (const p of op.params) {
      if (p.in === 'path') {
        const v = rng.chance(0.9) ? gen.value(p.schema, hostility) : rng.pick(['x'.repeat(150), '%00', '%E0%A4%A', '..', '💥']);
        const text = typeof v === 'string' ? v : JSON.stringify(v);
        path = path.replace(`{${p.name}}`, /%[0-9A-F]{2}|%E0%A4%A/.test(text) ? text : enc(text));
      } else if (p.in === 'query' && (p.required || rng.chance(0.4))) {
        const v = gen.value(p.schema, hostility);
        for (const one of Array.isArray(v) && rng.chance(0.5) ? v : [v]) query.push(`${enc(p.name)}=${enc(typeof one === 'string' ? one : JSON.stringify(one))}`);
      }
    }
    if (rng.chance(0.05)) query.push(rng.pick(['page=Infinity', 'limit=1e308', 'cursor=' + 'A'.repeat(600), 'unknown=1', 'page=-1', 'x=%00']));
    const url = path + (query.length ? `?${query.join('&')}` : '');

    const headers: Record<string, string> = {};
    // Mostly the credential the route takes (so requests reach its logic), otherwise any other kind.
    const fitting = op.path.startsWith('/api/admin') ? 'admin' : op.takesKey && (!op.takesToken || rng.chance(0.5)) ? 'key' : op.takesToken ? 'token' : 'none';
    const who = rng.chance(0.7) ? fitting : rng.pick(['key', 'token', 'none', 'other', 'garbage', 'admin']);
    const owner = op.path.startsWith('/api/auth/logout') || op.path.startsWith('/api/auth/password') ? victim : m;
    if (who === 'key') headers['api-key'] = owner.devKey;
    if (who === 'token') headers.authorization = `Bearer ${owner.token}`;
    if (who === 'other') headers['api-key'] = other.devKey;
    if (who === 'admin') headers.authorization = `Bearer ${admin.token}`;
    if (who === 'garbage') headers.authorization = rng.pick(['Bearer x.y.z', 'Bearer ' + 'a'.repeat(5000), 'Basic Zm9vOmJhcg==', 'Bearer cofre_test_' + 'A'.repeat(43)]);
    if (rng.chance(0.15)) headers['idempotency-key'] = rng.pick(['k-' + i, 'x'.repeat(300), 'ã😀', 'same-key']);
    if (rng.chance(0.1)) headers['x-environment'] = rng.pick(['production', 'development', 'staging', 'PRODUCTION']);

    let payload: string | undefined;
    if (op.body || rng.chance(0.05)) {
      headers['content-type'] = rng.chance(0.97) ? 'application/json' : rng.pick(['text/plain', 'application/json; charset=latin1', 'application/x-www-form-urlencoded']);
      const roll = rng.next();
      if (roll < 0.03) payload = '['.repeat(rng.int(30, 3000)) + ']'.repeat(rng.int(0, 3000));
      else if (roll < 0.06) payload = rng.pick(['{"a":', '', 'null', '[]', '"text"', '1e400', '{"__proto__":{"x":1}}', '{"a":1,"a":2}']);
      else payload = JSON.stringify(gen.value(op.body ?? { type: 'object' }, hostility));
    }

    const res = await ctx.app.inject({ method: op.method as any, url, headers, payload });
    const key = `${op.method} ${op.path} -> ${res.statusCode}`;
    statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
    let body: unknown;
    try {
      body = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      body = res.body;
    }
    const where = `#${i} (FUZZ_SEED=${SEED}) ${op.method} ${url.slice(0, 200)} [${who}] body=${(payload ?? '').slice(0, 200)}`;
    // The spec's body inside the origin-compatible envelope (checked here like call() checks it).
    try {
      body = specBody(url, res.statusCode, body);
    } catch (err) {
      failures.push(`${key}: ${where}: envelope: ${(err as Error).message.slice(0, 200)}`);
    }
    if (res.statusCode >= 500) failures.push(`${key}: ${where}: ${res.body.slice(0, 200)}`);
    else {
      const problem = shapeProblem(op, res.statusCode, res.headers, body);
      if (problem) failures.push(`${key}: ${problem}: ${where}: ${res.body.slice(0, 200)}`);
    }
  }
  assert.deepEqual(failures.slice(0, 20), [], `${failures.length} failures; statuses ${JSON.stringify(statuses)}`);
  // The fuzz reached past validation: plenty of successes and of each kind of refusal.
  assert.ok((statuses[200] ?? 0) + (statuses[201] ?? 0) > REQUESTS / 20, JSON.stringify(statuses));
  for (const s of [400, 401, 404]) assert.ok((statuses[s] ?? 0) > 0, `no ${s}: ${JSON.stringify(statuses)}`);
});
