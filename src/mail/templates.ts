// The messages the platform sends to a merchant's customers, in pt-BR, as plain text and HTML.
// Pure functions: the outbox renders a message when it is queued, so what is stored is exactly
// what is (or would be) sent. Every interpolated value of the HTML goes through escapeHtml.
import { escapeHtml as e } from '../http/sanitize.ts';
import { renderAccount, type AccountMessage } from './account-templates.ts';
import type { Rendered } from './rendered.ts';

const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
const money = (cents: number) => brl.format(cents / 100);
/** 'YYYY-MM-DD' or an instant -> DD/MM/AAAA (São Paulo date for an instant). */
const dateBR = (d: string | Date) => {
  const iso = typeof d === 'string' ? d : new Date(d.getTime() - 3 * 3600_000).toISOString().slice(0, 10);
  return iso.slice(0, 10).split('-').reverse().join('/');
};

const DECLINES_PT: Record<string, string> = {
  CARD_DECLINED: 'o cartão foi recusado pelo emissor',
  INSUFFICIENT_FUNDS: 'saldo ou limite insuficiente',
  EXPIRED_CARD: 'o cartão está vencido',
  STOLEN_CARD: 'o cartão foi bloqueado pelo emissor',
  SUSPECTED_FRAUD: 'o emissor suspeitou de fraude',
  INVALID_CARD: 'os dados do cartão são inválidos',
  PROCESSING_ERROR: 'erro de processamento no emissor',
  EXPIRED: 'o prazo de pagamento terminou',
};

interface Common {
  /** The merchant's name, as the customer knows the seller. */
  merchantName: string;
  customerName: string;
  planName: string;
  /** The signed self-service link (/subscription/{id}?t=...). */
  manageUrl: string;
}

export type MailMessage =
  | (Common & { kind: 'welcome'; amountCents: number; intervalLabel: string; trialEndsAt: Date | null; firstChargeAt: Date | null })
  | (Common & { kind: 'receipt'; amountCents: number; paidAt: Date; periodEnd: Date; method: 'PIX' | 'CARD' | 'BOLETO'; cardLast4: string | null })
  | (Common & { kind: 'charge_issued'; amountCents: number; dueDate: string; method: 'PIX' | 'BOLETO'; pixCode: string | null; boletoLine: string | null; payUrl: string })
  | (Common & { kind: 'payment_failed'; amountCents: number; reason: string; nextRetryAt: Date | null; updateCardUrl: string })
  | (Common & { kind: 'card_expiring'; brand: string; last4: string; expMonth: number; expYear: number; updateCardUrl: string })
  | (Common & { kind: 'cancelled'; endedAt: Date; reason: string | null });

export type MailKind = MailMessage['kind'];

export type { Rendered } from './rendered.ts';

/** A paragraph is text; `link` renders as a button in HTML and a bare URL in text. */
type Block = { p: string } | { code: string; label: string } | { link: string; label: string };

function layout(m: Common, subject: string, blocks: Block[]): Rendered {
  const text = [
    `Olá, ${m.customerName}!`,
    '',
    ...blocks.flatMap((b) => ('p' in b ? [b.p, ''] : 'code' in b ? [`${b.label}:`, b.code, ''] : [`${b.label}: ${b.link}`, ''])),
    `Gerencie sua assinatura: ${m.manageUrl}`,
    '',
    `${m.merchantName}`,
    'Mensagem automática enviada pela Cofre em nome da loja. Não responda a este e-mail.',
  ].join('\n');
  const body = blocks
    .map((b) =>
      'p' in b
        ? `<p style="margin:0 0 16px">${e(b.p)}</p>`
        : 'code' in b
          ? `<p style="margin:0 0 6px;font-weight:600">${e(b.label)}</p><p style="margin:0 0 16px;padding:12px;background:#f4f6f8;border-radius:8px;font:13px/1.4 monospace;word-break:break-all">${e(b.code)}</p>`
          : `<p style="margin:0 0 16px"><a href="${e(b.link)}" style="display:inline-block;background:#0b6e4f;color:#fff;text-decoration:none;padding:12px 20px;border-radius:10px;font-weight:600">${e(b.label)}</a></p>`,
    )
    .join('\n');
  const html = `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${e(subject)}</title></head>
<body style="margin:0;padding:0;background:#f4f6f8;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1d2330">
<div style="max-width:480px;margin:0 auto;padding:24px 16px">
<div style="background:#fff;border-radius:14px;padding:24px">
<p style="margin:0 0 16px;font-weight:700">${e(m.merchantName)}</p>
<p style="margin:0 0 16px">Olá, ${e(m.customerName)}!</p>
${body}
<p style="margin:24px 0 0;font-size:.9rem"><a href="${e(m.manageUrl)}" style="color:#0b6e4f">Gerenciar minha assinatura</a></p>
</div>
<p style="font-size:.8rem;color:#5b6474;margin:16px 0 0">Mensagem automática enviada pela Cofre em nome de ${e(m.merchantName)}. Não responda a este e-mail.</p>
</div></body></html>`;
  return { subject, text, html };
}

