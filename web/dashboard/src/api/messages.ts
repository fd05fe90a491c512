// The API's errors in Portuguese. The API's messages are English and fixed by the spec; the screens
// show pt-BR: the error's code (docs/errors.md) or HTTP status for the message above a form, and for
// each field the API names, its message matched against the ones the API writes (Ajv's schema
// messages and the services' own). A field message not listed here gets a generic pt-BR sentence,
// never the English one.
import { brl } from '../lib/format.ts';

export const STATUS_MESSAGES: Record<number, string> = {
  400: 'Não foi possível concluir: confira os dados.',
  401: 'Sua sessão terminou. Entre de novo.',
  403: 'Sem permissão para isto. No ambiente de produção, o cadastro (KYC) precisa estar aprovado.',
  404: 'Não encontrado.',
  409: 'Outra operação igual está em andamento. Tente de novo em instantes.',
  413: 'O arquivo é grande demais.',
  429: 'Muitas requisições. Aguarde um pouco e tente de novo.',
  500: 'Erro inesperado no servidor. Tente de novo.',
  502: 'O provedor de pagamento recusou a operação.',
  503: 'Serviço indisponível no momento. Tente de novo.',
};

/** The message above a form, by the API's error code. */
export const CODE_MESSAGES: Record<string, string> = {
  VALIDATION_ERROR: 'Dados inválidos: corrija os campos destacados.',
  INVALID_JSON: 'Dados inválidos: corrija os campos destacados.',
  INVALID_DOCUMENT: 'CPF ou CNPJ inválido.',
  INSUFFICIENT_BALANCE: 'Saldo insuficiente.',
  INSUFFICIENT_STOCK: 'Estoque insuficiente.',
  EMAIL_ALREADY_REGISTERED: 'Já existe uma conta com este e-mail.',
  CLIENT_ALREADY_EXISTS: 'Já existe um cliente com este CPF/CNPJ.',
  COUPON_ALREADY_EXISTS: 'Já existe um cupom com este código.',
  SKU_ALREADY_EXISTS: 'Já existe um produto com este SKU.',
  REFUND_EXCEEDS_PAID: 'O estorno é maior que o valor que ainda pode ser estornado.',
  REFUND_WINDOW_CLOSED: 'O prazo para estornar este pagamento acabou.',
  INVALID_STATE_TRANSITION: 'Não é possível fazer isso no estado atual.',
  ADVANCE_ALREADY_ACTIVE: 'Já existe uma antecipação em andamento.',
  INVALID_CURSOR: 'A lista mudou: recarregue a página.',
  IDEMPOTENCY_KEY_REUSED: 'Esta operação já foi enviada com outros dados.',
  INVALID_COUPON: 'Cupom inválido ou indisponível.',
  PAYMENT_LINK_UNAVAILABLE: 'Este link de pagamento está inativo ou expirou.',
  AFFILIATE_PROGRAM_EXISTS: 'Este produto já tem um programa de afiliados.',
  PLAN_UNAVAILABLE: 'Este plano está inativo.',
  PLAN_FULL: 'Este plano não aceita mais assinantes.',
  SPLIT_RECIPIENT_NOT_ALLOWED: 'A divisão só pode pagar suas subcontas e parceiros que aceitaram seu convite.',
  SPLIT_EXCEEDS_AMOUNT: 'A divisão pede mais do que sobra da venda depois da taxa.',
};

/** A field's message when the code says it all, whatever the English text. */
const CODE_FIELD_MESSAGES: Record<string, string> = {
  INVALID_DOCUMENT: 'CPF ou CNPJ inválido: confira os números.',
  EMAIL_ALREADY_REGISTERED: 'Já existe uma conta com este e-mail.',
  CLIENT_ALREADY_EXISTS: 'Já existe um cliente com este CPF/CNPJ.',
  COUPON_ALREADY_EXISTS: 'Já existe um cupom com este código.',
  SKU_ALREADY_EXISTS: 'Já existe um produto com este SKU.',
};

/** Money fields (cents in the API) are shown in reais; fee rates (basis points) as percent. */
const isMoney = (field: string) => /Cents$|^price$|(^|\.)amount$/.test(field);
const isBp = (field: string) => /Bp$/.test(field);
/** A payment link's monthly interest: a percentage as typed (2.99 = 2,99%). */
const isPercent = (field: string) => /interestRate$/.test(field);
const quantity = (field: string, n: number) =>
  isMoney(field) ? brl(n) : isBp(field) ? `${(n / 100).toLocaleString('pt-BR')}%` : isPercent(field) ? `${n.toLocaleString('pt-BR')}%` : n.toLocaleString('pt-BR');

