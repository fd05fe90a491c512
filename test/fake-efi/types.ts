// The fake Efí's records and public face (server.ts builds it; routes.ts and transport.ts use the state).
import type { IncomingHttpHeaders } from 'node:http';

export type SendStatus = 'EM_PROCESSAMENTO' | 'REALIZADO' | 'NAO_REALIZADO';

/** A Pix sent (accepted) under an idEnvio: at most one per idEnvio, ever. */
export interface Sent {
  idEnvio: string;
  e2eId: string;
  valor: string;
  cents: number;
  /** The favorecido as the request gave it ({ chave } or { contaBanco }). */
  favorecido: { chave?: string; contaBanco?: Record<string, string>; cpf?: string; cnpj?: string };
  infoPagador?: string;
  status: SendStatus;
  solicitacao: string;
  liquidacao?: string;
  /** How many times money left the account for this idEnvio (an honest PSP: 1). */
  debits: number;
}

export interface Webhook {
  webhookUrl: string;
  skipMtls: boolean;
  criacao: string;
}

/** One request as the fake saw it (status 0: the answer was dropped after the work was done). */
export interface Logged {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
  status: number;
  scopes: string[] | null;
  at: number;
}

/** Efí's refusals: `{ "nome": ..., "mensagem": ... }`. */
export interface Refusal {
  nome: string;
  mensagem: string;
}

export interface Answer {
  status: number;
  body?: unknown;
  /** A rule of Efí's API was broken (kept in `violations`); refusals of the business (funds, keys) are not. */
  broken?: boolean;
}

export interface EfiState {
  port: number;
  payingKey: string;
  balanceCents: number;
  grantable: Set<string>;
  auth: { clientId: string; clientSecret: string; tokenTtl: number; tokens: Map<string, { scopes: string[]; expires: number }> };
  tokensIssued: number;
  sends: Map<string, Sent>;
  webhooks: Map<string, Webhook>;
  requests: Logged[];
  violations: string[];
  behaviour: Behaviour;
  misbehave: { failures: Array<{ status: number; pathPrefix?: string }>; delays: number[]; drops: Array<{ method: string; pathPrefix: string }>; unauthorized: number };
  /** Notifications under way (awaited by idle()). */
  pending: Set<Promise<unknown>>;
  /** What each notification post answered (the URL without its query, the status). */
  delivered: Array<{ path: string; status: number; items: unknown[] }>;
}

/** What the fake does with an accepted send, and which requests it refuses; tests change it at will. */
export interface Behaviour {
  /** Accepted sends settle this long after the answer; null: they stay EM_PROCESSAMENTO until settle(). */
  settleAfterMs: number | null;
  /** Keys and account numbers (conta) whose sends are accepted and then NAO_REALIZADO. */
  failKeys: Set<string>;
  failAccounts: Set<string>;
  /** Keys refused at the request, with Efí's refusal (e.g. chave_nao_encontrada). */
  refuseKeys: Map<string, Refusal>;
  /** Account numbers (conta) refused at the request. */
  refuseAccounts: Map<string, Refusal>;
  /** The refusal of a send above the balance. */
  fundsRefusal: Refusal;
  /** How settlements are notified: once, twice (duplicate), or not at all (lost). */
  notify: 'normal' | 'twice' | 'none';
  /** Whether registration calls the URL first (Efí checks it answers). */
  pingOnRegister: boolean;
  /** Every API answer takes this long (the benchmark's PSP; 0: at once). */
  latencyMs: number;
}

export interface FakeEfi {
  apiUrl: string;
  tokenUrl: string;
  /** The CA to trust for the fake's server certificate (EFI_CA_FILE). */
  caFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  clientId: string;
  clientSecret: string;
  payingKey: string;
  balanceCents: number;
  grantable: Set<string>;
  tokensIssued: number;
  sends: Map<string, Sent>;
  webhooks: Map<string, Webhook>;
  requests: Logged[];
  violations: string[];
  behaviour: Behaviour;
  delivered: EfiState['delivered'];
  /** Requests of a method whose path starts with `prefix`. */
  calls(method: string, prefix: string): Logged[];
  /** Cents paid out to a key or an account number (REALIZADO or still on its way), over every idEnvio. */
  paidTo(keyOrAccount: string): number;
  /** The next `n` API requests (whose path starts with `pathPrefix`, when given) are answered `status`. */
  failNext(n: number, status: number, pathPrefix?: string): void;
  delayNext(n: number, ms: number): void;
  /** The next matching request is done, then its connection destroyed before the answer. */
  dropAnswer(method: string, pathPrefix: string): void;
  /** The next API request meets a 401 (its token revoked). */
  unauthorizedOnce(): void;
  /** Settles a send now (REALIZADO, or NAO_REALIZADO for a failing key/account, or as told) and notifies. */
  settle(idEnvio: string, status?: 'REALIZADO' | 'NAO_REALIZADO'): Promise<void>;
  /** Notifies a send's current state (again). */
  notify(idEnvio: string): Promise<void>;
  /** Posts arbitrary items to the paying key's webhook (forged or received-Pix notifications). */
  post(items: unknown[], opts?: { hmac?: string | null }): Promise<number>;
  /** Waits for the notifications under way. */
  idle(): Promise<void>;
  close(): Promise<void>;
}
