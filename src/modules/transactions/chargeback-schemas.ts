// The chargeback a transaction's body shows, and the merchant's answer to one (POST .../dispute).
import { Type } from '@sinclair/typebox';
import { Nullable, Timestamp, Uuid } from '../../http/schemas.ts';

/** Evidence limits: a dispute's files travel in one JSON body (the API's 1 MiB body limit, base64 included). */
export const DISPUTE_LIMITS = { textMax: 5000, files: 3, fileBytes: 500 * 1024 } as const;
export const EVIDENCE_TYPES = ['application/pdf', 'image/png', 'image/jpeg'] as const;

export const ChargebackView = Type.Object(
  {
    id: Uuid,
    caseId: Type.String({ description: "The acquirer's case id (quote it to the acquirer)" }),
    status: Type.Union([Type.Literal('OPEN'), Type.Literal('CONTESTED'), Type.Literal('WON'), Type.Literal('LOST')], {
      description: 'OPEN: debited, awaiting your answer (POST /api/v1/transactions/{id}/dispute) until respondBy; CONTESTED: your evidence is with the acquirer; WON: the money came back and the transaction is PAID again (PARTIALLY_REFUNDED if refunds stand); LOST: final',
    }),
    response: Nullable(Type.Union([Type.Literal('ACCEPTED'), Type.Literal('CONTESTED')], { description: 'Your answer, once given' })),
    amountCents: Type.Integer({ description: 'What the acquirer took back (at most what was left of the payment)' }),
    feeReturnedCents: Type.Integer({ description: "The fee's share returned with the debit, as a refund returns it: your balance was debited amountCents - feeReturnedCents" }),
    reasonCode: Nullable(Type.String({ description: "The card scheme's reason code as the acquirer gave it" })),
    reason: Nullable(Type.String()),
    respondBy: Nullable(Timestamp),
    openedAt: Timestamp,
    respondedAt: Nullable(Timestamp),
    closedAt: Nullable(Timestamp),
    evidence: Nullable(
      Type.Object({
        text: Type.String(),
        files: Type.Array(Type.Object({ name: Type.String(), contentType: Type.String(), bytes: Type.Integer() }), {
          description: 'What was sent to the acquirer: the files themselves are not kept by the gateway',
        }),
      }),
    ),
  },
  { description: "The transaction's latest chargeback (a card dispute), once it has one: on GET /api/v1/transactions/{id}, the refund, simulate and dispute answers, and the chargeback events (not on lists)" },
);

export const EvidenceFile = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 100, pattern: '^[^/\\\\\\u0000-\\u001f]+$', description: 'File name, no path' }),
    contentType: Type.Union(EVIDENCE_TYPES.map((t) => Type.Literal(t))),
    contentBase64: Type.String({ minLength: 4, maxLength: Math.ceil(DISPUTE_LIMITS.fileBytes / 3) * 4, pattern: '^[A-Za-z0-9+/]+={0,2}$', description: `Base64 of the file, at most ${DISPUTE_LIMITS.fileBytes / 1024} KiB decoded` }),
  },
  { additionalProperties: false },
);

export const DisputeBody = Type.Object(
  {
    action: Type.Union([Type.Literal('ACCEPT'), Type.Literal('CONTEST')], { description: 'ACCEPT: the chargeback is LOST at once (final); CONTEST: text (and files) go to the acquirer, the case is CONTESTED until it decides' }),
    text: Type.Optional(Type.String({ minLength: 20, maxLength: DISPUTE_LIMITS.textMax, description: 'Required to contest: what was sold, when and how it was delivered, what the customer agreed to' })),
    files: Type.Optional(
      Type.Array(EvidenceFile, {
        maxItems: DISPUTE_LIMITS.files,
        description: 'CONTEST only: evidence (invoice, delivery receipt, conversation). Forwarded to the acquirer and not stored by the gateway, which keeps only names, types and sizes: the documents often hold customer data the gateway has no reason to hold, and the acquirer keeps the case file',
      }),
    ),
  },
  { additionalProperties: false },
);
