// The JSON body an operation answers with a status, from the generated types (schema.d.ts).
import type { operations } from './schema.d.ts';

export type Json<O extends keyof operations, S extends number = 200> = operations[O]['responses'] extends Record<S, { content: { 'application/json': infer B } }> ? B : never;

/** The JSON body an operation takes. */
export type JsonBody<O extends keyof operations> = NonNullable<operations[O]['requestBody']> extends { content: { 'application/json': infer B } } ? B : never;
