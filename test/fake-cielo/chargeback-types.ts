// The fake Cielo Chargeback API's records and public face (chargeback.ts builds it).
import type { IncomingHttpHeaders } from 'node:http';

export interface CbAnswer {
  status: number;
  body?: unknown;
}

/** An answer a merchant sent: an accept, or a refusal with its document. */
export interface CbAnswerSent {
  kind: 'accept' | 'refuse';
  userName: string;
  reasonToRefuse?: string;
  file?: { name: string; contentType: string | null; bytes: Buffer };
}

/** A chargeback case as the fake keeps it (amount in cents; dates yyyy-MM-dd). */
export interface CbCase {
  idCase: number;
  idChargeback: number;
  establishmentNumber: number;
  paymentId: string;
  amountCents: number;
  transactionDate: string;
  tid: string;
  nsu: string;
  authorization: string;
  truncatedCard: string;
  referenceNumber: string;
  ro: string;
  terminal: string;
  reasonCode: string;
  reasonDescription: string;
  receptionDate: string;
  treatmentDeadline: string;
  status: 'PENDING' | 'DONE';
  /** The manual shows "RECUSADO" for a refused case; what an accepted one shows is not documented (the fake says "ACATADO"). */
  actionTakenCode: string | null;
  replyDate: string | null;
  lifecycle: Array<{ action: string; actionDate: string }>;
  answers: CbAnswerSent[];
}

export interface CbLogged {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  status: number;
  at: number;
}

export interface CbNotifyOptions {
  /** The X-Notification-Secret header: right (default), absent, or wrong. */
  secret?: 'valid' | 'missing' | 'wrong';
}

export interface FakeChargebacks {
  /** CIELO_CHARGEBACK_URL and CIELO_CHARGEBACK_TOKEN_URL. */
  url: string;
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  /** The mTLS client certificate and key the fake trusts (Cielo signs the real one). */
  clientCertFile: string;
  clientKeyFile: string;
  mainCustomer: string;
  establishmentNumber: number;
  cases: Map<number, CbCase>;
  requests: CbLogged[];
  /** Calls whose path (after /chargeback/v1) starts with `prefix`. */
  calls(method: string, prefix: string): CbLogged[];
  tokensIssued(): number;
  /** Opens a chargeback on a sale (by PaymentId), for its whole amount; its idCase. */
  open(paymentId: string, o?: { reasonCode?: string; reasonDescription?: string; tidShown?: boolean }): CbCase;
  /** The issuer and Cielo decide a case: for the store ("A favor do Estabelecimento") or the issuer. */
  decide(idCase: number, favour: 'merchant' | 'issuer'): void;
  /** Posts the new-chargeback webhook (the pending case) / the lifecycle webhook to a loopback URL; its status. */
  notifyCase(url: string, idCase: number, o?: CbNotifyOptions): Promise<number>;
  notifyLifecycle(url: string, idCase: number, o?: CbNotifyOptions): Promise<number>;
  /** The next `n` API calls (not the token's) answer `status` without being processed. */
  failNext(n: number, status?: number): void;
  close(): Promise<void>;
}
