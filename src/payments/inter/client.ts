// Banco Inter's API Cobrança v3 over HTTPS: OAuth2 client credentials over mutual TLS (the
// application's certificate), the token asked at /oauth/v2/token with the credentials and scopes
// in the form, `x-conta-corrente` on every call when the application serves more than one account.
// The HTTP machinery (token cache, one new token on a 401, retries of idempotent calls, circuit
// breaker) is the API Pix client's. Inter's own words never reach a merchant: a refusal becomes
// BoletoRefused naming the fields Inter named, without their values (they hold payer data).
import type { InterConfig } from '../../config-inter.ts';
import { BoletoRefused } from '../boleto-issuing.ts';
import { spDate, DAY_MS } from '../calendar.ts';
import type { BoletoRequest } from '../connector.ts';
import { PixApiClient, PixApiError, type ClientOptions } from '../pix-api/client.ts';
import { seuNumeroOf, type InterBank, type InterCharge } from './bank.ts';
import { chargeOf, issueBody, type InterCobranca } from './mapping.ts';

/** The scopes of the application: charges read and written (the webhook's calls take the same). */
export const INTER_SCOPES = ['boleto-cobranca.read', 'boleto-cobranca.write'] as const;

const BASE = '/cobranca/v3/cobrancas';
const PAGE_SIZE = 100;
/** A list read stops here (pages of PAGE_SIZE): the reconciliation's window holds far fewer. */
const MAX_PAGES = 100;

interface ListPage {
  cobrancas?: InterCobranca[];
  totalPaginas?: number;
  ultimaPagina?: boolean;
}

export class InterClient implements InterBank {
  readonly http: PixApiClient;
  private readonly headers: Record<string, string>;

  constructor(config: InterConfig, opts: ClientOptions = {}) {
    const credentialsHint = `INTER_CLIENT_ID, INTER_CLIENT_SECRET, the certificate and the application's scopes (${INTER_SCOPES.join(', ')})`;
    this.http = new PixApiClient(config, { scopes: INTER_SCOPES, tokenBody: 'form-credentials', credentialsHint, ...opts });
    this.headers = config.account ? { 'x-conta-corrente': config.account } : {};
  }

  close(): void {
    this.http.close();
  }

  /**
   * Sent once (Inter chooses the codigoSolicitacao): a lost answer is found by seuNumero before any
   * second try. Inter refuses a repeat (same seuNumero, amount, due date and payer within 30
   * minutes): a refusal is first checked against a charge of ours already there, which is adopted.
   */
  async issue(req: BoletoRequest): Promise<string> {
    try {
      const answer = await this.http.call<{ codigoSolicitacao?: unknown }>('POST', BASE, issueBody(req), { retry: false, headers: this.headers });
      if (typeof answer?.codigoSolicitacao !== 'string' || !answer.codigoSolicitacao) throw new PixApiError('unavailable', 'Inter answered the issue without a codigoSolicitacao');
      return answer.codigoSolicitacao;
    } catch (err) {
      if (!(err instanceof PixApiError && err.kind === 'refused')) throw err;
      const already = await this.findBySeuNumero(seuNumeroOf(req.transactionId), new Date());
      if (already && already.state !== 'CANCELLED' && already.state !== 'EXPIRED') return already.reference;
      throw new BoletoRefused(`Inter refused the boleto (${err.status}): ${fieldsOf(err)}`);
    }
  }

  async charge(reference: string): Promise<InterCharge | null> {
    try {
      return chargeOf(await this.http.call<InterCobranca>('GET', `${BASE}/${encodeURIComponent(reference)}`, undefined, { headers: this.headers }), reference);
    } catch (err) {
      if (err instanceof PixApiError && err.kind === 'not_found') return null;
      throw err;
    }
  }

  async findBySeuNumero(seuNumero: string, createdAt: Date): Promise<InterCharge | null> {
    const from = new Date(createdAt.getTime() - DAY_MS);
    const found = await this.list({ dataInicial: spDate(from), dataFinal: spDate(new Date(Date.now() + DAY_MS)), filtrarDataPor: 'EMISSAO', seuNumero });
    const mine = found.filter((c) => c.seuNumero === seuNumero);
    // A live or paid charge before one cancelled under the same number.
    return mine.find((c) => c.state !== 'CANCELLED' && c.state !== 'EXPIRED') ?? mine[0] ?? null;
  }

  async listPaid(from: Date, to: Date): Promise<InterCharge[]> {
    const all = await this.list({ dataInicial: spDate(from), dataFinal: spDate(to), filtrarDataPor: 'PAGAMENTO' });
    return all.filter((c) => c.state === 'PAID');
  }

  /** The baixa, at the payee's request. One Inter already shows cancelled or expired is done. */
  async cancel(reference: string): Promise<void> {
    try {
      await this.http.call('POST', `${BASE}/${encodeURIComponent(reference)}/cancelar`, { motivoCancelamento: 'APEDIDODOCLIENTE' }, { headers: this.headers });
    } catch (err) {
      if (!(err instanceof PixApiError && err.kind === 'refused')) throw err;
      const now = await this.charge(reference);
      if (now?.state !== 'CANCELLED' && now?.state !== 'EXPIRED') throw err;
    }
  }

  async pdf(reference: string): Promise<Buffer> {
    const answer = await this.http.call<{ pdf?: unknown }>('GET', `${BASE}/${encodeURIComponent(reference)}/pdf`, undefined, { headers: this.headers });
    if (typeof answer?.pdf !== 'string' || !answer.pdf) throw new PixApiError('unavailable', 'Inter answered the PDF without one');
    return Buffer.from(answer.pdf, 'base64');
  }

  async registerWebhook(url: string): Promise<void> {
    await this.http.call('PUT', `${BASE}/webhook`, { webhookUrl: url }, { headers: this.headers });
  }

  /** GET /cobranca/v3/cobrancas with `query`, every page. */
  private async list(query: Record<string, string>): Promise<InterCharge[]> {
    const out: InterCharge[] = [];
    for (let page = 0; page < MAX_PAGES; page++) {
      const q = new URLSearchParams({ ...query, 'paginacao.itensPorPagina': String(PAGE_SIZE), 'paginacao.paginaAtual': String(page) });
      const answer = await this.http.call<ListPage>('GET', `${BASE}?${q}`, undefined, { headers: this.headers });
      for (const c of answer?.cobrancas ?? []) if (c.cobranca?.codigoSolicitacao) out.push(chargeOf(c, c.cobranca.codigoSolicitacao));
      if (answer?.ultimaPagina !== false || page + 1 >= (answer.totalPaginas ?? 0)) break;
    }
    return out;
  }
}

/** The fields Inter named in its refusal (violacoes[].propriedade), never their values. */
function fieldsOf(err: PixApiError): string {
  const named = err.problem?.violacoes?.map((v) => v.propriedade).filter(Boolean);
  return named?.length ? named.join(', ') : (err.problem?.title ?? 'no detail');
}
