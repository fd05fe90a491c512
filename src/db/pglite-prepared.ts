// Named prepared statements on PGlite (the embedded database). PGlite's query() sends every
// statement as an unnamed one: parsed, analysed and planned again each time, which for the big
// fixed statements of the hot paths (the creation statement: ~2 ms of planning on PostgreSQL for
// ~1 ms of execution) is most of their cost. A text registered with prepared() (db/index.ts) is
// sent here as a named statement, parsed and described once per PGlite instance, then only bound
// and executed, with PostgreSQL's own plan cache choosing a generic plan after five runs, as on a
// pooled PostgreSQL connection. Everything else, and every statement inside a transaction (Kysely
// runs those through PGlite's transaction object), goes through query() unchanged.
import type { PGlite, Results } from '@electric-sql/pglite';

type BackendMessage = Awaited<ReturnType<PGlite['execProtocolStream']>>[number];

/** PGlite's module (imported lazily by db/index.ts, so that a PostgreSQL process never loads it). */
type PGliteModule = typeof import('@electric-sql/pglite');

interface Described {
  /** Parameter type OIDs, for PGlite's serializers (as query() does after its own describe). */
  types: number[];
  /**
   * The result's columns as the statement's describe gave them (none for a statement without rows):
   * the same for every execution, so not asked for again (its formats are text, as PGlite binds).
   */
  columns: BackendMessage[];
}

type QueryOptions = Parameters<PGlite['query']>[2];

/** `pglite` with query() sending the texts named by `nameOf` as named prepared statements. */
export function withPreparedStatements(pglite: PGlite, { parse, protocol }: PGliteModule, nameOf: (text: string) => string | undefined): PGlite {
  const described = new Map<string, Described>();
  const { serialize } = protocol;
  const send = (message: Uint8Array) => pglite.execProtocolStream(message, { syncToFs: false });

  async function prepare(name: string, text: string): Promise<Described> {
    const messages = [];
    try {
      await send(serialize.parse({ name, text }));
      messages.push(...(await send(serialize.describe({ type: 'S', name }))));
    } finally {
      await send(serialize.sync());
    }
    const params = messages.find((m) => m.name === 'parameterDescription') as { dataTypeIDs: number[] } | undefined;
    return { types: params?.dataTypeIDs ?? [], columns: messages.filter((m) => m.name === 'rowDescription') };
  }

  async function run(name: string, text: string, params: unknown[], options: QueryOptions): Promise<Results> {
    let statement = described.get(name);
    if (!statement) {
      statement = await prepare(name, text);
      described.set(name, statement);
    }
    const values = params.map((v, i) => {
      if (v === null || v === undefined) return null;
      const serializer = pglite.serializers[statement.types[i]];
      return serializer ? serializer(v) : String(v);
    });
    const messages = [];
    try {
      messages.push(...(await send(serialize.bind({ statement: name, values }))), ...statement.columns);
      messages.push(...(await send(serialize.execute({}))));
    } finally {
      messages.push(...(await send(serialize.sync())));
    }
    await pglite.syncToFs();
    return parse.parseResults(messages, pglite.parsers, options)[0];
  }

  async function query(text: string, params: unknown[] = [], options?: QueryOptions): Promise<Results> {
    const name = nameOf(text);
    if (!name) return pglite.query(text, params, options);
    await pglite._checkReady();
    return pglite._runExclusiveTransaction(() =>
      pglite._runExclusiveQuery(async () => {
        try {
          return await run(name, text, params, options);
        } catch (err) {
          // A table the statement reads changed its columns since it was prepared (0A000, "cached
          // plan must not change result type"): prepared anew, once, as on PostgreSQL.
          if ((err as { code?: string }).code !== '0A000') throw err;
          described.delete(name);
          await send(serialize.close({ type: 'S', name })).catch(() => undefined);
          await send(serialize.sync());
          return run(name, text, params, options);
        }
      }),
    );
  }

  return new Proxy(pglite, {
    get(target, prop) {
      if (prop === 'query') return query;
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
