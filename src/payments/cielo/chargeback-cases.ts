// Cielo's chargeback cases read back from its Chargeback API, never taken from a notification:
// a case by its idCase (POST /chargeback/v1/PENDING, then DONE over the last 180 days, under the
// head office with hierarchyType 4 as the manual recommends), its lifecycle (GET
// /chargeback/v1/lifecycle/{idCase}), and the card payment of ours it disputes. The case names the
// sale only by acquirer data (transactionDetails: tid, nsu, authorization, transactionDate,
// transactionAmount; no PaymentId nor MerchantOrderId), so our candidates (this connector's card
// payments of that amount made around that date) are each read from the E-commerce API (GET
// /1/sales/{PaymentId}) and the one whose Tid (or ProofOfSale and AuthorizationCode) matches, and
// whose MerchantOrderId is the transaction's, is it. Manual: https://developercielo.github.io/manual/api-chargeback-2-0
import type { Db } from '../../db/index.ts';
import type { ChargebackReport } from '../connector.ts';
import type { CieloChargebackClient } from './chargeback-client.ts';
import { CIELO_PROVIDER, orderIdFor } from './mapping.ts';
import { saleOf, type SaleParts } from './sale.ts';

/** A case as the query (and the new-chargeback webhook) shows it: the fields read here. */
export interface CieloCase {
  idCase?: unknown;
  idChargeback?: unknown;
  establishmentNumber?: unknown;
  treatmentDeadline?: unknown;
  transactionAmount?: unknown;
  transactionDetails?: { transactionDate?: unknown; authorization?: unknown; nsu?: unknown; tid?: unknown };
  chargebackDetails?: { reasonCode?: unknown; reasonDescription?: unknown };
}

export interface CaseParts extends SaleParts {
  db: Db;
  cb: CieloChargebackClient;
  mainCustomer: string;
}

/** idCase: numeric (the manual's code 911), at most 20. */
export const CASE_ID = /^\d{1,20}$/;
const DAY = 86_400_000;
/** The manual's limit on a DONE query's period (code 906). */
const DONE_DAYS = 179;
const ymd = (t: number) => new Date(t).toISOString().slice(0, 10);

/** The case, pending or treated; null when Cielo has none under our head office. */
export async function findCase(p: CaseParts, idCase: string): Promise<{ item: CieloCase; pending: boolean } | null> {
  const filter = { mainCustomer: p.mainCustomer, hierarchyType: 4, idCase };
  const pending = await query(p, 'PENDING', filter);
  if (pending) return { item: pending, pending: true };
  // Today in UTC is never before today in Brasília, so the period ends no earlier than the case's date.
  const done = await query(p, 'DONE', { ...filter, startNotificationPeriod: ymd(Date.now() - DONE_DAYS * DAY), endNotificationPeriod: ymd(Date.now()) });
  return done ? { item: done, pending: false } : null;
}

async function query(p: CaseParts, status: 'PENDING' | 'DONE', body: Record<string, unknown>): Promise<CieloCase | null> {
  const page = await p.cb.json<{ content?: unknown } | null>('POST', `/${status}?page=0&pageSize=10`, body, true);
  const items = Array.isArray(page?.content) ? (page.content as CieloCase[]) : [];
  return items.find((c) => String(c?.idCase) === body.idCase) ?? null;
}

/** The final lifecycle step, if the case has reached one: WON ("A favor do Estabelecimento") or LOST ("A favor do Emissor"). */
export async function outcomeOf(p: CaseParts, idCase: string): Promise<'WON' | 'LOST' | null> {
  const steps = await p.cb.json<unknown>('GET', `/lifecycle/${idCase}`, undefined, true);
  const plain = (s: unknown) => String(s ?? '').normalize('NFD').replace(/[\u0300-\u036f]/g, '').trim().toLowerCase();
  let outcome: 'WON' | 'LOST' | null = null;
  for (const step of Array.isArray(steps) ? steps : []) {
    const action = plain((step as { action?: unknown })?.action);
    if (action === 'a favor do estabelecimento') outcome = 'WON';
    else if (action === 'a favor do emissor') outcome = 'LOST';
  }
  return outcome;
}

/** Cents from the case's transactionAmount (reais with two decimals); null when it is not one. */
export function centsOfReais(v: unknown): number | null {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN;
  if (!Number.isFinite(n) || n <= 0) return null;
  return Math.round(n * 100);
}

const bare = (v: unknown) => String(v ?? '').trim().replace(/^0+(?=.)/, '');

/** Our transaction the case disputes (this connector's card payment, confirmed at Cielo); null when none is. */
export async function transactionOf(p: CaseParts, c: CieloCase): Promise<string | null> {
  const cents = centsOfReais(c.transactionAmount);
  const d = c.transactionDetails;
  const day = Date.parse(`${String(d?.transactionDate ?? '')}T12:00:00-03:00`);
  if (cents === null || !Number.isFinite(day)) return null;
  const candidates = await p.db
    .selectFrom('transactions')
    .select(['id', 'provider_ref'])
    .where('provider', '=', CIELO_PROVIDER)
    .where('payment_method', '=', 'CARD')
    .where('livemode', '=', true)
    .where('charged_cents', '=', cents)
    .where('provider_ref', 'is not', null)
    .where('created_at', '>=', new Date(day - 2 * DAY))
    .where('created_at', '<=', new Date(day + 2 * DAY))
    .orderBy('created_at')
    .limit(25)
    .execute();
  const tid = bare(d?.tid);
  for (const t of candidates) {
    const sale = await saleOf(p, t.provider_ref!);
    const pay = sale?.Payment as { Tid?: unknown; ProofOfSale?: unknown; AuthorizationCode?: unknown } | undefined;
    if (!sale || !pay || sale.MerchantOrderId !== orderIdFor(t.id)) continue;
    const same = tid ? bare(pay.Tid) === tid : bare(pay.ProofOfSale) === bare(d?.nsu) && bare(pay.AuthorizationCode) === bare(d?.authorization);
    if (same) return t.id;
  }
  return null;
}

/** The report of a case opened (the debit, its reason, the answer's deadline: end of that day in Brasília). */
export function openedReport(transactionId: string, idCase: string, c: CieloCase): ChargebackReport {
  const deadline = typeof c.treatmentDeadline === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(c.treatmentDeadline) ? new Date(`${c.treatmentDeadline}T23:59:59-03:00`) : undefined;
  const reasonCode = bare(c.chargebackDetails?.reasonCode);
  const reason = c.chargebackDetails?.reasonDescription;
  return {
    transactionId,
    caseId: idCase,
    status: 'OPENED',
    amountCents: centsOfReais(c.transactionAmount) ?? undefined,
    ...(reasonCode ? { reasonCode } : {}),
    ...(typeof reason === 'string' && reason ? { reason } : {}),
    ...(deadline && Number.isFinite(deadline.getTime()) ? { respondBy: deadline } : {}),
  };
}
