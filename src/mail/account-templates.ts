// The messages Cofre sends to a merchant about the account itself (not on a store's behalf), in
// pt-BR. They carry a secret (a reset link, a confirmation code): GET /api/v1/emails never lists
// them, and once an SMTP server took one its stored body is blanked (outbox.ts).
import { escapeHtml as e } from '../http/sanitize.ts';
import type { Rendered } from './rendered.ts';

export type AccountMessage =
  | { kind: 'password_reset'; name: string; resetUrl: string; minutes: number }
  | { kind: 'second_factor_code'; name: string; code: string; minutes: number }
  | { kind: 'account_invitation'; name: string; platformName: string; setPasswordUrl: string; days: number };

export const ACCOUNT_TEMPLATES: readonly string[] = ['password_reset', 'second_factor_code', 'account_invitation'] satisfies AccountMessage['kind'][];

const FOOTER = 'Se não foi você, ignore este e-mail e troque sua senha. A Cofre nunca pede este código por telefone ou mensagem.';

/** An invitation was not asked for by its reader: nothing to change if it was not expected. */
const INVITATION_FOOTER = 'Se você não esperava este convite, ignore este e-mail: sem definir uma senha, ninguém entra na conta pelo painel. A Cofre nunca pede sua senha por telefone ou mensagem.';

function page(subject: string, name: string, lines: string[], action: { url: string; label: string } | { code: string }, footer = FOOTER): Rendered {
  const middle = 'url' in action ? `${action.label}: ${action.url}` : action.code;
  const text = [`Olá, ${name}!`, '', ...lines, '', middle, '', footer, '', 'Cofre'].join('\n');
  const actionHtml =
    'url' in action
      ? `<p><a href="${e(action.url)}" style="display:inline-block;background:#0b6e4f;color:#fff;text-decoration:none;padding:12px 20px;border-radius:10px;font-weight:600">${e(action.label)}</a></p>`
      : `<p style="font:700 28px/1.2 monospace;letter-spacing:6px">${e(action.code)}</p>`;
  const html = `<!doctype html><html lang="pt-BR"><head><meta charset="utf-8"><title>${e(subject)}</title></head>
<body style="font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1d2330;max-width:480px;margin:0 auto;padding:24px 16px">
<p style="font-weight:700">Cofre</p><p>Olá, ${e(name)}!</p>
${lines.map((l) => `<p>${e(l)}</p>`).join('\n')}
${actionHtml}
<p style="font-size:.85rem;color:#5b6474">${e(footer)}</p>
</body></html>`;
  return { subject, text, html };
}

export function renderAccount(m: AccountMessage): Rendered {
  if (m.kind === 'password_reset') {
    return page('Redefina sua senha da Cofre', m.name, [`Recebemos um pedido para redefinir a senha da sua conta. O link vale por ${m.minutes} minutos e só pode ser usado uma vez.`], {
      url: m.resetUrl,
      label: 'Redefinir senha',
    });
  }
  if (m.kind === 'account_invitation') {
    return page(
      `${m.platformName} criou sua conta na Cofre: defina sua senha`,
      m.name,
      [
        `${m.platformName} criou uma conta na Cofre para você receber suas vendas. Defina uma senha para entrar no painel: ver vendas e saldo, sacar, completar seus dados.`,
        `O link vale por ${m.days} dias e só pode ser usado uma vez. Se ele vencer, peça a ${m.platformName} um novo convite, ou use "Esqueci minha senha" no painel.`,
      ],
      { url: m.setPasswordUrl, label: 'Definir minha senha' },
      INVITATION_FOOTER,
    );
  }
  return page(`Seu código de confirmação da Cofre: ${m.code}`, m.name, [`Use este código para confirmar a operação no painel. Ele vale por ${m.minutes} minutos e só pode ser usado uma vez.`], { code: m.code });
}
