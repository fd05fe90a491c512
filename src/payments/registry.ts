// The connector registry: built once by the composition root from the configuration, it answers
// which connector takes a new payment or payout of a rail in an environment (development: the
// sandbox, always; production: the rail's configured connectors, in order), and which connector a
// stored payment, refund or payout goes back to (by the name it stored). Connectors configured but
// no longer chosen for a rail stay here, serving what they made.
import type { ConnectorChoice } from '../config.ts';
import { AppError } from '../http/errors.ts';
import { CircuitBreaker, DEFAULT_BREAKER, type BreakerSettings } from './breaker.ts';
import { RAIL_METHODS, railNotOffered, RAILS, type Connector, type ConnectorCore, type ConnectorEdges, type InboundRoute, type Rail, type RailApi } from './connector.ts';

export type RailConnector<R extends Rail> = Connector & RailApi[R];

/** Whether `c` implements every operation of `rail`. */
export function serves<R extends Rail>(c: Connector, rail: R): c is RailConnector<R> {
  return c.rails.includes(rail) && RAIL_METHODS[rail].every((m) => typeof (c as unknown as Record<string, unknown>)[m] === 'function');
}

const NO_PRODUCTION = () =>
  new AppError(503, 'Production payments are not available: no payment provider is configured for this gateway (PAYMENT_PROVIDER). Use a development key to test.');

export class ConnectorRegistry {
  readonly sandbox: Connector;
  private byName = new Map<string, Connector>();
  private production: Record<Rail, Connector[]>;
  private edgesByName = new Map<string, ConnectorEdges>();
  private breakers = new Map<string, CircuitBreaker>();
  private readonly breakerSettings: BreakerSettings;

  /**
   * `production`: per rail, the chosen connectors' names in order (Pix Automático follows PIX when
   * its connector offers it). `connectors`: every connector built, the sandbox among them.
   */
  constructor(connectors: Connector[], production: ConnectorChoice, breakerSettings: BreakerSettings = DEFAULT_BREAKER) {
    this.breakerSettings = breakerSettings;
    for (const c of connectors) {
      if (this.byName.has(c.name)) throw new Error(`two connectors are named ${c.name}`);
      this.byName.set(c.name, c);
    }
    const sandbox = this.byName.get('sandbox');
    if (!sandbox) throw new Error('the sandbox connector is required');
    this.sandbox = sandbox;
    const pick = (rail: Rail, names: string[]) =>
      names.map((n) => {
        const c = this.byName.get(n);
        if (!c) throw new Error(`${rail}: the connector ${n} is not built (its settings are missing)`);
        if (!serves(c, rail)) throw new Error(`${rail}: the connector ${n} does not serve this rail`);
        return c;
      });
    const pix = pick('PIX', production.PIX);
    this.production = {
      PIX: pix,
      CARD: pick('CARD', production.CARD),
      BOLETO: pick('BOLETO', production.BOLETO),
      PIX_AUTOMATICO: pix.filter((c) => serves(c, 'PIX_AUTOMATICO')),
      PAYOUT: pick('PAYOUT', production.PAYOUT),
    };
    for (const rail of RAILS) if (!serves(sandbox, rail)) throw new Error(`the sandbox does not serve ${rail}`);
  }

  /** The connector that takes a new operation of `rail` in this environment; 503 when production has none. */
  forNew<R extends Rail>(livemode: boolean, rail: R): RailConnector<R> {
    if (!livemode) return this.sandbox as RailConnector<R>;
    const c = this.production[rail][0];
    if (c) return c as RailConnector<R>;
    if (rail !== 'PAYOUT' && rail !== 'PIX_AUTOMATICO' && !this.takesProductionPayments()) throw NO_PRODUCTION();
    throw railNotOffered(rail);
  }

  /** Whether production has a connector for `rail`. */
  offers(livemode: boolean, rail: Rail): boolean {
    return !livemode || this.production[rail].length > 0;
  }

  /** Whether a new boleto in this environment must carry the payer's address (its bank registers it). */
  needsPayerAddress(livemode: boolean): boolean {
    return this.offers(livemode, 'BOLETO') && (livemode ? this.production.BOLETO[0] : this.sandbox).needsPayerAddress === true;
  }

  /** The production connectors of `rail`, in order (failover order for cards). */
  chosen(rail: Rail): readonly Connector[] {
    return this.production[rail];
  }

  /**
   * The card connectors to try, in order, for a charge recorded with `provider`: in production, the
   * CARD_PROVIDER chain from that connector on (failover); otherwise, or when it is not in the chain
   * any more, that connector alone.
   */
  cardChain(livemode: boolean, provider: string): RailConnector<'CARD'>[] {
    const first = this.of(provider, 'CARD');
    const at = livemode ? this.production.CARD.findIndex((c) => c.name === provider) : -1;
    return at < 0 ? [first] : (this.production.CARD.slice(at) as RailConnector<'CARD'>[]);
  }

  /** The circuit breaker of a connector (one per name, per process). */
  breaker(name: string): CircuitBreaker {
    let b = this.breakers.get(name);
    if (!b) this.breakers.set(name, (b = new CircuitBreaker(this.breakerSettings)));
    return b;
  }

  /** The connector that made a stored operation, for `rail`; 503 when it is not configured any more. */
  of<R extends Rail>(name: string, rail: R): RailConnector<R> {
    const c = this.byName.get(name);
    if (!c || !serves(c, rail)) throw new AppError(503, `The provider of this payment (${name}) is not configured on this gateway`);
    return c;
  }

  /** The connector named `name`, if built. */
  find(name: string): Connector | undefined {
    return this.byName.get(name);
  }

  all(): Connector[] {
    return [...this.byName.values()];
  }

  /** Names of the connectors that expire their own pending charges (the generic expiry leaves those). */
  expiringOwnCharges(): string[] {
    return this.all().filter((c) => c.expiresOwnCharges).map((c) => c.name);
  }

  private takesProductionPayments(): boolean {
    return this.production.PIX.length + this.production.CARD.length + this.production.BOLETO.length > 0;
  }

  /** Builds every connector's edges over the core, once. */
  attach(core: (c: Connector) => ConnectorCore): void {
    for (const c of this.all()) if (c.edges && !this.edgesByName.has(c.name)) this.edgesByName.set(c.name, c.edges(core(c)));
  }

  /** A connector's edges as built by attach (tests reach a connector's sweeps through them). */
  edges(name: string): ConnectorEdges | undefined {
    return this.edgesByName.get(name);
  }

  /** Every connector's inbound routes, with their full paths: /api/psp/<name>/<path> and aliases. */
  routes(): Array<InboundRoute & { connector: string; urls: string[] }> {
    return [...this.edgesByName].flatMap(([name, e]) => e.routes.map((r) => ({ ...r, connector: name, urls: [...r.paths.map((p) => `/api/psp/${name}${p}`), ...(r.aliases ?? [])] })));
  }

  /** Every connector's sweeps, named `<connector>-<sweep>`. */
  sweeps() {
    return [...this.edgesByName].flatMap(([name, e]) => e.sweeps.map((s) => ({ ...s, name: `${name}-${s.name}` })));
  }

  /** Runs each connector's start (once the server listens); a failure is retried by its sweeps. */
  async start(): Promise<void> {
    for (const e of this.edgesByName.values()) await e.start?.();
  }

  close(): void {
    for (const c of this.all()) c.close?.();
  }
}
