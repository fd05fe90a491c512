// The OpenAPI document names every object schema that more than one place uses: it goes once under
// components.schemas and each place refers to it. Routes declare their schemas inline (TypeBox), and
// the envelope puts each resource under its name and again under `data`, so without this the
// document repeated a transaction's schema dozens of times (1.8 MB); Swagger UI and client
// generators then resolve, and clients type, each copy on its own.
type Json = Record<string, unknown>;

/** Smaller shared schemas stay inline: a reference would hide their shape and save little. */
const MIN_CHARS = 300;
/** Keywords whose values are data, not schemas: nothing in them is named. */
const DATA = new Set(['example', 'examples', 'default', 'const', 'enum']);

/** A schema without its own description: two places may describe one shape each in their words. */
function undescribed(node: Json): Json {
  const { description: _, ...rest } = node;
  return rest;
}

function isObjectSchema(node: Json): boolean {
  const types = Array.isArray(node.type) ? node.type : [node.type];
  return types.includes('object') && typeof node.properties === 'object';
}

/** `transactions` -> `Transaction`, `split_rule` -> `SplitRule`: a component's name from where it was first seen. */
function nameFrom(hint: string, plural: boolean): string {
  let base = hint.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''));
  if (plural) base = base.replace(/ies$/, 'y').replace(/(?<!s)s$/, '');
  base = base.charAt(0).toUpperCase() + base.slice(1);
  return /^[A-Za-z]/.test(base) ? base : `Schema${base}`;
}

class Hoister {
  /** Each object schema's JSON text, and how many places in the document have that text. */
  private readonly text = new Map<Json, string>();
  private readonly uses = new Map<string, number>();
  /** Component name by schema text, and the schemas named so far. */
  private readonly names = new Map<string, string>();
  readonly components: Record<string, Json> = {};
  /** The operation being rewritten: what an envelope's `data` object is named after. */
  operation = '';
  /** Names the document's components had already (schemas registered with an $id). */
  private readonly taken: Set<string>;

  constructor(taken: Iterable<string>) {
    this.taken = new Set(taken);
  }

  count(node: unknown): void {
    if (Array.isArray(node)) {
      for (const n of node) this.count(n);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const obj = node as Json;
    if (isObjectSchema(obj)) {
      const text = JSON.stringify(undescribed(obj));
      this.text.set(obj, text);
      this.uses.set(text, (this.uses.get(text) ?? 0) + 1);
    }
    for (const [k, v] of Object.entries(obj)) if (!DATA.has(k)) this.count(v);
  }

  /** A copy of `node` whose shared object schemas are references; `keep` leaves the node itself inline. */
  rewrite(node: unknown, hint: string, plural = false, keep = false): unknown {
    if (Array.isArray(node)) return node.map((n) => this.rewrite(n, hint, plural));
    if (!node || typeof node !== 'object') return node;
    const obj = node as Json;
    const text = this.text.get(obj);
    if (!keep && text && text.length >= MIN_CHARS && (this.uses.get(text) ?? 0) > 1) {
      const ref: Json = { $ref: `#/components/schemas/${this.nameOf(obj, text, hint, plural)}` };
      if (typeof obj.description === 'string') ref.description = obj.description;
      return ref;
    }
    const out: Json = {};
    for (const [k, v] of Object.entries(obj)) {
      if (DATA.has(k)) out[k] = v;
      else if (k === 'properties') out[k] = Object.fromEntries(Object.entries(v as Json).map(([p, s]) => [p, this.rewrite(s, p === 'data' ? `${this.operation} data` : p)]));
      else out[k] = this.rewrite(v, k === 'requestBody' ? `${hint} body` : k === 'responses' ? `${hint} response` : hint, plural || k === 'items');
    }
    return out;
  }

  private nameOf(obj: Json, text: string, hint: string, plural: boolean): string {
    const known = this.names.get(text);
    if (known) return known;
    const base = nameFrom(hint, plural);
    let name = base;
    for (let i = 2; name in this.components || this.taken.has(name); i++) name = `${base}${i}`;
    this.names.set(text, name);
    this.components[name] = {}; // reserved before its body is written: the body may name others
    this.components[name] = this.rewrite(undescribed(obj), hint, plural, true) as Json;
    return name;
  }
}

/** What every operation's parameters, request body and responses are named from. */
function operationHint(method: string, path: string, op: Json): string {
  return typeof op.operationId === 'string' ? op.operationId : `${method} ${path}`;
}

/** The document with its shared object schemas moved to components.schemas (a new object; `doc` is not changed). */
export function hoistSharedSchemas<T extends Json>(doc: T): T {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, Json>>;
  const components = (doc.components ?? {}) as Json;
  const existing = (components.schemas as Json | undefined) ?? {};
  const hoister = new Hoister(Object.keys(existing));
  hoister.count(paths);
  const outPaths: Record<string, Record<string, unknown>> = {};
  for (const [path, ops] of Object.entries(paths)) {
    outPaths[path] = {};
    for (const [method, op] of Object.entries(ops)) {
      hoister.operation = operationHint(method, path, op);
      outPaths[path][method] = hoister.rewrite(op, hoister.operation);
    }
  }
  const schemas = { ...existing, ...hoister.components };
  return { ...doc, paths: outPaths, components: { ...components, schemas } };
}
