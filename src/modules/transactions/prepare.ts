// Everything before a payment's creation statement: the request checked (draft.ts), the connector
// of its rail chosen and its charge made (a PIX code, a boleto), the row to store.
import { uuidv7 } from '../../db/ids.ts';
import type { PaymentLink } from '../../db/types.ts';
import { validation } from '../../http/errors.ts';
import type { Scope } from '../../http/scope.ts';
import { assertCallableUrl } from '../../http/ssrf.ts';
import type { RailConnector } from '../../payments/registry.ts';
import type { Connector, PayerAddress } from '../../payments/connector.ts';
import { paymentFee } from '../../payments/fees.ts';
import { assertRuleFits, buildDraft, checkInput, normalizeAddress, type CheckoutExtras, type CreateInput } from './draft.ts';
import type { CreateOptions, TransactionDeps } from './types.ts';

/** Everything before the creation statement: the request checked, the provider's charge, the row to store. */
export async function prepare(deps: TransactionDeps, scope: Scope, input: CreateInput, extras: CheckoutExtras, { cardGuard, pixCharged, id: givenId }: Pick<CreateOptions, 'cardGuard' | 'pixCharged' | 'id'>) {
  const { config } = deps;
  const now = new Date();
  // The link a sale names was resolved and checked by the commerce side (checkout, sales/api.ts).
  const link: PaymentLink | null = extras.link ?? null;
  if (input.paymentLinkId && link?.id !== input.paymentLinkId) throw new Error('paymentLinkId given without its payment link resolved');
  const checked = checkInput(input, link, config, now);
  if (input.capture !== undefined && input.paymentMethod !== 'CARD') throw validation('capture', 'is only for card payments');
  if (input.capture === false && !input.card) throw validation('capture', 'an authorisation needs the card: send card, or authorise later with POST /api/v1/transactions/{id}/process');
  if (input.postbackUrl) await assertCallableUrl(input.postbackUrl, 'postbackUrl', { allowPrivate: config.webhooks.allowPrivateTargets });
  const rail = extras.pixAutomatico ? 'PIX_AUTOMATICO' : input.paymentMethod;
  const connector = extras.storedCard?.connector ? deps.connectors.of(extras.storedCard.connector, rail) : deps.connectors.forNew(scope.livemode, rail);
  const fees = await deps.fees.of(scope.userId);
  // Before the provider makes a charge: a split sent with the sale must fit its net (a stored one,
  // a link's or a plan's, is cut to what the sale leaves when it is paid).
  if (input.split) assertRuleFits(extras.split, { chargedCents: checked.chargedCents, feeCents: paymentFee(fees, input.paymentMethod, checked.chargedCents) });
  const guard = input.card && scope.livemode ? cardGuard : undefined;
  await guard?.before();

  const id = givenId ?? uuidv7(now.getTime());
  const payer = { name: checked.clientName, email: checked.clientEmail, document: checked.document };
  // A PIX dueDate given as a date is a due date the provider may charge with (API Pix: cobv).
  const pixDueDate = input.paymentMethod === 'PIX' && input.dueDate && /^\d{4}-\d{2}-\d{2}$/.test(input.dueDate) ? { dueDate: input.dueDate, ...(checked.latePayment ? { latePayment: checked.latePayment } : {}) } : {};
  const automatic = extras.pixAutomatico ? { automatic: extras.pixAutomatico } : {};
  const pix = input.paymentMethod === 'PIX' ? await (connector as RailConnector<'PIX'>).createPix({ transactionId: id, amountCents: checked.chargedCents, expiresAt: checked.expiresAt!, payer, description: checked.product, ...pixDueDate, ...automatic }) : null;
  if (pix) pixCharged?.(pix);
  const address = boletoAddress(input, extras, connector);
  const min = input.paymentMethod === 'BOLETO' ? connector.minBoletoCents : undefined;
  if (min && checked.chargedCents < min) throw validation('amountCents', `a boleto must be at least R$ ${(min / 100).toFixed(2).replace('.', ',')} with this gateway's bank`);
  const boleto =
    input.paymentMethod === 'BOLETO'
      ? await (connector as RailConnector<'BOLETO'>).createBoleto({ transactionId: id, amountCents: checked.chargedCents, dueDate: checked.dueDate!, daysAfterDue: config.boleto.daysAfterDue, payer, address: address as PayerAddress | null, description: checked.product })
      : null;
  const draft = buildDraft({ id, scope, input, checked, fees, provider: connector.name, pix, boleto, extras: { ...extras, address, link: link ?? undefined }, now });
  return { draft, connector, card: input.card ?? null };
}

/** The payer's address: the checkout's, or the API's clientAddress (boletos only; required where the bank registers it). */
function boletoAddress(input: CreateInput, extras: CheckoutExtras, connector: Connector): Record<string, string> | null {
  if (input.clientAddress && input.paymentMethod !== 'BOLETO') throw validation('clientAddress', 'is only for paymentMethod BOLETO');
  const address = input.clientAddress ? normalizeAddress(input.clientAddress, 'clientAddress') : (extras.address ?? null);
  if (input.paymentMethod === 'BOLETO' && !address && connector.needsPayerAddress) throw validation('clientAddress', "is required for boletos with production keys: a registered boleto carries the payer's address");
  return address;
}
