// A new payment: prepared (prepare.ts), written by the creation statement (creation.ts); a card
// given with it is charged next (card.ts).
import { uuidv7Ordered } from '../../db/ids.ts';
import type { Executor } from '../../db/index.ts';
import type { Transaction } from '../../db/types.ts';
import { storeAnswer } from '../../http/idempotency.ts';
import type { Scope } from '../../http/scope.ts';
import type { CardInput } from '../../payments/card.ts';
import { chargeCard } from './card.ts';
import type { KeyAttachment } from './creation.ts';
import type { CheckoutExtras, CreateInput } from './draft.ts';
import { prepare } from './prepare.ts';
import type { CreateOptions, TransactionDeps } from './types.ts';

/** Creates the transaction (and charges the card, when one is given); returns it as stored. */
export async function createTransaction(deps: TransactionDeps, scope: Scope, input: CreateInput, extras: CheckoutExtras = {}, opts: CreateOptions = {}): Promise<Transaction> {
  const { draft, card } = await prepare(deps, scope, input, extras, opts);
  const firstTry = triedWith(scope, card);
  const tx = await deps.creations.insert(draft, firstTry);
  await opts.recorded?.(tx);
  return card ? chargeCard(deps, tx, card, input.capture ?? true, opts.cardGuard, { firstTry }) : tx;
}

/** A production card charge's first try, recorded PENDING by the creation statement (attempts.ts): its id. */
const triedWith = (scope: Scope, card: CardInput | null) => (card && scope.livemode ? uuidv7Ordered() : undefined);

/**
 * Creates the transaction with its Idempotency-Key and response written by the creation statement
 * itself; returns the response text. Throws KeyTaken when the key is taken (nothing is written). A
 * card given is charged after: the key is stored with the PENDING answer and held (a retry from then
 * on replays it and never charges again), and the final answer is stored over it with the charge's
 * outcome, in its commit (else, when the outcome could not be recorded, by the caller).
 */
export async function createTransactionWith(deps: TransactionDeps, scope: Scope, input: CreateInput, attach: KeyAttachment, extras: CheckoutExtras = {}): Promise<string> {
  const { draft, card } = await prepare(deps, scope, input, extras, {});
  if (!card) return deps.creations.insertWith(draft, attach);
  const firstTry = triedWith(scope, card);
  const tx = await deps.creations.insertHeld(draft, attach, firstTry);
  attach.key.state = 'held';
  let answered: { row: Transaction; text: string } | undefined;
  const answer = async (trx: Executor, row: Transaction) => {
    const text = attach.render(row);
    await storeAnswer(trx, attach.key, attach.status, text);
    answered = { row, text };
  };
  const charged = await chargeCard(deps, tx, card, input.capture ?? true, undefined, { firstTry, answer });
  // The outcome's commit stored this answer: nothing is left to store.
  if (answered?.row === charged) {
    attach.key.state = 'settled';
    return answered.text;
  }
  return attach.render(charged);
}
