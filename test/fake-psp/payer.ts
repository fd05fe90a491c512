// The payer's side of the fake PSP, on demand: a PIX paid (or a notification forged), refunds
// finished; a Pix Automático authorisation answered, a recurring charge debited or its attempt failed.
// Each notifies the registered webhook as the standard's callbacks do.
import { cancelCobrsOf } from './automatico-routes.ts';
import { ATTEMPT_CODES, cents, cobvAmountOn, money, newE2eid, spDay, stamp } from './standard.ts';
import { deliver, deliverRecurring, post, postTo } from './transport.ts';
import type { FakePsp, PixRecord, PspState } from './types.ts';
import { cobrNotice, pixView, recNotice } from './views.ts';

/** A payer pays a charge; the PSP notifies a forged or a real Pix; it finishes refunds. */
export function pixPayer(s: PspState): Pick<FakePsp, 'pay' | 'notify' | 'forge' | 'finishRefunds'> {
  const { cobs, pix, keys } = s;
  return {
    async pay(txid, o = {}) {
      const c = cobs.get(txid);
      if (c?.status !== 'ATIVA') throw new Error(`fake PSP: no ATIVA charge ${txid}`);
      const at = o.horario ?? new Date();
      const due = c.kind === 'cobv' ? cobvAmountOn(c.body, spDay(at)) : cents(c.body.valor.original);
      if (due === null) throw new Error(`fake PSP: charge ${txid} is past its validadeAposVencimento`);
      const p: PixRecord = { endToEndId: newE2eid(at), txid, valor: o.valor ?? money(due), chave: c.body.chave, horario: at, devolucoes: [] };
      pix.set(p.endToEndId, p);
      c.pix.push(p.endToEndId);
      c.status = 'CONCLUIDA';
      await deliver(s, c.body.chave, [pixView(p)], o);
      return p;
    },
    async notify(items, o = {}) {
      const views = items.map((i) => ('endToEndId' in i && pix.has(String(i.endToEndId)) ? pixView(pix.get(String(i.endToEndId))!) : i));
      const chave = o.chave ?? [...keys][0];
      return post(s, chave, views, o.bare ?? false);
    },
    async forge(txid) {
      const c = cobs.get(txid);
      if (!c) throw new Error(`fake PSP: no charge ${txid}`);
      const e2eid = newE2eid(new Date());
      const status = await post(s, c.body.chave, [{ endToEndId: e2eid, txid, valor: c.body.valor.original, chave: c.body.chave, horario: new Date().toISOString() }], false);
      return { status, e2eid };
    },
    async finishRefunds(status, o = {}) {
      for (const p of pix.values()) {
        const open = p.devolucoes.filter((d) => d.status === 'EM_PROCESSAMENTO');
        if (!open.length) continue;
        for (const d of open) {
          d.status = status;
          d.liquidacao = status === 'DEVOLVIDO' ? new Date() : undefined;
          if (status === 'NAO_REALIZADO') d.motivo = 'Conta do pagador encerrada';
        }
        await deliver(s, p.chave, [pixView(p)], o);
      }
    },
  };
}

/** The payer answers an authorisation; its bank debits or fails a scheduled attempt; any rec/cobr notification. */
export function automaticoPayer(s: PspState): Pick<FakePsp, 'answerRec' | 'debit' | 'failAttempt' | 'notifyRecurring'> {
  const { recs, cobrs, pix, keys } = s;
  return {
    async answerRec(idRec, answer, o = {}) {
      const r = recs.get(idRec);
      if (!r) throw new Error(`fake PSP: no authorisation ${idRec}`);
      if (answer === 'CANCELADA' ? r.status !== 'CRIADA' && r.status !== 'APROVADA' : r.status !== 'CRIADA') throw new Error(`fake PSP: authorisation ${idRec} is ${r.status}`);
      r.status = answer;
      if (answer === 'REJEITADA') r.encerramento = { rejeicao: { codigo: 'AP13', descricao: 'Recusada pelo usuário pagador' } };
      if (answer === 'CANCELADA') {
        const solicitante = o.by ?? 'USUARIO_PAGADOR';
        r.encerramento = { cancelamento: { solicitante, codigo: o.codigo ?? 'ACCL', descricao: 'Cancelamento da recorrência' } };
        cancelCobrsOf(s, idRec, solicitante);
      }
      stamp(r.atualizacao, answer);
      await deliverRecurring(s, 'rec', [recNotice(s, r)], o);
      return r;
    },
    async debit(txid, o = {}) {
      const c = cobrs.get(txid);
      const t = c?.tentativas.at(-1);
      if (c?.status !== 'ATIVA' || t?.status !== 'AGENDADA') throw new Error(`fake PSP: no scheduled debit for ${txid}`);
      const at = new Date();
      const p: PixRecord = { endToEndId: t.endToEndId, txid, valor: c.body.valor.original, chave: [...keys][0], horario: at, devolucoes: [] };
      pix.set(p.endToEndId, p);
      c.pix.push(p.endToEndId);
      t.status = 'PAGA';
      stamp(t.atualizacao, 'PAGA');
      c.status = 'CONCLUIDA';
      stamp(c.atualizacao, 'CONCLUIDA');
      await deliverRecurring(s, 'cobr', [cobrNotice(s, c)], o);
      return p;
    },
    async failAttempt(txid, codigo, o = {}) {
      const c = cobrs.get(txid);
      const t = c?.tentativas.at(-1);
      if (c?.status !== 'ATIVA' || t?.status !== 'AGENDADA') throw new Error(`fake PSP: no scheduled debit for ${txid}`);
      if (codigo !== undefined && !ATTEMPT_CODES.includes(codigo)) throw new Error(`fake PSP: ${codigo} is not a rejection code of the standard`);
      t.status = codigo ? 'REJEITADA' : 'EXPIRADA';
      if (codigo) t.rejeicao = { codigo, descricao: 'Tentativa rejeitada pelo PSP pagador' };
      stamp(t.atualizacao, t.status);
      // These codes reject the whole charge (the standard's CobRTentativas.rejeicao).
      if (codigo && ['AC05', 'AM09', 'DENC', 'DS27', 'DTED', 'MIDI', 'MSUC', 'NITX', 'RC09'].includes(codigo)) {
        c.status = 'REJEITADA';
        c.encerramento = { rejeicao: { codigo, descricao: 'Cobrança rejeitada' } };
        stamp(c.atualizacao, 'REJEITADA');
      }
      await deliverRecurring(s, 'cobr', [cobrNotice(s, c)], o);
      return c;
    },
    async notifyRecurring(kind, items, o = {}) {
      const hook = kind === 'rec' ? s.recWebhook : s.cobrWebhook;
      return hook ? postTo(hook.webhookUrl, kind, kind === 'rec' ? 'recs' : 'cobsr', items, o.bare ?? false) : 0;
    },
  };
}
