// What the fake Inter checks in a charge's request, from Inter's reference "API Cobrança (Boleto
// com Pix) v3", Emitir cobrança (developers.inter.co): seuNumero 1-15 characters; valorNominal 2.50
// to 99,999,999.99 with cents; dataVencimento YYYY-MM-DD, not before today; numDiasAgenda 0-60;
// pagador { cpfCnpj (11 or 14 digits, matching tipoPessoa FISICA | JURIDICA), nome ≤ 100,
// endereco ≤ 100, numero ≤ 10, complemento ≤ 30, bairro ≤ 60, cidade ≤ 60, uf (a state), cep
// (8 digits), email ≤ 50 }; mensagem.linha1..5 ≤ 78; formasRecebimento within BOLETO, PIX. A broken
// rule answers 400 { title, detail, violacoes: [{ razao, propriedade, valor }] }, Inter's problem shape.
export interface Violation {
  razao: string;
  propriedade: string;
  valor?: string;
}

const UFS = new Set('AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC SP SE TO'.split(' '));
const TOP = ['seuNumero', 'valorNominal', 'dataVencimento', 'numDiasAgenda', 'pagador', 'desconto', 'multa', 'mora', 'mensagem', 'beneficiarioFinal', 'formasRecebimento'];
const PAGADOR = ['cpfCnpj', 'tipoPessoa', 'nome', 'endereco', 'numero', 'complemento', 'bairro', 'cidade', 'uf', 'cep', 'email', 'ddd', 'telefone'];

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown, max: number, required: boolean) => (v === undefined ? !required : typeof v === 'string' && v.trim().length > 0 && v.length <= max);

/** Today in São Paulo (YYYY-MM-DD). */
export const spToday = () => new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);

export function chargeViolations(body: unknown): Violation[] {
  const v: Violation[] = [];
  const bad = (propriedade: string, razao: string) => v.push({ propriedade, razao });
  if (!isObject(body)) return [{ propriedade: 'body', razao: 'deve ser um objeto' }];
  for (const k of Object.keys(body)) if (!TOP.includes(k)) bad(k, 'campo não reconhecido');
  if (!text(body.seuNumero, 15, true)) bad('seuNumero', 'obrigatório, de 1 a 15 caracteres');
  const valor = body.valorNominal;
  if (typeof valor !== 'number' || valor < 2.5 || valor > 99_999_999.99 || Math.abs(Math.round(valor * 100) - valor * 100) > 1e-6) bad('valorNominal', 'deve estar entre 2.5 e 99999999.99, com até duas casas');
  const venc = body.dataVencimento;
  if (typeof venc !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(venc) || Number.isNaN(Date.parse(venc))) bad('dataVencimento', 'formato YYYY-MM-DD');
  else if (venc < spToday()) bad('dataVencimento', 'não pode ser anterior a hoje');
  const dias = body.numDiasAgenda;
  if (!Number.isInteger(dias) || (dias as number) < 0 || (dias as number) > 60) bad('numDiasAgenda', 'inteiro de 0 a 60');
  const formas = body.formasRecebimento;
  if (formas !== undefined && (!Array.isArray(formas) || !formas.length || formas.some((f) => f !== 'BOLETO' && f !== 'PIX'))) bad('formasRecebimento', 'BOLETO e/ou PIX');
  const msg = body.mensagem;
  if (msg !== undefined && (!isObject(msg) || Object.entries(msg).some(([k, t]) => !/^linha[1-5]$/.test(k) || !text(t, 78, false)))) bad('mensagem', 'linha1 a linha5, até 78 caracteres');
  pagadorViolations(body.pagador, bad);
  return v;
}

function pagadorViolations(p: unknown, bad: (propriedade: string, razao: string) => void): void {
  if (!isObject(p)) {
    bad('pagador', 'obrigatório');
    return;
  }
  for (const k of Object.keys(p)) if (!PAGADOR.includes(k)) bad(`pagador.${k}`, 'campo não reconhecido');
  const doc = p.cpfCnpj;
  if (typeof doc !== 'string' || !/^(\d{11}|\d{14})$/.test(doc)) bad('pagador.cpfCnpj', '11 (CPF) ou 14 (CNPJ) dígitos');
  else if (p.tipoPessoa !== (doc.length === 11 ? 'FISICA' : 'JURIDICA')) bad('pagador.tipoPessoa', 'FISICA para CPF, JURIDICA para CNPJ');
  const limits: Array<[string, number, boolean]> = [['nome', 100, true], ['endereco', 100, true], ['numero', 10, false], ['complemento', 30, false], ['bairro', 60, false], ['cidade', 60, true], ['email', 50, false]];
  for (const [k, max, req] of limits) if (!text(p[k], max, req)) bad(`pagador.${k}`, `${req ? 'obrigatório, ' : ''}até ${max} caracteres`);
  if (typeof p.uf !== 'string' || !UFS.has(p.uf)) bad('pagador.uf', 'sigla de um estado');
  if (typeof p.cep !== 'string' || !/^\d{8}$/.test(p.cep)) bad('pagador.cep', '8 dígitos');
}
