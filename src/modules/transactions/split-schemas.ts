// The split rule of a sale, a link, a checkout or a plan (modules/splits; docs/splits.md): here so
// the payment core's creation body can name it without importing the splits module.
import { Type } from '@sinclair/typebox';
import { Uuid } from '../../http/schemas.ts';
import { MAX_SPLIT_RECIPIENTS } from '../../payments/splits.ts';

export const Basis = Type.Union([Type.Literal('NET'), Type.Literal('GROSS')], {
  description: 'What a percentage (or a fixed amount) is of: NET, the sale less the gateway fee (default); GROSS, what the shopper paid.',
});

const SplitRecipientBody = Type.Object(
  {
    walletId: Uuid,
    fixedCents: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000_000, description: 'A fixed amount, in cents. Exactly one of fixedCents and percentageBp.' })),
    percentageBp: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, description: 'A share in basis points (1000 = 10%), rounded down to the cent.' })),
    basis: Type.Optional(Basis),
    chargeFees: Type.Optional(
      Type.Boolean({ description: 'GROSS only: the share bears its part of the gateway fee (fee x share / gross). Default false: the seller of record pays the fee.' }),
    ),
  },
  { additionalProperties: false },
);

export const SplitBody = Type.Array(SplitRecipientBody, {
  maxItems: MAX_SPLIT_RECIPIENTS,
  description:
    "Who else receives a share of each sale: your sub-accounts' wallets, your platform's (when you are a sub-account), or partners who accepted your invitation (POST /api/v1/split-partners), at most 10; any other wallet: 400 SPLIT_RECIPIENT_NOT_ALLOWED. The shares together never exceed the sale's net (400 SPLIT_EXCEEDS_AMOUNT); the remainder stays with you. Each share lands as the sale settles (a card's instalments) and is reversed in proportion by refunds and chargebacks. See docs/splits.md.",
});

