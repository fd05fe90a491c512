// The origin gateway's envelope on every JSON body, beside the spec's named keys: success bodies add
// `success: true` and `data` (the resource, or the list), error bodies add `success: false`.
//
// Two pieces, both declared once for every route:
// - an onRoute hook (addEnvelope) extends each route's response schemas, so the OpenAPI document
//   shows the two fields, and records how the route's body maps onto `data` (an envelope plan);
// - the serializer compiler (envelopeSerializerCompiler) renders the plan: each part of the body is
//   serialised once and the resource's JSON text is spliced in twice (under its name and under
//   `data`), so the duplicate costs a string concatenation, not a second serialisation, and no body
//   is ever parsed again.
// The envelope is therefore part of the serializer's output: a route that renders its response
// text itself (reply.serialize, as inline idempotency keys do) gets the same text as one that
// sends an object, and a stored response replays byte for byte. Error bodies do not go through
// route serializers (errors.ts renders them) and get `success: false` there.
import fastJsonStringify, { type Schema } from 'fast-json-stringify';
import type { RouteOptions } from 'fastify';

type Json = Record<string, unknown>;
interface ObjectShape {
  properties: Record<string, Json>;
  required: string[];
}

/**
 * How a success body maps onto the envelope:
 * - named: one resource key holding an object or a list (`transaction`, `products`, ...): `data`
 *   is its value;
 * - rest: several keys, or one holding a plain value (`{availableCents, ...}`, `{token, user}`,
 *   `{status}`): `data` is the object of those keys (without `message`, `pagination`, `meta`);
 * - none: only a message: `data` is null;
 * - has-data: the body has its own `data` (withdrawals, operator lists): only `success` is added.
 */
export type EnvelopePlan = { kind: 'named'; key: string } | { kind: 'rest'; keys: string[] } | { kind: 'none' } | { kind: 'has-data' };

/** Carried by an extended response schema (a symbol: neither validators nor the OpenAPI document see it). */
const PLAN = Symbol('envelope plan');
/** Carried by an extended error schema: the schema as the route declared it (what is serialised). */
const FAILURE = Symbol('error envelope');

/** Keys that describe the answer rather than being the resource. */
const AROUND = new Set(['message', 'pagination', 'meta']);

const SUCCESS_TRUE = { type: 'boolean', const: true, description: 'Always true on a success (origin-compatible envelope)' };
const SUCCESS_FALSE = { type: 'boolean', const: false, description: 'Always false on an error (origin-compatible envelope)' };

/** The properties of an object schema, an allOf of objects (Type.Intersect) included; null otherwise. */
function objectShape(schema: Json | undefined): ObjectShape | null {
  if (!schema || typeof schema !== 'object') return null;
  if (schema.type === 'object' && schema.properties) {
    return { properties: schema.properties as Record<string, Json>, required: (schema.required as string[] | undefined) ?? [] };
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((s) => objectShape(s as Json));
    if (parts.some((p) => !p)) return null;
    return {
      properties: Object.assign({}, ...parts.map((p) => p!.properties)),
      required: parts.flatMap((p) => p!.required),
    };
  }
  return null;
}

/** An object or a list (possibly nullable): a resource `data` can be; a lone string or flag is not. */
function structured(schema: Json): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('object') || types.includes('array') || schema.$ref || schema.properties) return true;
  const parts = (schema.anyOf ?? schema.oneOf ?? schema.allOf) as Json[] | undefined;
  return !!parts?.some(structured);
}

/** The plan for a success body of this shape, or null when the body already has its own `success`. */
export function planFor(shape: ObjectShape): EnvelopePlan | null {
  const keys = Object.keys(shape.properties);
  if (keys.includes('success')) return null;
  if (keys.includes('data')) return { kind: 'has-data' };
  const resource = keys.filter((k) => !AROUND.has(k));
  if (resource.length === 1 && structured(shape.properties[resource[0]])) return { kind: 'named', key: resource[0] };
  if (resource.length === 0) return { kind: 'none' };
  return { kind: 'rest', keys: resource };
}

const pick = (shape: ObjectShape, keys: string[]): Json => ({
  type: 'object',
  properties: Object.fromEntries(keys.map((k) => [k, shape.properties[k]])),
  required: shape.required.filter((k) => keys.includes(k)),
});

