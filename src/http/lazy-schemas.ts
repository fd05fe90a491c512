// Route schemas compiled on their first use rather than when each route is registered: compiling
// every route's validators (Ajv) and serializers (fast-json-stringify) was a third of an app's
// start, for routes a test file mostly never calls (it uses a few dozen of hundreds). The server
// compiles them all before it listens (compileAll), so no request pays for one, and a test does too,
// so that a broken schema fails there.
import type { FastifySchemaCompiler, FastifySerializerCompiler } from 'fastify';

type ValidationResult = ReturnType<FastifySchemaCompiler<unknown>>;

export class LazySchemas {
  /** What has not been compiled yet: each entry compiles one schema (a no-op once it has). */
  private pending = new Set<() => void>();

  /** A validator compiler whose validators compile on their first call. */
  validators<T>(compiler: FastifySchemaCompiler<T>): FastifySchemaCompiler<T> {
    return (args) => {
      const compiled = this.once(() => compiler(args) as ValidationResult & ((data: unknown, context?: unknown) => boolean));
      // Ajv's (data, the parent of the validated part, for root coercion); failures in `errors`.
      const validate = ((data: unknown, context?: unknown) => compiled()(data, context)) as ValidationResult;
      Object.defineProperty(validate, 'errors', { get: () => compiled().errors });
      // Fastify hands Ajv the parent of the validated part (so that a root value can be coerced)
      // only to a function that has a `schemaEnv`, as Ajv's own have.
      Object.defineProperty(validate, 'schemaEnv', { value: true });
      return validate;
    };
  }

  /** A serializer compiler whose serializers compile on their first call. */
  serializers<T>(compiler: FastifySerializerCompiler<T>): FastifySerializerCompiler<T> {
    return (args) => {
      const compiled = this.once(() => compiler(args));
      return (value: unknown) => compiled()(value);
    };
  }

  /** Compiles every schema left; returns how many there were. A schema that does not compile throws. */
  compileAll(): number {
    const left = [...this.pending];
    for (const compile of left) compile();
    return left.length;
  }

  private once<T>(build: () => T): () => T {
    let value: T | undefined;
    const compile = () => {
      if (value === undefined) {
        value = build();
        this.pending.delete(compile);
      }
      return value;
    };
    this.pending.add(compile);
    return compile;
  }
}
