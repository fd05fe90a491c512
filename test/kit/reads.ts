// A database handle that counts the SELECTs naming a table: for tests of caches, which must not read
// again while fresh, and of reads that callers missing a cache together share.
import type { Kysely } from 'kysely';

export function countingReads<DB>(db: Kysely<DB>, table: string): { db: Kysely<DB>; reads: () => number } {
  let reads = 0;
  const named = `"${table}"`;
  const counted = db.withPlugin({
    transformQuery(args) {
      if (args.node.kind === 'SelectQueryNode' && JSON.stringify(args.node).includes(named)) reads++;
      return args.node;
    },
    transformResult: async (args) => args.result,
  });
  return { db: counted, reads: () => reads };
}
