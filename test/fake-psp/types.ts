// The fake PSP's records (charges, Pix, refunds, authorisations, recurring charges), the log of
// requests, its public face (FakePsp) and the state its parts share (PspState).
export interface RecRecord {
  idRec: string;
  body: any;
  status: 'CRIADA' | 'APROVADA' | 'REJEITADA' | 'EXPIRADA' | 'CANCELADA';
  loc: { id: number; location: string; criacao: Date } | null;
  atualizacao: Array<{ status: string; data: Date }>;
  encerramento?: unknown;
}

export interface Tentativa {
  dataLiquidacao: string;
  tipo: 'AGND' | 'NTAG' | 'RIFL';
  status: 'SOLICITADA' | 'AGENDADA' | 'PAGA' | 'CANCELADA' | 'REJEITADA' | 'EXPIRADA';
  endToEndId: string;
  atualizacao: Array<{ status: string; data: Date }>;
  rejeicao?: { codigo: string; descricao: string };
}

export interface CobRRecord {
  txid: string;
  idRec: string;
  body: any;
  status: 'CRIADA' | 'ATIVA' | 'CONCLUIDA' | 'EXPIRADA' | 'REJEITADA' | 'CANCELADA';
  criacao: Date;
  tentativas: Tentativa[];
  pix: string[];
  atualizacao: Array<{ status: string; data: Date }>;
  encerramento?: unknown;
}

export interface Violation {
  razao: string;
  propriedade: string;
  valor?: string;
}

export interface Cob {
  kind: 'cob' | 'cobv';
  txid: string;
  revisao: number;
  status: 'ATIVA' | 'CONCLUIDA' | 'REMOVIDA_PELO_USUARIO_RECEBEDOR' | 'REMOVIDA_PELO_PSP';
  criacao: Date;
  body: any;
  location: string;
  pixCopiaECola: string;
  pix: string[];
}

export interface Devolucao {
  id: string;
  rtrId: string;
  valor: string;
  natureza: string;
  status: 'EM_PROCESSAMENTO' | 'DEVOLVIDO' | 'NAO_REALIZADO';
  motivo?: string;
  solicitacao: Date;
  liquidacao?: Date;
}

export interface PixRecord {
  endToEndId: string;
  txid: string;
  valor: string;
  chave: string;
  horario: Date;
  devolucoes: Devolucao[];
}

export interface Logged {
  method: string;
  path: string;
  query: URLSearchParams;
  body: any;
  scope: string[] | null;
  status: number;
  at: number;
}

/** How a settlement's notification is sent. */
export interface NotifyOptions {
  /** none: the notification is lost; twice: sent two times; bare: the body is a bare array. */
  mode?: 'normal' | 'none' | 'twice' | 'bare';
}