const PATTERN_HINTS: Record<string, string> = {
  code: 'Use de 3 a 50 letras, números, - ou _ (sem espaços).',
  phone: 'Use o formato +5511999990000.',
  zipCode: 'Use o CEP com 8 números, como 01001-000.',
  state: 'Use a sigla do estado, como SP.',
  // A withdrawal to an account, by the field's whole path.
  'bankAccount.ispb': 'Escolha o banco ou informe o ISPB dele, com 8 números.',
  'bankAccount.branch': 'Use a agência com até 4 números, sem o dígito.',
  'bankAccount.account': 'Use a conta com o dígito, só números (até 20).',
  // The catalogue: a link's extras, a product's.
  metaPixelCode: 'Use só os números do ID do pixel (de 5 a 20 dígitos).',
  redirectUrl: 'Informe um endereço completo, começando com https://.',
  imageUrl: 'Informe um endereço completo, começando com https://.',
  sku: 'O SKU não pode começar nem terminar com espaço.',
};

/** A rule's words for the message it matched, or null to leave it to the rules after it. */
type Rule = [RegExp, (m: RegExpMatchArray, field: string) => string | null];

/** The API's field messages, most specific first. */
const RULES: Rule[] = [
  [/^must match format "email"$/, () => 'Informe um e-mail válido, como nome@empresa.com.br.'],
  [/^must match format "(uri|url)"$/, () => 'Informe um endereço completo, começando com https://.'],
  [/^must match format "date(-time)?"$|^is not a calendar date$/, () => 'Data inválida: use dd/mm/aaaa.'],
  [/^must match format "uuid"$/, (_m, f) => (/walletId$/.test(f) ? 'ID de carteira inválido: copie os 36 caracteres que o recebedor vê em Divisões de pagamento.' : 'Identificador inválido.')],
  [/^is required: the type of this pixKey/, () => 'Escolha o tipo da chave PIX.'],
  [/^is required when stockEnabled is true$/, () => 'Informe a quantidade em estoque.'],
  [/^is required when showTermsFooter is true$/, () => 'Informe o endereço dos termos de compra.'],
  [/^is required to reject/, () => 'Informe o motivo: o lojista recebe esta explicação.'],
  [/^must NOT have fewer than 1 characters$|^must contain text|^is required/, () => 'Preencha este campo.'],
  [/^must have required property/, () => 'Preencha este campo.'],
  [/^must NOT have fewer than \d+ characters$/, (_m, f) => (/Document$/.test(f) ? 'Informe o CPF ou o CNPJ completo.' : null)],
  [/^must NOT have fewer than (\d+) characters$/, (m) => `Use pelo menos ${m[1]} caracteres.`],
  [/^must NOT have more than (\d+) characters$/, (m) => `Use no máximo ${m[1]} caracteres.`],
  [/^must NOT have fewer than 1 items$/, () => 'Escolha pelo menos uma opção.'],
  [/^must NOT have fewer than (\d+) items$/, (m) => `Escolha pelo menos ${m[1]} opções.`],
  [/^must NOT have more than (\d+) items$/, (m) => `Escolha no máximo ${m[1]} opções.`],
  [/^must be >= (-?\d+)$/, (m, f) => `O mínimo é ${quantity(f, Number(m[1]))}.`],
  [/^must be > (-?\d+)$/, (m, f) => `Precisa ser maior que ${quantity(f, Number(m[1]))}.`],
  [/^must be <= (-?\d+)$/, (m, f) => `O máximo é ${quantity(f, Number(m[1]))}.`],
  [/^must be < (-?\d+)$/, (m, f) => `Precisa ser menor que ${quantity(f, Number(m[1]))}.`],
  [/^must be integer( or null)?$/, (_m, f) => (isMoney(f) ? 'Informe um valor em reais, como 1.234,56.' : 'Informe um número inteiro.')],
  [/^must be one of: /, () => 'Escolha uma das opções.'],
  [/^must match pattern/, (_m, f) => PATTERN_HINTS[f] ?? PATTERN_HINTS[f.split('.').pop()!] ?? 'Formato inválido.'],
  [/^is not an allowed field$/, () => 'Este campo não é aceito.'],
  [/^needs (\d+) cents available, the balance is (-?\d+)$/, (m) => `Saldo disponível insuficiente: são necessários ${brl(Number(m[1]))} e há ${brl(Number(m[2]))}.`],
  [/^at most (\d+) cents can still be refunded$/, (m) => `Ainda é possível estornar no máximo ${brl(Number(m[1]))}.`],
  [/^at most (\d+) cents can be advanced now$/, (m) => `Agora é possível antecipar no máximo ${brl(Number(m[1]))}.`],
  [/^(\d+) cents are no longer available to advance$/, (m) => `${brl(Number(m[1]))} não estão mais disponíveis para antecipar.`],
  [/^must be more than the withdrawal fee \((\d+) cents\)$/, (m) => `O saque precisa ser maior que a tarifa de ${brl(Number(m[1]))}.`],
  [/^the fee would take the whole amount/, () => 'A taxa levaria o valor inteiro: escolha um valor maior.'],
  [/^is not the current password$/, () => 'A senha atual não confere.'],
  [/^must differ from the current password$/, () => 'A nova senha precisa ser diferente da atual.'],
  [/^is too common/, () => 'Senha muito comum: escolha uma mais difícil de adivinhar.'],
  [/^the account holder must be at least 18 years old$/, () => 'O titular precisa ter pelo menos 18 anos.'],
  [/^is too far in the past$/, () => 'Data antiga demais.'],
  [/^must not be in the future$/, () => 'A data não pode estar no futuro.'],
  [/^must be in the future$/, () => 'A data precisa estar no futuro.'],
  [/^must be a CPF for personType PF$/, () => 'Informe um CPF (pessoa física).'],
  [/^must be a CNPJ for personType PJ$/, () => 'Informe um CNPJ (empresa).'],
  [/^is not a PNG, JPEG, WebP image or a PDF$|^says .+ but the file is/, () => 'Envie uma imagem PNG, JPEG ou WebP, ou um PDF.'],
  [/^is \d+ bytes; at most/, () => 'Arquivo grande demais: no máximo 5 MB.'],
  [/^this environment already has (\d+) subscriptions/, (m) => `Este ambiente já tem ${m[1]} webhooks: exclua um antes.`],
  [/^at least one payment method must be enabled$/, () => 'Habilite pelo menos uma forma de pagamento.'],
  [/^must be multiple of 0\.01$/, () => 'Use no máximo duas casas decimais, como 2,99.'],
  // The catalogue's rules (products, payment links and their products).
  [/^digital products keep no stock$/, () => 'Um produto digital não tem estoque: desmarque “Controlar estoque”.'],
  [/^is listed more than once$/, () => 'Este produto já está em outra linha: some as quantidades numa só.'],
  [/^is not a product of this merchant and environment$/, () => 'Produto não encontrado neste ambiente.'],
  [/^is an inactive product$/, () => 'Produto inativo: reative-o em Produtos ou remova esta linha.'],
  [/^the sum of price x quantity must be at most (\d+) cents$/, (m) => `A soma dos produtos passa do máximo de ${brl(Number(m[1]))}.`],
  [/^is empty: list at least one product/, () => 'Escolha pelo menos um produto, ou informe o valor.'],
  [/^amountCents or products/, () => 'Informe o valor, ou escolha os produtos do link.'],
  // Checkouts: the brand's colour and images (src/modules/branding, src/modules/media), bumps and offers.
  [/^white button text on (#[0-9a-fA-F]{6}) has a contrast of ([\d.]+):1/, (m) => `O texto branco do botão sobre ${m[1]} tem contraste ${m[2].replace('.', ',')}:1; são necessários 4,5:1 para ler. Escolha uma cor mais escura.`],
  [/^is not a PNG, JPEG, WebP or GIF image/, () => 'O endereço não é de uma imagem PNG, JPEG, WebP ou GIF (SVG não é aceito).'],
  [/^is larger than .* MiB/, () => 'Imagem grande demais: no máximo 2 MB.'],
  [/^could not be fetched: the address answers with a redirect/, () => 'O endereço redireciona para outro: informe o endereço direto da imagem.'],
  [/^could not be fetched/, () => 'Não foi possível baixar a imagem deste endereço: confira se ele abre no navegador.'],
  [/^is not a payment link of this merchant and environment$/, () => 'Link de pagamento não encontrado neste ambiente.'],
  [/^give discountCents or discountPercentage, not both$/, () => 'Use desconto em reais ou em porcentagem, não os dois.'],
  [/^must be less than the product's price \((\d+) cents\)$/, (m) => `O desconto precisa ser menor que o preço do produto (${brl(Number(m[1]))}).`],
  // A split (src/payments/splits.ts, src/modules/splits/rule.ts).
  [/^is not your sub-account,? (your platform,? )?nor a partner who accepted/, () => 'Esta carteira não é uma subconta sua nem um parceiro que aceitou seu convite.'],
  [/^appears twice: one entry per recipient$/, () => 'Esta carteira já está em outro recebedor: um recebedor por carteira.'],
  [/^give exactly one of fixedCents and percentageBp$/, () => 'Informe um percentual ou um valor fixo.'],
  [/^applies with basis GROSS/, () => 'Cobrar taxas só vale com a base Bruto: a parte do líquido já vem sem a taxa.'],
  [/^the percentages add up to ([\d.]+)%, more than 100%$/, (m) => `Os percentuais somam ${m[1].replace('.', ',')}%: o máximo é 100%.`],
  [/^at most (\d+) recipients$/, (m) => `No máximo ${m[1]} recebedores.`],
  [/^the shares ask for (\d+) cents more than the net of (-?\d+) cents$/, (m) => `Os recebedores pediriam ${brl(Number(m[1]))} a mais do que o líquido da venda (${brl(Number(m[2]))}).`],
  // Sub-accounts' Pix keys (src/payments/pix-keys.ts) and split partners' wallets (src/modules/accounts).
  [/^is not a Pix key/, () => 'Não é uma chave PIX: use CPF, CNPJ, e-mail, celular com +55 ou chave aleatória.'],
  [/^must be a Brazilian mobile number/, () => 'Use o celular com +55 e o DDD, como +5511999990000.'],
  [/^must be an e-mail address$/, () => 'Informe um e-mail válido, como nome@empresa.com.br.'],
  [/^must be a random key/, () => 'A chave aleatória tem 36 caracteres, como 123e4567-e89b-42d3-a456-426614174000.'],
  [/^is not a Cofre wallet$/, () => 'Nenhuma conta do Cofre tem esta carteira: confira o ID.'],
  [/^is your own wallet$/, () => 'Esta é a sua própria carteira.'],
  [/^is your own sub-account/, () => 'É uma subconta sua: suas divisões já podem pagá-la, sem convite.'],
  [/^is your platform/, () => 'É a plataforma desta conta: as divisões dela já podem pagar você, sem convite.'],
  [/^has an invitation from you already/, () => 'Você já convidou esta carteira: o convite está pendente ou foi aceito.'],
  // A webhook's URL (the gateway's SSRF checks, src/http/ssrf.ts).
  [/^must be an absolute URL$|^must have a host$/, () => 'Informe o endereço completo, começando com https://.'],
  [/^must use https/, () => 'Use um endereço https:// (http só é aceito com o gateway em desenvolvimento local, WEBHOOK_ALLOW_PRIVATE_TARGETS=true).'],
  [/^must not contain credentials$/, () => 'Tire o usuário e a senha do endereço.'],
  [/^(points to|host is|host resolves to) /, () => 'Este endereço é de uma rede interna ou local: use um endereço público https://.'],
  [/^host name does not resolve/, () => 'Este domínio não foi encontrado: confira o endereço.'],
  // A subscription's plan change (planId).
  [/^is the current plan$/, () => 'Este já é o plano do assinante.'],
  [/^is not a plan of this merchant/, () => 'Plano não encontrado neste ambiente.'],
  [/^must bill on the same interval/, () => 'Escolha um plano cobrado com a mesma periodicidade do atual.'],
  [/^a PIX_AUTOMATICO subscription cannot upgrade mid-period/, () => 'No Pix Automático não dá para cobrar a diferença agora: troque para um plano mais barato, ou cancele no fim do período e assine o novo plano.'],
  [/^the target plan does not accept PIX_AUTOMATICO$/, () => 'Este plano não aceita Pix Automático, a forma de pagamento deste assinante.'],
  [/^the plan is inactive$/, () => 'Este plano está desativado.'],
  [/^the plan is full$/, () => 'Este plano atingiu o limite de assinantes.'],
];

/** A field's message in Portuguese. */
export function fieldMessage(field: string, message: string, code?: string): string {
  if (code && CODE_FIELD_MESSAGES[code]) return CODE_FIELD_MESSAGES[code];
  for (const [re, say] of RULES) {
    const m = re.exec(message);
    const said = m && say(m, field);
    if (said) return said;
  }
  return 'Valor inválido neste campo.';
}
