// The fake Cielo's records and its public face (server.ts builds it).
import type { IncomingHttpHeaders } from 'node:http';
import type { FakeChargebacks } from './chargeback-types.ts';

export type Host = 'api' | 'query';

/** A sale as the fake keeps it (Payment's fields, in cents). */
export interface Sale {
  paymentId: string;
  merchantOrderId: string;
  customerName: string | null;
  amount: number;
  installments: number;
  interest: string;
  capture: boolean;
  recurrent: boolean;
  softDescriptor: string;
  brand: string;
  holder: string;
  expirationDate: string;
  /** Masked as Cielo shows it (first 6, asterisks, last 4). */
  maskedNumber: string;
  cardToken: string | null;
  cardOnFile: unknown;
  /** Payment.InitiatedTransactionIndicator as sent (Mastercard stored credentials). */
  initiator: { Category: string; Subcategory: string } | null;
  status: number;
  returnCode: string;
  returnMessage: string;
  capturedAmount: number | null;
  voidedAmount: number;
  receivedDate: string;
  tid: string;
  proofOfSale: string;
  authorizationCode: string;
}

/** A card kept by POST /1/card. */
export interface StoredCard {
  number: string;
  holder: string;
  expirationDate: string;
  brand: string;
  customerName: string;
}

export interface Logged {
  host: Host;
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: any;
  /** 0: the answer was lost (connection reset after the work was done). */
  status: number;
  at: number;
}

export interface Answer {
  status: number;
  body?: unknown;
}

export interface Route {
  host: Host;
  method: string;
  re: RegExp;
  handle(m: RegExpMatchArray, body: any, query: URLSearchParams): Answer;
}

/** How the fake runs (startFakeCielo); the defaults are what the tests assert on. */
export interface FakeCieloOptions {
  /** Every request waits this long before it is processed (an acquirer's fixed time; delayNext adds to it). Default 0. */
  latencyMs?: number;
  /**
   * At most this many requests kept in `requests` (the newest ones): a benchmark's thousands per
   * second would otherwise grow it, card bodies included, without bound. Default: all of them.
   */
  keepRequests?: number;
}

export interface Tally {
  requests: number;
  violations: number;
  /** TLS connections accepted: a client that reuses its connections opens few. */
  connections: number;
}

export interface CieloState {
  merchantId: string;
  merchantKey: string;
  latencyMs: number;
  keepRequests: number;
  sales: Map<string, Sale>;
  /** PaymentIds by MerchantOrderId, in creation order (GET /1/sales?merchantOrderId= without a scan of every sale). */
  byOrder: Map<string, string[]>;
  cards: Map<string, StoredCard>;
  routes: Route[];
  requests: Logged[];
  /** Every rule a request broke (a test asserts this stays empty for the connector's requests); the first MAX_VIOLATIONS. */
  violations: string[];
  /** Requests answered (or dropped), rules broken and TLS connections accepted, all of them, whatever was kept. */
  tally: Tally;
  ports: Record<Host, number>;
  misbehave: {
    failures: Array<{ status: number; host: Host | null }>;
    delays: number[];
    drops: Array<{ method: string; pathPrefix: string }>;
    declines: Array<{ code: string; message: string }>;
  };
}

export interface NotifyOptions {
  /** The header: the right secret (default), none, or a wrong one. */
  secret?: 'valid' | 'missing' | 'wrong';
  changeType?: number;
}

export interface FakeCielo {
  apiUrl: string;
  queryUrl: string;
  /** PEM file of the certificate the fake serves (its own CA): CIELO_CA_FILE. */
  caFile: string;
  merchantId: string;
  merchantKey: string;
  notificationSecret: string;
  sales: Map<string, Sale>;
  cards: Map<string, StoredCard>;
  /** The requests received (the newest `keepRequests` of them). */
  requests: Logged[];
  violations: string[];
  /** Requests answered (or dropped), rules broken and TLS connections accepted since the start, whatever `requests` kept. */
  tally: Tally;
  /** Requests of `method` whose path starts with `prefix`, on either host. */
  calls(method: string, prefix: string): Logged[];
  /** The sales made under a MerchantOrderId. */
  salesOf(merchantOrderId: string): Sale[];
  /** The next `n` requests (to `host`, or either) are answered `status` without being processed. */
  failNext(n: number, status?: number, host?: Host): void;
  /** The next `n` requests are processed after `ms` (a client that gave up has them done anyway). */
  delayNext(n: number, ms: number): void;
  /** The next request of `method` under `pathPrefix` is processed, then its connection reset (the answer is lost). */
  dropAnswer(method: string, pathPrefix: string): void;
  /** The next sale is denied with this ReturnCode, whatever its card. */
  declineNext(code: string, message: string): void;
  /** POSTs a Notification Post for the sale to `url` (its receiver's status). */
  notify(url: string, paymentId: string, o?: NotifyOptions): Promise<number>;
  /** Cielo's Chargeback API (its own host, mTLS, OAuth2), with cases opened on this fake's sales. */
  chargebacks: FakeChargebacks;
  close(): Promise<void>;
}
