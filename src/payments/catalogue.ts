// The connectors this gateway has, built from the configuration: the one place that knows their
// concrete types. The sandbox always; each other connector when its settings are present (chosen
// for a rail, or kept to serve the payments it made).
import type { Config } from '../config.ts';
import type { Db } from '../db/index.ts';
import type { Connector, ConnectorLog } from './connector.ts';
import { CieloConnector } from './cielo/connector.ts';
import { EfiConnector } from './efi/connector.ts';
import { EredeConnector } from './erede/connector.ts';
import { InterClient } from './inter/client.ts';
import { InterConnector } from './inter/connector.ts';
import { PixApiConnector } from './pix-api/connector.ts';
import { ConnectorRegistry } from './registry.ts';
import { SandboxConnector } from './sandbox/connector.ts';

export interface RegistryOptions {
  /** A connector to stand for the sandbox, or how to build one over the database (tests count its calls). */
  sandbox?: Connector | ((db: Db) => Connector);
  /** More connectors (or how to build them over the database), e.g. test doubles named in `production`. */
  extra?: Array<Connector | ((db: Db) => Connector)>;
  /** Per rail, instead of the configured choice. */
  production?: Partial<Config['connectors']>;
}

export function buildConnectors(config: Pick<Config, 'pix' | 'boleto' | 'payouts' | 'pixApi'> & Partial<Pick<Config, 'cielo' | 'erede' | 'efi' | 'inter' | 'runJobs'>>, db: Db, log: ConnectorLog): Connector[] {
  const list: Connector[] = [new SandboxConnector(config, db, config.payouts.sandboxDelayMs)];
  if (config.pixApi) list.push(new PixApiConnector(config.pixApi, config.pix.key, log));
  if (config.cielo) list.push(new CieloConnector(config.cielo, db, log));
  if (config.erede) list.push(new EredeConnector(config.erede, log));
  if (config.efi) list.push(new EfiConnector(config.efi, log));
  if (config.inter) list.push(new InterConnector(new InterClient(config.inter), db, log, { reconcileMinutes: config.boleto.reconcileMinutes, issuing: { nudge: config.runJobs !== false } }));
  return list;
}

export function buildRegistry(config: Pick<Config, 'pix' | 'boleto' | 'payouts' | 'pixApi' | 'connectors'> & Partial<Pick<Config, 'cardBreaker' | 'cielo' | 'erede' | 'efi' | 'inter' | 'runJobs'>>, db: Db, log: ConnectorLog, opts: RegistryOptions = {}): ConnectorRegistry {
  const sandbox = typeof opts.sandbox === 'function' ? opts.sandbox(db) : opts.sandbox;
  const built = buildConnectors(config, db, log).filter((c) => !(sandbox && c.name === sandbox.name));
  const extra = (opts.extra ?? []).map((c) => (typeof c === 'function' ? c(db) : c));
  return new ConnectorRegistry([...(sandbox ? [sandbox] : []), ...built, ...extra], { ...config.connectors, ...opts.production }, config.cardBreaker);
}
