// Writing new transactions, in batches (group commit, see db/group-commit.ts and docs/decisions.md):
// the creations of one merchant and environment that wait while others are being written go
// together into ONE statement, so one commit for all of them. A lone creation on an idle system is
// written at once, alone, by the same statement.
//
// The statement does for every row what a creation has always done, in one go: the client upsert,
// the transaction, its transaction.created event with the event's fan-out (see EventLog), the
// payment link's use count, for a request with an Idempotency-Key the key with its response, and for
// a production card charge its first try (attempts.ts).
import { GroupCommit, type GroupCommitOptions } from '../../db/group-commit.ts';
import type { Db } from '../../db/index.ts';
import { shortCode } from '../../db/ids.ts';
import type { Transaction } from '../../db/types.ts';
import { KeyTaken } from '../../http/idempotency.ts';
import type { EventLog } from '../events/service.ts';
import { creationStatement, type CreatedRow, type Creation, type KeyAttachment, type Written } from './creation-statement.ts';

export { arrayLiteral, creationStatement, jsonTexts, type Creation, type KeyAttachment, type Written } from './creation-statement.ts';

export type BatchOptions = Pick<GroupCommitOptions<Creation, Written>, 'maxBatch' | 'maxInFlight' | 'minExtraBatch' | 'nextTurn' | 'observe'>;

/** How creations are batched on each database (see GroupCommit). */
export const BATCH: Record<'postgres' | 'pglite', BatchOptions> = {
  // Up to 200 creations per statement, two statements at a time over the pool, the second only
  // with 24 creations waiting: fewer wait for the first (about a millisecond) and go together, so a
  // steady load forms bigger batches instead of a stream of statements of one or two rows each. A
  // statement costs PostgreSQL about 0.43 ms whatever its size, plus about 0.12 ms a row
  // (bench/statement-cost.ts): at 24 rows its fixed cost is an eighth of a row's. 24 against 16,
  // alternating (bench/HISTORY.md, 2026-11-25): B at 86-108% of the floor (median 101%) against
  // 78-101% (median 88%); 32 was no better; three in flight from 12 worse.
  postgres: { maxBatch: 200, maxInFlight: 2, minExtraBatch: 24 },
  // One connection, in this thread: one statement at a time, started on the next turn of the event
  // loop, so that the requests received while PGlite worked are read and join it.
  pglite: { maxBatch: 200, maxInFlight: 1, nextTurn: true },
};

/** The creations of this process (one per database, built by deps.ts with BATCH of its kind). */
export class CreationWriter {
  private readonly writer: GroupCommit<Creation, Written>;
  /**
   * The Idempotency-Keys of creations waiting or being written, each with the wake-ups of later
   * creations with the same key (see insertWith). Never the creation's own promise: this map lives
   * as long as the process, so V8 keeps its hash tables in the old generation, and what an entry
   * led to was kept through young-generation collections. When the map held each creation's
   * promise, and so its result, a process under load moved every response text to the old
   * generation: 3.1 KB of each creation's allocation survived there, 1.5 KB since
   * (docs/decisions.md, "Garbage collection and V8 flags"; bench/HISTORY.md, 2026-11-26/27).
   */
  private readonly keys = new Map<string, (() => void)[]>();

  constructor(db: Db, events: EventLog, opts: BatchOptions) {
    this.writer = new GroupCommit<Creation, Written>({
      ...opts,
      group: (c) => `${c.draft.user_id}:${c.draft.livemode}`,
      write: (batch) => writeCreations(db, events, batch),
    });
  }

  /** Stores the transaction (with its card charge's first try `attempt`); returns it as stored. */
  async insert(draft: Transaction, attempt?: string): Promise<Transaction> {
    const written = await this.writer.submit({ draft, attach: null, attempt });
    if (!('row' in written) || !written.row) throw new Error('a creation without a key answers its row');
    return written.row;
  }

  /**
   * Stores the transaction with its Idempotency-Key and response; returns the response text. Throws
   * KeyTaken when the key is already stored, or taken by another creation of this process that is
   * waiting or being written (once that one has finished): the request falls back to the usual
   * replay / reuse / in-progress answers (see runIdempotent).
   */
  async insertWith(draft: Transaction, attach: KeyAttachment): Promise<string> {
    return (await this.keyed(draft, attach)).attached;
  }

  /** As insertWith, the stored response being provisional (`withRow`): answers the row too. */
  async insertHeld(draft: Transaction, attach: KeyAttachment, attempt?: string): Promise<Transaction> {
    const { row } = await this.keyed(draft, { ...attach, withRow: true }, attempt);
    if (!row) throw new Error('a held creation answers its row');
    return row;
  }

  private async keyed(draft: Transaction, attach: KeyAttachment, attempt?: string): Promise<{ attached: string; row?: Transaction }> {
    const { userId, livemode, key } = attach.key;
    const id = `${userId}:${livemode}:${key}`;
    const holder = this.keys.get(id);
    if (holder) {
      await new Promise<void>((wake) => holder.push(wake));
      throw new KeyTaken();
    }
    const waiting: (() => void)[] = [];
    this.keys.set(id, waiting);
    try {
      const w = await this.writer.submit({ draft, attach, attempt });
      if (!('attached' in w) || w.attached === undefined) throw new KeyTaken();
      return w;
    } finally {
      this.keys.delete(id);
      for (const wake of waiting) wake();
    }
  }
}

/**
 * Runs the creation statement for a batch. The display id is a random 10 characters; on the rare
 * clash within a merchant the whole statement fails and runs again with new ones.
 */
async function writeCreations(db: Db, events: EventLog, batch: Creation[]): Promise<Written[]> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const creations = batch.map((c) => ({ ...c, draft: { ...c.draft, display_id: shortCode(10) } }));
    try {
      const statement = creationStatement(events, creations);
      const { rows } = await db.executeQuery<CreatedRow>(statement.compile(db));
      return statement.written(rows);
    } catch (err) {
      const e = err as { code?: string; constraint?: string };
      if (e.code === '23505' && e.constraint === 'transactions_user_display') continue;
      throw err;
    }
  }
  throw new Error('could not allocate a display id');
}