function successSchema(schema: Json, shape: ObjectShape, plan: EnvelopePlan): Json {
  const data =
    plan.kind === 'named'
      ? { ...shape.properties[plan.key], description: `The same value as \`${plan.key}\` (origin-compatible envelope)` }
      : plan.kind === 'rest'
        ? { ...pick(shape, plan.keys), description: `The same values as ${plan.keys.map((k) => `\`${k}\``).join(', ')} (origin-compatible envelope)` }
        : { type: 'null', description: 'No resource: the message says it all (origin-compatible envelope)' };
  const extended: Json = {
    ...(schema.allOf ? {} : schema),
    type: 'object',
    properties: { ...shape.properties, success: SUCCESS_TRUE, ...(plan.kind === 'has-data' ? {} : { data }) },
    required: [...new Set([...shape.required, 'success', ...(plan.kind === 'has-data' ? [] : ['data'])])],
  };
  if (schema.allOf) delete extended.allOf;
  (extended as Record<symbol, unknown>)[PLAN] = plan;
  return extended;
}

function failureSchema(schema: Json): Json | null {
  const shape = objectShape(schema);
  if (shape) {
    if (shape.properties.success) return null;
    const extended: Json = { ...(schema.allOf ? {} : schema), type: 'object', properties: { ...shape.properties, success: SUCCESS_FALSE }, required: [...shape.required, 'success'] };
    if (schema.allOf) delete extended.allOf;
    (extended as Record<symbol, unknown>)[FAILURE] = schema;
    return extended;
  }
  // A union of error bodies (coupon validation's 400): each object member gets the field.
  if (Array.isArray(schema.anyOf)) {
    const members = schema.anyOf.map((m) => failureSchema(m as Json) ?? m);
    return Object.assign({ ...schema, anyOf: members }, { [FAILURE]: schema });
  }
  return null;
}

/**
 * onRoute hook: extends each JSON response schema with the envelope's fields. Shared references
 * (`$ref` Error / ValidationError) are left as they are: those schemas carry `success` themselves.
 * Hidden routes, and bodies that are not JSON objects (pages, images), are left alone.
 */
export function addEnvelope(route: RouteOptions) {
  const schema = route.schema as { response?: Record<string, Json>; hide?: boolean } | undefined;
  if (!schema?.response || schema.hide) return;
  const response: Record<string, Json> = {};
  for (const [status, s] of Object.entries(schema.response)) {
    response[status] = s;
    if (!s || typeof s !== 'object' || (s as Record<symbol, unknown>)[PLAN] || (s as Record<symbol, unknown>)[FAILURE]) continue;
    if (/^2/.test(status)) {
      const shape = objectShape(s);
      const plan = shape && planFor(shape);
      if (shape && plan) response[status] = successSchema(s, shape, plan);
    } else if (!s.$ref) {
      response[status] = failureSchema(s) ?? s;
    }
  }
  route.schema = { ...schema, response } as RouteOptions['schema'];
}

/** `{...}` + `,extra` before the closing brace (a JSON object text; `{}` gets no comma). */
const splice = (objectText: string, extra: string) => (objectText.length === 2 ? `{${extra}}` : `${objectText.slice(0, -1)},${extra}}`);

type Serializer = (value: unknown) => string;

/**
 * The serializer compiler of every route (fast-json-stringify, as Fastify's default, with the
 * schemas added by app.addSchema): plain for schemas without a plan, enveloped for the others.
 */
export function envelopeSerializerCompiler(externalSchemas: () => Record<string, unknown>) {
  return ({ schema, httpStatus }: { schema: Json; httpStatus?: string }): Serializer => {
    const compile = (s: Json): Serializer => fastJsonStringify(s as unknown as Schema, { schema: externalSchemas() as Record<string, Schema> });
    const plan = (schema as Record<symbol, unknown>)[PLAN] as EnvelopePlan | undefined;
    const declared = (schema as Record<symbol, unknown>)[FAILURE] as Json | undefined;
    if (declared) {
      const body = compile(declared);
      return (value) => {
        const text = body(value);
        return text[0] === '{' ? splice(text, '"success":false') : text;
      };
    }
    if (!plan && schema.$ref && httpStatus && !/^2/.test(httpStatus)) {
      // A shared error body (Error, ValidationError) sent by a route itself rather than thrown:
      // those schemas declare `success`, which the route's object does not carry yet.
      return (value) => JSON.stringify((value as Json).success === undefined ? { ...(value as Json), success: false } : value);
    }
    if (!plan) return compile(schema);
    const shape = objectShape(schema)!;
    const original = Object.keys(shape.properties).filter((k) => k !== 'success' && k !== 'data');
    switch (plan.kind) {
      case 'has-data': {
        const body = compile(pick(shape, [...original, 'data']));
        return (value) => splice(body(value), '"success":true');
      }
      case 'none': {
        const body = compile(pick(shape, original));
        return (value) => splice(body(value), '"success":true,"data":null');
      }
      case 'named': {
        // The body without the resource (fast-json-stringify writes only the properties its schema
        // names), then the resource's text under its name and under `data`.
        const around = compile(pick(shape, original.filter((k) => k !== plan.key)));
        const resource = compile(shape.properties[plan.key]);
        const name = JSON.stringify(plan.key);
        return (value) => {
          const r = (value as Json)[plan.key];
          if (r === undefined) return splice(around(value), '"success":true,"data":null');
          const text = resource(r);
          return splice(around(value), `${name}:${text},"success":true,"data":${text}`);
        };
      }
      case 'rest': {
        const around = compile(pick(shape, original.filter((k) => !plan.keys.includes(k))));
        const data = compile(pick(shape, plan.keys));
        return (value) => {
          const d = data(value);
          const a = around(value);
          const fields = d.length === 2 ? a : splice(a, d.slice(1, -1));
          return splice(fields, `"success":true,"data":${d}`);
        };
      }
    }
  };
}
