// e.Rede's request rules as the fake checks them, each broken rule answered with e.Rede's own
// integration returnCode (sources in server.ts). Pure: the fake's routes call these.

export interface Refusal {
  status: number;
  returnCode: string;
  returnMessage: string;
}

const refuse = (returnCode: string, returnMessage: string, status = 400): Refusal => ({ status, returnCode, returnMessage });

/** A field checked for presence, size and format, with e.Rede's codes for each. */
function field(body: Record<string, unknown>, name: string, o: { required?: boolean; size?: [string, (v: string) => boolean]; format?: [string, (v: string) => boolean]; missing?: string }): Refusal | null {
  const v = body[name];
  if (v === undefined || v === null || v === '') return o.required ? refuse(o.missing ?? '0', `${name}: Required parameter missing`) : null;
  const text = String(v);
  if (o.format && !o.format[1](text)) return refuse(o.format[0], `${name}: Invalid parameter format`);
  if (o.size && !o.size[1](text)) return refuse(o.size[0], `${name}: Invalid parameter size`);
  return null;
}

const digits = (v: string) => /^\d+$/.test(v);

/** POST /v2/transactions (credit): the fields and codes of e.Rede's authorisation reference. */
export function checkSale(body: Record<string, unknown>, softDescriptorEnabled: boolean): Refusal | null {
  const holder = body.cardHolderName !== undefined ? 'cardHolderName' : 'cardholderName';
  const checks: Array<Refusal | null> = [
    field(body, 'reference', { required: true, missing: '41', size: ['39', (v) => v.length <= 16], format: ['40', (v) => /^[A-Za-z0-9]+$/.test(v)] }),
    field(body, 'amount', { required: true, missing: '73', format: ['71', (v) => Number.isInteger(body.amount) && digits(v)], size: ['70', (v) => v.length <= 10 && Number(v) > 0] }),
    field(body, 'cardNumber', { required: true, missing: '38', format: ['37', digits], size: ['36', (v) => v.length >= 12 && v.length <= 19] }),
    field(body, 'expirationMonth', { required: true, missing: '35', format: ['33', (v) => digits(v) && Number(v) >= 1 && Number(v) <= 12] }),
    field(body, 'expirationYear', { required: true, missing: '3', format: ['2', digits], size: ['1', (v) => v.length === 2 || v.length === 4] }),
    field(body, 'securityCode', { format: ['16', digits], size: ['15', (v) => v.length >= 3 && v.length <= 4] }),
    field(body, holder, { size: ['55', (v) => v.length <= 30], format: ['59', (v) => /^[A-Za-z ]+$/.test(v)] }),
    field(body, 'installments', { format: ['50', (v) => Number.isInteger(body.installments) && digits(v)], size: ['151', (v) => Number(v) >= 2 && Number(v) <= 12] }),
    field(body, 'softDescriptor', { format: ['32', (v) => /^[A-Za-z0-9 ]+$/.test(v)], size: ['31', (v) => v.length <= 18] }),
    field(body, 'kind', { format: ['76', (v) => v === 'credit'] }),
    body.capture !== undefined && typeof body.capture !== 'boolean' ? refuse('158', 'capture: Type not allowed for this transaction') : null,
    body.softDescriptor !== undefined && !softDescriptorEnabled ? refuse('63', 'softdescriptor: Not enabled for this merchant') : null,
  ];
  return checks.find((c) => c !== null) ?? null;
}

/** An amount of a capture or refund: cents, a positive integer of at most 10 digits. */
export function checkAmount(body: Record<string, unknown>): Refusal | null {
  return field(body, 'amount', { required: true, missing: '73', format: ['71', (v) => Number.isInteger(body.amount) && digits(v)], size: ['70', (v) => v.length <= 10 && Number(v) > 0] });
}

/**
 * The fake's test cards (its own table, as e.Rede's sandbox has its own): the number decides the
 * issuer's answer. Any other card is approved. Codes and messages from e.Rede's returnCode table.
 */
export const DECLINES: Record<string, { returnCode: string; returnMessage: string }> = {
  '4000000000000002': { returnCode: '101', returnMessage: 'Unauthorized. Problems on the card, contact the issuer.' },
  '4000000000009995': { returnCode: '111', returnMessage: 'Unauthorized. Insufficient funds.' },
  '4000000000000069': { returnCode: '112', returnMessage: 'Unauthorized. Expiry date expired.' },
  '4000000000000127': { returnCode: '119', returnMessage: 'Unauthorized. Invalid security code.' },
  '4000000000000119': { returnCode: '121', returnMessage: 'Error processing. Please try again.' },
  '4000000000009979': { returnCode: '118', returnMessage: 'Unauthorized. Card locked.' },
};
