// The development sandbox decides a card that is not one of its fixed test cards the way Cielo's
// sandbox does: by the number's last digit. Cielo, "Credit card in sandbox" (API E-commerce Cielo
// 3.0): https://docs.cielo.com.br/ecommerce-cielo-en/reference/credit-card-in-sandbox-1
// So a merchant who tests here with Cielo's test numbers sees what Cielo's sandbox would answer,
// in Cofre's decline reasons: the same ones the cielo connector gives those ReturnCodes in production
// (test/sandbox-cards.test.ts holds the two together). Pure: no I/O.
import type { CardDeclineReason } from '../connector.ts';

export interface CieloRow {
  /** Cielo's transaction status and ReturnCode / ReturnMessage for that last digit. */
  cielo: string;
  /** Cofre's outcome: approved (null) or the decline reason it maps to. */
  decline: { reason: CardDeclineReason; message: string } | null;
}

/** By last digit. */
export const CIELO_LAST_DIGIT: Record<string, CieloRow> = {
  '0': { cielo: 'Authorized (4/6, Operation performed successfully)', decline: null },
  '1': { cielo: 'Authorized (4/6, Operation performed successfully)', decline: null },
  '2': { cielo: 'Not Authorized (05, Not Authorized)', decline: { reason: 'CARD_DECLINED', message: 'Card declined by the issuer' } },
  '3': { cielo: 'Not Authorized (57, Expired Card)', decline: { reason: 'EXPIRED_CARD', message: 'Card expired' } },
  '4': { cielo: 'Authorized (4/6, Operation performed successfully)', decline: null },
  // Blocked and cancelled cards never approve again: Cofre's hard decline (the card blocked by its issuer).
  '5': { cielo: 'Not Authorized (78, Blocked Card)', decline: { reason: 'STOLEN_CARD', message: 'Card blocked by the issuer: do not retry' } },
  '6': { cielo: 'Not Authorized (99, Time Out)', decline: { reason: 'PROCESSING_ERROR', message: 'The issuer did not answer in time' } },
  '7': { cielo: 'Not Authorized (77, Canceled Card)', decline: { reason: 'STOLEN_CARD', message: 'Card cancelled by the issuer: do not retry' } },
  '8': { cielo: 'Not Authorized (70, Problems with the Credit Card)', decline: { reason: 'INVALID_CARD', message: 'Problem with the card: check its data or use another' } },
  // Cielo answers at random (4 to 99: success or time out); here always approved, so a test repeats.
  '9': { cielo: 'Random Authorization (4 to 99, Operation Successful / Time Out)', decline: null },
};

/** The decline Cielo's sandbox table gives a card number (digits only), or undefined when it approves. */
export function cieloSandboxDecline(number: string): { reason: CardDeclineReason; message: string } | undefined {
  return CIELO_LAST_DIGIT[number.slice(-1)]?.decline ?? undefined;
}
