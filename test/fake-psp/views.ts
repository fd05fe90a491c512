// What the fake PSP answers: charges, Pix, authorisations and recurring charges as the standard
// shows them, and the items of the rec and cobr notifications.
import { compositeBrCode } from './standard.ts';
import type { Cob, CobRRecord, PixRecord, PspState, RecRecord } from './types.ts';

export function cobView(s: PspState, c: Cob) {
  const cal = c.kind === 'cob' ? { criacao: c.criacao.toISOString(), expiracao: c.body.calendario?.expiracao ?? 86400 } : { criacao: c.criacao.toISOString(), dataDeVencimento: c.body.calendario.dataDeVencimento, validadeAposVencimento: c.body.calendario.validadeAposVencimento ?? 30 };
  return {
    ...c.body,
    calendario: cal,
    txid: c.txid,
    revisao: c.revisao,
    loc: { id: s.locId, location: c.location, tipoCob: c.kind, criacao: c.criacao.toISOString() },
    location: c.location,
    status: c.status,
    pixCopiaECola: c.pixCopiaECola,
    ...(c.kind === 'cobv' ? { recebedor: { cnpj: '12345678000195', nome: 'Loja Teste', logradouro: 'Rua A, 1', cidade: 'São Paulo', uf: 'SP', cep: '01001000' } } : {}),
    ...(c.pix.length ? { pix: c.pix.map((e) => pixView(s.pix.get(e)!)) } : {}),
  };
}

export function pixView(p: PixRecord) {
  return {
    endToEndId: p.endToEndId,
    txid: p.txid,
    valor: p.valor,
    chave: p.chave,
    horario: p.horario.toISOString(),
    componentesValor: { original: { valor: p.valor } },
    ...(p.devolucoes.length
      ? {
          devolucoes: p.devolucoes.map((d) => ({
            id: d.id,
            rtrId: d.rtrId,
            valor: d.valor,
            natureza: d.natureza,
            horario: { solicitacao: d.solicitacao.toISOString(), ...(d.liquidacao ? { liquidacao: d.liquidacao.toISOString() } : {}) },
            status: d.status,
            ...(d.motivo ? { motivo: d.motivo } : {}),
          })),
        }
      : {}),
  };
}

export function recView(s: PspState, r: RecRecord, withTxid?: string) {
  const c = r.body.ativacao?.dadosJornada?.txid ? s.cobs.get(r.body.ativacao.dadosJornada.txid) : undefined;
  const composite = withTxid && c && r.loc ? compositeBrCode(c.location, r.loc.location) : null;
  return {
    idRec: r.idRec,
    vinculo: r.body.vinculo,
    calendario: r.body.calendario,
    ...(r.body.valor ? { valor: r.body.valor } : {}),
    politicaRetentativa: r.body.politicaRetentativa,
    recebedor: { cnpj: '12345678000195', nome: 'Loja Teste' },
    status: r.status,
    ...(r.loc ? { loc: { id: r.loc.id, location: r.loc.location, criacao: r.loc.criacao.toISOString(), idRec: r.idRec } } : {}),
    ativacao: { tipoJornada: r.body.ativacao?.dadosJornada?.txid ? 'JORNADA_3' : 'AGUARDANDO_DEFINICAO', ...(r.body.ativacao?.dadosJornada ? { dadosJornada: r.body.ativacao.dadosJornada } : {}) },
    ...(r.encerramento ? { encerramento: r.encerramento } : {}),
    atualizacao: r.atualizacao.map((a) => ({ status: a.status, data: a.data.toISOString() })),
    ...(composite ? { dadosQR: { jornada: 'JORNADA_3', pixCopiaECola: composite } } : {}),
  };
}

export function cobrView(s: PspState, c: CobRRecord) {
  return {
    idRec: c.idRec,
    txid: c.txid,
    ...(c.body.infoAdicional !== undefined ? { infoAdicional: c.body.infoAdicional } : {}),
    calendario: { criacao: c.criacao.toISOString().slice(0, 10), dataDeVencimento: c.body.calendario.dataDeVencimento },
    valor: c.body.valor,
    status: c.status,
    politicaRetentativa: s.recs.get(c.idRec)?.body.politicaRetentativa ?? 'NAO_PERMITE',
    ajusteDiaUtil: c.body.ajusteDiaUtil,
    recebedor: c.body.recebedor,
    ...(c.body.devedor ? { devedor: c.body.devedor } : {}),
    ...(c.pix.length ? { pix: c.pix.map((e) => { const p = pixView(s.pix.get(e)!); return { endToEndId: p.endToEndId, txid: p.txid, valor: p.valor, horario: p.horario }; }) } : {}),
    atualizacao: c.atualizacao.map((a) => ({ status: a.status, data: a.data.toISOString() })),
    ...(c.encerramento ? { encerramento: c.encerramento } : {}),
    tentativas: c.tentativas.map((t) => ({ ...t, atualizacao: t.atualizacao.map((a) => ({ status: a.status, data: a.data.toISOString() })) })),
  };
}

export const recNotice = (s: PspState, r: RecRecord) => {
  const v = recView(s, r);
  return { idRec: v.idRec, status: v.status, atualizacao: v.atualizacao, ativacao: v.ativacao, ...(v.encerramento ? { encerramento: v.encerramento } : {}) };
};
export const cobrNotice = (s: PspState, c: CobRRecord) => {
  const v = cobrView(s, c);
  return { idRec: v.idRec, txid: v.txid, status: v.status, atualizacao: v.atualizacao, tentativas: v.tentativas, ...(v.pix ? { pix: v.pix } : {}) };
};
