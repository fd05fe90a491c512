// Messages the platform sends to a merchant about its own account, in pt-BR (text and HTML).
// Pure functions; every interpolated value of the HTML goes through escapeHtml.
import { escapeHtml as e } from '../http/sanitize.ts';
import type { Rendered } from './rendered.ts';

const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
const spDateTime = new Intl.DateTimeFormat('pt-BR', { timeZone: 'America/Sao_Paulo', day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit' });

/** Paragraphs and one link, as text and as a plain HTML card. */
function merchantLayout(name: string, subject: string, paragraphs: string[], link: { url: string; label: string }): Rendered {
  const text = [`Olá, ${name}!`, '', ...paragraphs.flatMap((p) => [p, '']), `${link.label}: ${link.url}`, '', 'Mensagem automática da Cofre. Não responda a este e-mail.'].join('\n');
  const html = `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${e(subject)}</title></head>
<body style="margin:0;padding:0;background:#f4f6f8;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1d2330">
<div style="max-width:480px;margin:0 auto;padding:24px 16px"><div style="background:#fff;border-radius:14px;padding:24px">
<p style="margin:0 0 16px">Olá, ${e(name)}!</p>
${paragraphs.map((p) => `<p style="margin:0 0 16px">${e(p)}</p>`).join('\n')}
<p style="margin:0 0 16px"><a href="${e(link.url)}" style="display:inline-block;background:#0b6e4f;color:#fff;text-decoration:none;padding:12px 20px;border-radius:10px;font-weight:600">${e(link.label)}</a></p>
</div><p style="font-size:.8rem;color:#5b6474;margin:16px 0 0">Mensagem automática da Cofre. Não responda a este e-mail.</p></div></body></html>`;
  return { subject, text, html };
}

export interface WithdrawalHeldMail {
  merchantName: string;
  amountCents: number;
  /** Already masked (withdrawals/new-destination.ts). */
  destination: string;
  /** When the hold ends by itself; null: it waits for the platform's review instead. */
  sendsAt: Date | null;
  cancelUrl: string;
}

/** A withdrawal to a destination never paid out to: what, where, when, and what to do if it was not the owner. */
export function withdrawalHeldMail(m: WithdrawalHeldMail): Rendered {
  const amount = brl.format(m.amountCents / 100);
  const when = m.sendsAt ? `Por segurança, ele será enviado em ${spDateTime.format(m.sendsAt)} (horário de Brasília).` : 'Por segurança, ele será enviado depois da análise da nossa equipe.';
  return merchantLayout(m.merchantName, `Saque de ${amount} para um destino novo`, [
    `Recebemos um pedido de saque de ${amount} para um destino que sua conta ainda não tinha usado: ${m.destination}.`,
    when,
    'Se foi você, não precisa fazer nada.',
    'Se não foi você, cancele o saque no painel antes desse horário (o valor volta para o seu saldo na hora), troque sua senha e revogue as chaves de API que não reconhecer.',
  ], { url: m.cancelUrl, label: 'Ver e cancelar saques' });
}

export interface SplitPartnerInvitedMail {
  partnerName: string;
  merchantName: string;
  /** The inviting merchant's note, already cleaned of markup; null: none. */
  message: string | null;
  url: string;
}

/** Another merchant asks this one to receive shares of its sales: who, its note, where to answer. */
export function splitPartnerInvitedMail(m: SplitPartnerInvitedMail): Rendered {
  return merchantLayout(m.partnerName, `${m.merchantName} quer dividir vendas com você`, [
    `${m.merchantName} convidou você para receber parte das vendas dele na Cofre (divisão de pagamento).`,
    ...(m.message ? [`Mensagem de ${m.merchantName}: "${m.message}"`] : []),
    'Nada muda até você aceitar. Aceitando, as vendas dele podem enviar uma parte para a sua carteira; você pode encerrar a parceria quando quiser.',
  ], { url: m.url, label: 'Ver o convite' });
}