/** Subject, text and HTML of a message. */
export function render(m: MailMessage | AccountMessage): Rendered {
  switch (m.kind) {
    case 'password_reset':
    case 'second_factor_code':
    case 'account_invitation':
      return renderAccount(m);
    case 'welcome': {
      // Sent as the client subscribes: with a trial it has begun; without one, its first payment is
      // still to be confirmed (a PIX or boleto to pay, a card being charged).
      const plan = `do plano ${m.planName} (${money(m.amountCents)} ${m.intervalLabel})`;
      const blocks: Block[] = m.trialEndsAt
        ? [{ p: `Sua assinatura ${plan} começou. Seu período de teste vai até ${dateBR(m.trialEndsAt)}; a primeira cobrança será feita nessa data.` }]
        : [{ p: `Recebemos sua assinatura ${plan}. Ela fica ativa assim que o primeiro pagamento for confirmado.` }];
      if (!m.trialEndsAt && m.firstChargeAt) blocks.push({ p: `Depois dele, a próxima cobrança será em ${dateBR(m.firstChargeAt)}.` });
      return layout(m, `Bem-vindo(a) ao plano ${m.planName}`, blocks);
    }
    case 'receipt':
      return layout(m, `Recibo: pagamento de ${money(m.amountCents)} confirmado`, [
        { p: `Recebemos o pagamento de ${money(m.amountCents)} do plano ${m.planName} em ${dateBR(m.paidAt)}${m.cardLast4 ? ` (cartão final ${m.cardLast4})` : m.method === 'PIX' ? ' (PIX)' : ' (boleto)'}.` },
        { p: `Este pagamento cobre o período até ${dateBR(m.periodEnd)}.` },
      ]);
    case 'charge_issued': {
      // The subscriptions send it once the code exists (a bank's boleto: once registered); a code
      // missing all the same is left out rather than shown empty: the link still leads to the payment.
      const code = m.method === 'PIX' ? m.pixCode : m.boletoLine;
      return layout(m, `Sua cobrança de ${money(m.amountCents)} vence em ${dateBR(m.dueDate)}`, [
        { p: `A cobrança do plano ${m.planName}, de ${money(m.amountCents)}, vence em ${dateBR(m.dueDate)}.` },
        ...(code ? [{ label: m.method === 'PIX' ? 'PIX copia e cola' : 'Linha digitável do boleto', code }] : []),
        { link: m.payUrl, label: m.method === 'PIX' ? 'Pagar com PIX' : 'Ver boleto' },
      ]);
    }
    case 'payment_failed':
      return layout(m, `Não conseguimos cobrar sua assinatura do plano ${m.planName}`, [
        { p: `A cobrança de ${money(m.amountCents)} não foi aprovada: ${DECLINES_PT[m.reason] ?? 'o pagamento não foi concluído'}.` },
        { p: m.nextRetryAt ? `Vamos tentar de novo em ${dateBR(m.nextRetryAt)}. Para não perder o acesso, atualize seu cartão.` : 'Para manter sua assinatura, atualize seu cartão.' },
        { link: m.updateCardUrl, label: 'Atualizar cartão' },
      ]);
    case 'card_expiring':
      return layout(m, `Seu cartão ${m.brand} final ${m.last4} vai vencer`, [
        { p: `O cartão ${m.brand} final ${m.last4}, usado na assinatura do plano ${m.planName}, vence em ${String(m.expMonth).padStart(2, '0')}/${m.expYear}.` },
        { p: 'Cadastre um novo cartão para que as próximas cobranças não falhem.' },
        { link: m.updateCardUrl, label: 'Atualizar cartão' },
      ]);
    case 'cancelled':
      return layout(m, `Sua assinatura do plano ${m.planName} foi cancelada`, [
        { p: `Sua assinatura do plano ${m.planName} foi cancelada em ${dateBR(m.endedAt)}.${m.reason ? ` Motivo: ${m.reason}.` : ''}` },
        { p: 'Nenhuma nova cobrança será feita. Se quiser voltar, é só assinar de novo.' },
      ]);
  }
}
