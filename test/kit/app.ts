// One way for a test file (or a describe block) to boot the real app: useApp() registers the
// before/after hooks of the suite it is called in and returns the running app's context; the
// objects it returns are views that resolve once the before hook has run, so they can be declared
// at the top of a file and used inside tests and hooks.
//
// node:test runs a file's top-level before() hooks concurrently (inside a describe, one after the
// other): a top-level hook that needs the app awaits ready(ctx) first; useMerchant does.
// The after() hooks run concurrently too: each closes only what its own useBefore() made.
import { after, before, type TestContext as NodeTestContext } from 'node:test';
import type { Permission } from '../../src/http/auth.ts';
import { merchant, startApp, type Merchant, type StartOptions, type TestContext } from '../helpers.ts';

/**
 * A stand-in for an object made later (in a before hook): every property is read from the real one,
 * and reading before it exists fails saying so.
 */
function lateView<T extends object>(what: string, current: () => T | undefined): T {
  const target = (): T => {
    const value = current();
    if (!value) throw new Error(`${what} is not ready: use it inside a test or a hook that runs after its before() hook`);
    return value;
  };
  return new Proxy({} as T, {
    get(_, prop) {
      const t = target();
      const value = Reflect.get(t, prop, t);
      return typeof value === 'function' ? value.bind(t) : value;
    },
    has: (_, prop) => Reflect.has(target(), prop),
    ownKeys: () => Reflect.ownKeys(target()),
    getOwnPropertyDescriptor(_, prop) {
      const d = Reflect.getOwnPropertyDescriptor(target(), prop);
      return d && { ...d, configurable: true };
    },
    set: () => {
      throw new Error(`${what} is read-only`);
    },
  });
}

/** How each view made by useBefore() finds the promise of its object. */
const making = new WeakMap<object, () => Promise<object> | undefined>();

/**
 * Makes an object in a before() hook of the current suite (and closes it in an after() hook):
 * returns a view of it, usable in tests and later hooks. What the app, merchants and other
 * fixtures (a receiver, a second app) are built on.
 */
export function useBefore<T extends object>(what: string, make: () => Promise<T>, close?: (t: T) => unknown): T {
  let value: T | undefined;
  let promise: Promise<T> | undefined;
  before(async () => {
    promise = make();
    value = await promise;
  });
  if (close) {
    after(async () => {
      const made = await promise?.catch(() => undefined);
      value = undefined;
      if (made) await close(made);
    });
  }
  const view = lateView(what, () => value);
  making.set(view, () => promise);
  return view;
}

/**
 * Resolves with the object behind a view (of useApp, useMerchant, useBefore) once it is made: for
 * top-level before() hooks, which run concurrently.
 */
export async function ready<T extends object>(view: T): Promise<T> {
  const made = making.get(view)?.();
  if (!made) throw new Error('ready(): pass what useApp(), useMerchant() or useBefore() returned, from a hook registered after it');
  return (await made) as T;
}

/**
 * Boots the app (startApp with `opts`, or with what `opts()` gives when options are known only in
 * the hook: a receiver's certificate) before the tests of the current suite and closes it after
 * them. Returns the TestContext (app, database, config, limiter, logs).
 */
export function useApp(opts: StartOptions | (() => Promise<StartOptions>) = {}): TestContext {
  return useBefore('useApp(): the app', async () => startApp(typeof opts === 'function' ? await opts() : opts), (ctx) => ctx.close());
}

/**
 * Registers a merchant (dashboard token, development key with `permissions` or all; with `live`, an
 * approved KYC and a production key) before the tests of the current suite.
 */
export function useMerchant(ctx: TestContext, opts: { permissions?: Permission[]; live?: boolean } = {}): Merchant {
  return useBefore('useMerchant(): the merchant', async () => merchant((await ready(ctx)).app, opts));
}

/** A new merchant with a production key; null, with the test skipped saying why, when none can be made. */
export async function liveMerchant(ctx: TestContext, t: NodeTestContext): Promise<Merchant | null> {
  try {
    return await merchant(ctx.app, { live: true });
  } catch (err) {
    t.skip(`a PRODUCTION key could not be created (outside this suite's scope): ${(err as Error).message}`);
    return null;
  }
}
