// Hosted subscription pages: /subscribe/{planId} (public) and /subscription/{id}?t=... (the
// subscriber's signed, expiring self-service link; an invalid or expired link opens nothing; with
// &assinado=1, where the subscribe page lands, it opens with the confirmation).
import { Type } from '@sinclair/typebox';
import type { HttpApp } from '../http/app-type.ts';
import type { Db } from '../db/index.ts';
import type { Config } from '../config.ts';
import type { SubscriptionDeps } from '../modules/subscriptions/service.ts';
import type { Subscription } from '../db/types.ts';
import { verifyLinkToken } from '../modules/subscriptions/links.ts';
import { findPublicPlan, publicPlanView } from '../modules/subscriptions/plans.ts';
import { fullView } from '../modules/subscriptions/service.ts';
import { messagePage } from './checkout-pages.ts';
import { ASSETS, HTML, send } from './checkout-routes.ts';
import { type Confirmation, type FirstCharge, selfServicePage, subscribePage } from './subscription-pages.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** What the confirmation shows beyond the subscription: its first charge to pay (with the PIX's QR and expiry, the boleto's due date), or what was paid. */
async function confirmationOf(db: Db, v: Awaited<ReturnType<typeof fullView>>): Promise<Confirmation> {
  const pay = v.payment;
  const paid = (v.cycles ?? []).find((c) => c.status === 'PAID');
  if (!pay) return { firstCharge: null, paidCents: paid ? paid.amountCents : null };
  const tx = await db.selectFrom('transactions').select(['payment_method', 'pix_txid', 'expires_at', 'due_date']).where('id', '=', pay.transactionId).executeTakeFirstOrThrow();
  const firstCharge: FirstCharge = {
    transactionId: pay.transactionId,
    method: tx.payment_method === 'BOLETO' ? 'BOLETO' : 'PIX',
    amountCents: pay.amountCents,
    paymentUrl: pay.paymentUrl,
    pixCode: pay.pixCode,
    qrUrl: tx.pix_txid ? `/pix/${tx.pix_txid}/qr.png` : null,
    boletoLine: pay.boletoLine,
    expiresAt: tx.payment_method === 'BOLETO' ? null : tx.expires_at,
    dueDate: tx.payment_method === 'BOLETO' ? tx.due_date : null,
  };
  return { firstCharge, paidCents: null };
}

/** The options of subscriptionPageRoutes: what it uses of the dependencies (app.ts passes them all). */
export interface SubscriptionPageRouteDeps {
  db: Db;
  config: Config;
  subscriptions: SubscriptionDeps;
}

export default async function subscriptionPageRoutes(app: HttpApp, deps: SubscriptionPageRouteDeps) {
  const { db, config } = deps;

  app.get(
    '/subscribe/:planId',
    { schema: { tags: ['Public'], operationId: 'getSubscribePage', summary: 'Subscription page of a plan (HTML, pt-BR)', params: Type.Object({ planId: Type.String({ maxLength: 64 }) }), response: HTML } },
    async (req, reply) => {
      const plan = UUID.test(req.params.planId) ? await findPublicPlan(db, req.params.planId) : undefined;
      if (!plan) return send(reply, 404, messagePage(ASSETS, 'Plano não encontrado', 'Confira o endereço recebido do vendedor.'));
      const v = publicPlanView(plan, plan.merchant_name);
      if (!v.available) {
        const [title, text] = v.unavailableReason === 'FULL' ? ['Vagas esgotadas', 'Este plano atingiu o número máximo de assinantes.'] : ['Plano indisponível', 'Este plano não está aceitando novas assinaturas. Fale com o vendedor.'];
        return send(reply, 200, messagePage(ASSETS, title, text, plan.merchant_name));
      }
      return send(
        reply,
        200,
        subscribePage(
          { planId: plan.id, name: plan.name, description: plan.description, amountCents: plan.amount_cents, cadence: { interval: plan.interval, intervalCount: plan.interval_count }, trialDays: plan.trial_days, methods: plan.payment_methods, merchantName: plan.merchant_name, sandbox: !plan.livemode, needsPayerAddress: deps.subscriptions.transactions.connectors.needsPayerAddress(plan.livemode) },
          ASSETS,
        ),
      );
    },
  );

  app.get(
    '/subscription/:id',
    {
      schema: {
        tags: ['Public'],
        operationId: 'getSubscriptionSelfServicePage',
        summary: "Subscriber's self-service page (HTML, pt-BR; signed link from the e-mails)",
        params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
        querystring: Type.Object({
          t: Type.Optional(Type.String({ maxLength: 200 })),
          assinado: Type.Optional(Type.String({ maxLength: 8, description: '1: right after subscribing, the page opens with the confirmation' })),
        }),
        response: HTML,
      },
    },
    async (req, reply) => {
      const invalid = () => send(reply, 404, messagePage(ASSETS, 'Link inválido ou expirado', 'Use o link do e-mail mais recente da loja, ou peça um novo link ao vendedor.'));
      if (!UUID.test(req.params.id) || !verifyLinkToken(config, req.params.id, req.query.t)) return invalid();
      const sub = (await db.selectFrom('subscriptions').selectAll().where('id', '=', req.params.id).executeTakeFirst()) as Subscription | undefined;
      if (!sub) return invalid();
      const plan = await findPublicPlan(db, sub.plan_id);
      const v = await fullView(deps.subscriptions, sub);
      const confirmation = req.query.assinado === '1' ? await confirmationOf(db, v) : null;
      return send(
        reply,
        200,
        selfServicePage(
          {
            id: sub.id,
            token: req.query.t!,
            merchantName: plan?.merchant_name ?? '',
            planName: plan?.name ?? '',
            amountCents: plan?.amount_cents ?? 0,
            cadence: { interval: plan?.interval ?? 'MONTHLY', intervalCount: plan?.interval_count ?? 1 },
            status: sub.status,
            paymentMethod: sub.payment_method,
            card: v.card,
            trialEnd: sub.trial_end,
            currentPeriodEnd: sub.current_period_end,
            cancelAtPeriodEnd: sub.cancel_at_period_end,
            endedAt: sub.ended_at,
            payment: v.payment ? { paymentUrl: v.payment.paymentUrl, amountCents: v.payment.amountCents } : null,
            history: (v.cycles ?? []).filter((c) => c.status !== 'OPEN' || c.transactionId).map((c) => ({ date: new Date(c.paidAt ?? c.dueAt), amountCents: c.amountCents, status: c.status })),
            sandbox: !sub.livemode,
            confirmation,
          },
          ASSETS,
        ),
      );
    },
  );
}