export interface FakePsp {
  /** https://localhost:<port>/api/v2 */
  apiUrl: string;
  tokenUrl: string;
  /** PEM files: the PSP's server certificate (our PIX_API_CA_FILE) and our client certificate and key. */
  caFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  clientId: string;
  clientSecret: string;
  /** The DICT keys this receiver owns (a cob or webhook for another key is refused). */
  keys: Set<string>;
  cobs: Map<string, Cob>;
  pix: Map<string, PixRecord>;
  webhooks: Map<string, { webhookUrl: string; criacao: Date }>;
  /** Pix Automático: authorisations by idRec, recurring charges by txid, the rec and cobr webhooks. */
  recs: Map<string, RecRecord>;
  cobrs: Map<string, CobRRecord>;
  recWebhook: { webhookUrl: string; criacao: Date } | null;
  cobrWebhook: { webhookUrl: string; criacao: Date } | null;
  requests: Logged[];
  tokensIssued: number;
  /** Scopes the client may be granted (default: all). */
  grantable: Set<string>;
  /** Every request logged for a method and path prefix. */
  calls(method: string, pathPrefix: string): Logged[];
  /** The next `n` API calls (token endpoint excluded) answer `status` with a problem. */
  failNext(n: number, status: number): void;
  /**
   * The next successful call of `method` on a path starting with `pathPrefix` is done (the charge
   * or authorisation is made) but its answer is lost: the connection is reset.
   */
  dropAnswer(method: string, pathPrefix: string): void;
  /** The next call of `method` on exactly `path` (or, when it ends in '/', on any path under it) answers `status` with a problem, doing nothing. */
  failNextOn(method: string, path: string, status: number): void;
  /** The next API call answers 401 although its token is valid (a PSP that revoked it). */
  unauthorizedOnce(): void;
  /** The next `n` API calls wait `ms` before answering (timeouts). */
  delayNext(n: number, ms: number): void;
  /**
   * A payer pays the charge `txid` (its full value, unless given; a cobv paid after its due date
   * costs its multa and juros, computed here); notifies the registered webhook.
   */
  pay(txid: string, opts?: NotifyOptions & { valor?: string; horario?: Date }): Promise<PixRecord>;
  /** Posts a notification for these e2eids (as stored; an unknown one is sent as a forged item). */
  notify(items: Array<PixRecord | Record<string, unknown>>, opts?: { bare?: boolean; chave?: string }): Promise<number>;
  /** Posts a notification for a Pix it never settled (same txid and value as `txid`'s charge). */
  forge(txid: string): Promise<{ status: number; e2eid: string }>;
  /** The payer answers an authorisation (APROVADA, REJEITADA with code AP13/AP14), or cancels one (USUARIO_PAGADOR); notifies webhookrec. */
  answerRec(idRec: string, answer: 'APROVADA' | 'REJEITADA' | 'CANCELADA' | 'EXPIRADA', opts?: NotifyOptions & { by?: 'USUARIO_PAGADOR' | 'PSP_PAGADOR' | 'PSP_RECEBEDOR'; codigo?: string }): Promise<RecRecord>;
  /** The payer's bank debits the recurring charge's scheduled attempt (a Pix settles it); notifies webhookcobr. */
  debit(txid: string, opts?: NotifyOptions): Promise<PixRecord>;
  /** The scheduled attempt fails (rejected with `codigo`, or EXPIRADA without one); notifies webhookcobr. */
  failAttempt(txid: string, codigo?: string, opts?: NotifyOptions): Promise<CobRRecord>;
  /** Posts a rec or cobr notification with whatever items (a forged one is just that). */
  notifyRecurring(kind: 'rec' | 'cobr', items: unknown[], opts?: { bare?: boolean }): Promise<number>;
  /** Finishes every refund still in processing (DEVOLVIDO, or NAO_REALIZADO with a reason); notifies. */
  finishRefunds(status: 'DEVOLVIDO' | 'NAO_REALIZADO', opts?: NotifyOptions): Promise<void>;
  close(): Promise<void>;
}

/** A webhook registration: where the notifications go. */
export interface Hook {
  webhookUrl: string;
  criacao: Date;
}

/** A locrec: the location an authorisation's QR points at. */
export interface LocRec {
  id: number;
  location: string;
  criacao: Date;
  idRec: string | null;
}

export type Answer = { status: number; body?: unknown };
export type Handler = (m: RegExpMatchArray, body: any, q: URLSearchParams) => Answer;
export interface Route {
  method: string;
  re: RegExp;
  scope: string;
  handle: Handler;
}
/** Adds a route of the API (under /api/v2), with the scope its token needs. */
export type AddRoute = (method: string, re: RegExp, scope: string, handle: Handler) => void;

/** Everything the fake PSP holds, shared by its routes, its transport and the payer's side. */
export interface PspState {
  port: number;
  keys: Set<string>;
  grantable: Set<string>;
  cobs: Map<string, Cob>;
  pix: Map<string, PixRecord>;
  webhooks: Map<string, Hook>;
  recs: Map<string, RecRecord>;
  cobrs: Map<string, CobRRecord>;
  locrecs: Map<number, LocRec>;
  /** The last loc id given to a cob (cobView shows it) and to a locrec. */
  locId: number;
  locRecId: number;
  recWebhook: Hook | null;
  cobrWebhook: Hook | null;
  routes: Route[];
  requests: Logged[];
  tokensIssued: number;
  auth: { clientId: string; clientSecret: string; tokenTtl: number; tokens: Map<string, { scopes: string[]; expires: number }> };
  /** The misbehaviours queued for the next requests. */
  misbehave: {
    failures: number[];
    delays: number[];
    drops: Array<{ method: string; pathPrefix: string }>;
    targeted: Array<{ method: string; path: string; status: number }>;
    unauthorized: number;
  };
}
