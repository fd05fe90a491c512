// One way for a test file (or a describe block) to boot the real app: useApp() registers the
// before/after hooks of the suite it is called in and returns the running app's context; the
// objects it returns are views that resolve once the before hook has run, so they can be declared
// at the top of a file and used inside tests and hooks.
//
// node:test runs a file's top-level before() hooks concurrently (inside a describe, one after the
// other): a top-level hook that needs the app awaits ready(ctx) first; useMerchant does.
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

/** How each view useApp() or useMerchant() returned finds the promise of its object. */
const booting = new WeakMap<object, () => Promise<object> | undefined>();

/**
 * Boots the app (startApp with `opts`) before the tests of the current suite and closes it after
 * them. Returns the TestContext (app, database, config, limiter, logs).
 */
export function useApp(opts: StartOptions = {}): TestContext {
  let ctx: TestContext | undefined;
  let boot: Promise<TestContext> | undefined;
  before(async () => {
    boot = startApp(opts);
    ctx = await boot;
  });
  after(async () => {
    await (boot ?? Promise.resolve(undefined)).then((c) => c?.close());
    ctx = undefined;
  });
  const view = lateView('useApp(): the app', () => ctx);
  booting.set(view, () => boot);
  return view;
}

/**
 * Resolves with the object behind a view of useApp() or useMerchant() once it is made: for
 * top-level before() hooks, which run concurrently.
 */
export async function ready<T extends object>(view: T): Promise<T> {
  const made = booting.get(view)?.();
  if (!made) throw new Error('ready(): pass what useApp() or useMerchant() returned, from a hook registered after it');
  return (await made) as T;
}

/**
 * Registers a merchant (dashboard token, development key with `permissions` or all; with `live`, an
 * approved KYC and a production key) before the tests of the current suite.
 */
export function useMerchant(ctx: TestContext, opts: { permissions?: Permission[]; live?: boolean } = {}): Merchant {
  let m: Merchant | undefined;
  let making: Promise<Merchant> | undefined;
  before(async () => {
    making = ready(ctx).then((c) => merchant(c.app, opts));
    m = await making;
  });
  const view = lateView('useMerchant(): the merchant', () => m);
  booting.set(view, () => making);
  return view;
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
