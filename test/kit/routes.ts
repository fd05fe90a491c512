// The app's route table as tests read it: every route the router serves (app.printRoutes), and for
// the documented ones the OpenAPI operation (/openapi.json is generated from the route schemas, and
// each operation's `security` from the route's auth declaration, src/http/auth.ts installAuth).
import { randomUUID } from 'node:crypto';
import type { App } from '../../src/deps.ts';
import { inlineRefs } from './openapi-doc.ts';

/** How a route authenticates, read from its OpenAPI `security`. */
export type AuthKind =
  | 'public' // no security: anyone
  | 'optional' // credentials may be left out; sent ones are checked
  | 'key' // API key only (spec "K")
  | 'token' // dashboard JWT only (account-level routes; /api/admin/... with the ADMIN role)
  | 'keyOrToken'; // API key with the permission, or a dashboard JWT (spec "T")

export interface Route {
  method: string;
  /** OpenAPI form: /api/v1/products/{id}. */
  path: string;
  auth: AuthKind;
  /** Names of the path parameters, in order. */
  params: string[];
  op: Operation;
}

export interface Operation {
  operationId?: string;
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string; required?: boolean; schema?: Schema }[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
}

export type Schema = Record<string, any>;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export function authKind(security: Operation['security']): AuthKind {
  if (!security || security.length === 0) return 'public';
  if (security.some((s) => Object.keys(s).length === 0)) return 'optional';
  const names = new Set(security.flatMap((s) => Object.keys(s)));
  const key = names.has('apiKey') || names.has('bearerApiKey');
  const token = names.has('bearerToken');
  return key && token ? 'keyOrToken' : key ? 'key' : 'token';
}

/** Every documented operation (the OpenAPI document the app serves), HEAD left out. */
export function documentedRoutes(app: App): Route[] {
  const doc = inlineRefs(app.swagger()) as { paths: Record<string, Record<string, Operation>> };
  const routes: Route[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (!METHODS.includes(method)) continue;
      routes.push({ method: method.toUpperCase(), path, auth: authKind(op.security), params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]), op });
    }
  }
  return routes;
}

/**
 * Every route the router serves, as `METHOD /path` with `{param}`s (HEAD left out): read from
 * app.printRoutes's tree, which holds undocumented (`hide: true`) routes too.
 */
export function servedRoutes(app: App): string[] {
  const out: string[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^([│├└─\s]*?)(?:├── |└── )(.*)$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    const node = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(m[2])!;
    stack.length = depth;
    stack.push(node[1]);
    if (!node[2]) continue;
    const path = stack.join('').replace(/^\/+/, '/').replace(/:(\w+)/g, '{$1}');
    for (const method of node[2].split(', ')) if (method !== 'HEAD') out.push(`${method} ${path}`);
  }
  return out;
}

/** The path with each `{param}` replaced (by `values`, else a fresh UUID). */
export function fillPath(path: string, values: Record<string, string> = {}): string {
  return path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? randomUUID()));
}

/** The path of the object a route acts on: the route's path up to its last parameter. */
export function objectPath(path: string): string | null {
  const i = path.lastIndexOf('}');
  return i < 0 ? null : path.slice(0, i + 1);
}

/**
 * A small value the schema accepts: required properties only (and, for `minProperties`, the
 * first optional ones), defaults and enums first. Good for reaching a handler past validation;
 * what the handler then thinks of it is the test's business.
 */
export function sample(schema: Schema | undefined): unknown {
  if (!schema) return undefined;
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.examples?.length) return schema.examples[0];
  for (const union of ['anyOf', 'oneOf', 'allOf'] as const) if (schema[union]) return sample(schema[union][0]);
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const props: Record<string, Schema> = schema.properties ?? {};
      const names = [...(schema.required ?? [])];
      for (const name of Object.keys(props)) if (names.length < (schema.minProperties ?? 0) && !names.includes(name)) names.push(name);
      return Object.fromEntries(names.map((n) => [n, sample(props[n])]));
    }
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => sample(schema.items));
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return false;
    case 'string':
      return sampleString(schema);
    default:
      return null;
  }
}

function sampleString(schema: Schema): string {
  switch (schema.format) {
    case 'uuid':
      return randomUUID();
    case 'email':
      return 'ana@example.com';
    case 'date-time':
      return new Date(Date.now() + 86_400_000).toISOString();
    case 'date':
      return new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    case 'uri':
      return 'https://example.com/x';
  }
  return 'x'.repeat(Math.max(schema.minLength ?? 1, 3));
}

/** A JSON body the route's schema accepts (undefined when the route takes none). */
export function sampleBody(op: Operation): unknown {
  return sample(op.requestBody?.content?.['application/json']?.schema);
}

/** The route's required query parameters, with sample values (`?a=1&b=x`, or ''). */
export function sampleQuery(op: Operation): string {
  const required = (op.parameters ?? []).filter((p) => p.in === 'query' && p.required);
  if (!required.length) return '';
  return `?${required.map((p) => `${p.name}=${encodeURIComponent(String(sample(p.schema)))}`).join('&')}`;
}
