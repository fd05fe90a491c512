// Two gateway instances over one database (the second with its own connectors), a merchant, and the
// undo list of what a test replaced on them: what the renewal race and crash-recovery tests share.
// The ledger is checked once both are done.
import { after, afterEach, before } from 'node:test';
import type { App } from '../src/deps.ts';
import { assertLedgerBalanced } from './ledger-check.ts';
import { merchant, secondInstance, startApp, type Merchant, type TestContext } from './helpers.ts';

/** Restores what a test replaced (a provider's method, a creation hook); emptied after each test. */
export const undo: (() => void)[] = [];

export interface TwoInstances {
  ctx: TestContext;
  second: App;
  m: Merchant;
}

/** Registers the hooks that start both instances before the tests and close them after; read its fields inside tests. */
export function useTwoInstances(): TwoInstances {
  const w = {} as TwoInstances;
  before(async () => {
    w.ctx = await startApp();
    w.second = await secondInstance(w.ctx);
    w.m = await merchant(w.ctx.app);
  });
  afterEach(() => {
    while (undo.length) undo.pop()!();
  });
  after(async () => {
    await assertLedgerBalanced(w.ctx.app.deps.db);
    await w.second.close();
    await w.ctx.close();
  });
  return w;
}
