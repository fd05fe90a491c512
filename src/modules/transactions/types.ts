// What the payment operations are given (built once by deps.ts), and the options of a creation.
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/index.ts';
import type { Transaction } from '../../db/types.ts';
import type { Cursors } from '../../http/pagination.ts';
import type { PixCharge } from '../../payments/connector.ts';
import type { ConnectorRegistry } from '../../payments/registry.ts';
import type { FeeSchedule } from '../fees/schedule.ts';
import type { AttemptWriter } from './attempts.ts';
import type { ChangeWriter } from './changes.ts';
import type { CreationWriter } from './creation.ts';
import type { StateDeps } from './states.ts';

/** What payments need (built once by deps.ts). */
export interface TransactionDeps extends StateDeps {
  db: Db;
  config: Config;
  /** Which connector takes a new payment, and which one a stored payment goes back to. */
  connectors: ConnectorRegistry;
  cursors: Cursors;
  fees: FeeSchedule;
  log: FastifyBaseLogger;
  /** Writes new transactions, in batches (creation.ts). */
  creations: CreationWriter;
  /** Runs status changes, one merchant's in batches (changes.ts). */
  changes: ChangeWriter;
  /** Records the tries of production card charges before their calls, in batches (attempts.ts). */
  attempts: AttemptWriter;
}

/** Limits around a card charge made by a customer (checkout/limits.ts). */
export interface CardGuard {
  /** Before anything is written: 429 when the caller may not try a card now; counts the attempt as a decline until approved. */
  before(): Promise<void>;
  /** After the provider approved the card: the attempt was no decline. */
  approved(): Promise<void>;
}

export interface CreateOptions {
  /** Card-testing limits of the public checkout; applied to production charges only. */
  cardGuard?: CardGuard;
  /**
   * Called once the transaction is recorded, before a card is charged: the caller binds what must
   * follow it (its Idempotency-Key, so that no retry can make a second transaction and a second
   * charge; its coupon reservation, so that a declined card gives the use back).
   */
  recorded?: (tx: Transaction) => Promise<void>;
  /** Told what the provider made of a PIX before anything is written (Pix Automático: the authorisation's id). */
  pixCharged?: (pix: PixCharge) => void;
  /**
   * The transaction's id, chosen by the caller beforehand (a subscription cycle's attempt): the
   * provider's reference for the charge, so that issuing the same attempt again finds the same charge.
   */
  id?: string;
}
