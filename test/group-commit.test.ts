// Group commit of transaction creations (db/group-commit.ts): how batches form, with a write the test
// controls. The creation statement on the database: group-commit-statement.test.ts; 200 concurrent
// API creations on PostgreSQL: group-commit-concurrent.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GroupCommit } from '../src/db/group-commit.ts';

// ---------------------------------------------------------------------------------------------
// The batching writer alone, with a write we control.

/** A GroupCommit whose writes wait until released; records each batch. */
function controlled(opts: { maxBatch?: number; minExtraBatch?: number; onePerGroup?: boolean; failIf?: (item: string) => boolean } = {}) {
  const batches: string[][] = [];
  const pending: (() => void)[] = [];
  const gc = new GroupCommit<string, string>({
    maxBatch: opts.maxBatch ?? 200,
    maxInFlight: 2,
    minExtraBatch: opts.minExtraBatch,
    onePerGroup: opts.onePerGroup,
    group: (item) => item.split(':')[0],
    write: async (items) => {
      batches.push(items);
      await new Promise<void>((resolve) => pending.push(resolve));
      if (items.some((i) => opts.failIf?.(i))) throw new Error('statement failed');
      return items.map((i) => `${i} written`);
    },
  });
  /** Lets the oldest waiting write finish, then lets the writer react. */
  const release = async () => {
    pending.shift()!();
    await new Promise((r) => setImmediate(r));
  };
  return { gc, batches, release, pending };
}

describe('group commit: how batches form', () => {
  test('a lone item on an idle writer is written at once, alone (no timer)', async () => {
    const { gc, batches, release } = controlled();
    const p = gc.submit('a:1');
    // Synchronously: the write has started before submit returned.
    assert.deepEqual(batches, [['a:1']]);
    await release();
    assert.equal(await p, 'a:1 written');
  });

  test('items arriving while two batches are in flight join the next batch, up to maxBatch, one group per batch', async () => {
    const { gc, batches, release, pending } = controlled({ maxBatch: 3 });
    const results = ['a:1', 'a:2', 'a:3', 'b:1', 'a:4', 'a:5', 'a:6'].map((i) => gc.submit(i));
    // Two batches in flight at once: the first two items, each alone.
    assert.deepEqual(batches, [['a:1'], ['a:2']]);
    await release();
    // One slot free: the oldest waiting item's group, in arrival order, at most 3.
    assert.deepEqual(batches.at(-1), ['a:3', 'a:4', 'a:5']);
    await release();
    assert.deepEqual(batches.at(-1), ['b:1']);
    await release();
    assert.deepEqual(batches.at(-1), ['a:6']);
    while (pending.length) await release();
    assert.equal(batches.length, 5);
    assert.deepEqual(await Promise.all(results), ['a:1', 'a:2', 'a:3', 'b:1', 'a:4', 'a:5', 'a:6'].map((i) => `${i} written`));
  });

  test('minExtraBatch: a second batch starts only once that many items wait; fewer go together after the first', async () => {
    const { gc, batches, release, pending } = controlled({ minExtraBatch: 3 });
    const results = ['a:1', 'a:2', 'a:3'].map((i) => gc.submit(i));
    // a:1 alone at once; two waiting are fewer than 3: no second batch yet.
    assert.deepEqual(batches, [['a:1']]);
    await release();
    assert.deepEqual(batches, [['a:1'], ['a:2', 'a:3']]);
    // With one in flight, a third waiting item starts the second batch.
    const more = ['a:4', 'a:5', 'a:6'].map((i) => gc.submit(i));
    assert.deepEqual(batches.at(-1), ['a:4', 'a:5', 'a:6']);
    while (pending.length) await release();
    assert.equal(batches.length, 3);
    assert.deepEqual(await Promise.all([...results, ...more]), ['a:1', 'a:2', 'a:3', 'a:4', 'a:5', 'a:6'].map((i) => `${i} written`));
  });

  test('onePerGroup: a group with a batch in flight waits although a slot is free; another group starts meanwhile', async () => {
    const { gc, batches, release, pending } = controlled({ onePerGroup: true });
    const results = ['a:1', 'a:2', 'b:1', 'a:3', 'b:2'].map((i) => gc.submit(i));
    // a:1 alone; a:2 waits for it although a slot is free; b:1 takes that slot.
    assert.deepEqual(batches, [['a:1'], ['b:1']]);
    await release();
    assert.deepEqual(batches.at(-1), ['a:2', 'a:3']);
    while (pending.length) await release();
    assert.deepEqual(batches, [['a:1'], ['b:1'], ['a:2', 'a:3'], ['b:2']]);
    assert.deepEqual(await Promise.all(results), ['a:1', 'a:2', 'b:1', 'a:3', 'b:2'].map((i) => `${i} written`));
  });

  test('nextTurn (PGlite): items submitted in the same turn make one batch, started on the next turn (no timer)', async () => {
    const batches: string[][] = [];
    const gc = new GroupCommit<string, string>({ maxBatch: 200, maxInFlight: 1, nextTurn: true, group: () => 'a', write: async (items) => (batches.push(items), items) });
    const results = ['a:1', 'a:2', 'a:3'].map((i) => gc.submit(i));
    assert.deepEqual(batches, []);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(batches, [['a:1', 'a:2', 'a:3']]);
    assert.deepEqual(await Promise.all(results), ['a:1', 'a:2', 'a:3']);
  });

  test('a batch that fails as a whole is written again item by item: only the bad item fails', async () => {
    const { gc, batches, release, pending } = controlled({ failIf: (i) => i === 'a:bad' });
    const results = ['a:1', 'a:2', 'a:3', 'a:bad', 'a:4'].map((i) => gc.submit(i).then((r) => r, (e: Error) => `failed: ${e.message}`));
    assert.deepEqual(batches, [['a:1'], ['a:2']]);
    await release();
    assert.deepEqual(batches.at(-1), ['a:3', 'a:bad', 'a:4']);
    while (pending.length) await release();
    assert.deepEqual(batches.slice(3), [['a:3'], ['a:bad'], ['a:4']]);
    assert.deepEqual(await Promise.all(results), ['a:1 written', 'a:2 written', 'a:3 written', 'failed: statement failed', 'a:4 written']);
  });

  test('observe is told of each batch once it has finished: its size, how long its oldest item waited, how long it ran', async () => {
    const seen: { size: number; waitedMs: number; ranMs: number }[] = [];
    let release = () => {};
    const gc = new GroupCommit<string, string>({
      maxBatch: 200,
      maxInFlight: 1,
      group: () => 'a',
      write: async (items) => (await new Promise<void>((r) => (release = r)), items),
      observe: (size, waitedMs, ranMs) => seen.push({ size, waitedMs, ranMs }),
    });
    const first = gc.submit('a:1');
    const rest = ['a:2', 'a:3'].map((i) => gc.submit(i));
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(seen.length, 0, 'nothing is told before a batch has finished');
    release();
    await first;
    await new Promise((r) => setImmediate(r));
    release();
    await Promise.all(rest);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(seen.map((s) => s.size), [1, 2]);
    // The lone item started at once; the two others waited for the first batch, which ran >= 20 ms.
    assert.ok(seen[0].waitedMs < 5 && seen[0].ranMs >= 19, JSON.stringify(seen[0]));
    assert.ok(seen[1].waitedMs >= 19 && seen[1].ranMs >= 0, JSON.stringify(seen[1]));
  });
});
