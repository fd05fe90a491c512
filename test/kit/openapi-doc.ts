// Shared schemas are references in the OpenAPI document (src/http/openapi-components.ts); tests
// that read a request's or an answer's shape read it with each reference replaced by its schema.
type Node = unknown;

/** A copy of `doc` with every `#/components/schemas/...` reference replaced by the schema it names. */
export function inlineRefs<T>(doc: T): T {
  const schemas = ((doc as { components?: { schemas?: Record<string, Node> } }).components?.schemas ?? {}) as Record<string, Node>;
  const inline = (node: Node): Node => {
    if (Array.isArray(node)) return node.map(inline);
    if (!node || typeof node !== 'object') return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
      const target = schemas[ref.slice('#/components/schemas/'.length)];
      if (target === undefined) throw new Error(`dangling $ref ${ref}`);
      return inline(target);
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v)]));
  };
  return inline(doc) as T;
}
