// The dashboard's Portuguese for the API's error messages (web/dashboard/src/api/messages.ts): the
// field messages the API writes (Ajv's and the services'), with amounts in reais and rates in
// percent; anything unknown gets a Portuguese sentence, never the English text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fieldMessage } from '../web/dashboard/src/api/messages.ts';

test('the API\'s field messages in Portuguese, bounds in the field\'s unit', () => {
  const cases: [string, string, string | undefined, string][] = [
    ['name', 'must NOT have fewer than 1 characters', 'VALIDATION_ERROR', 'Preencha este campo.'],
    ['password', 'must NOT have fewer than 8 characters', 'VALIDATION_ERROR', 'Use pelo menos 8 caracteres.'],
    ['price', 'must be <= 100000000', 'VALIDATION_ERROR', 'O máximo é R$ 1.000.000,00.'],
    ['amountCents', 'must be >= 1', 'VALIDATION_ERROR', 'O mínimo é R$ 0,01.'],
    ['pixPercentBp', 'must be <= 10000', 'VALIDATION_ERROR', 'O máximo é 100%.'],
    ['installments', 'must be <= 12', 'VALIDATION_ERROR', 'O máximo é 12.'],
    ['email', 'must match format "email"', 'VALIDATION_ERROR', 'Informe um e-mail válido, como nome@empresa.com.br.'],
    ['code', 'must match pattern "^[A-Za-z0-9_-]{3,50}$"', 'VALIDATION_ERROR', 'Use de 3 a 50 letras, números, - ou _ (sem espaços).'],
    ['address.zipCode', 'must match pattern "^\\d{5}-?\\d{3}$"', 'VALIDATION_ERROR', 'Use o CEP com 8 números, como 01001-000.'],
    ['events', 'must NOT have fewer than 1 items', 'VALIDATION_ERROR', 'Escolha pelo menos uma opção.'],
    ['amountCents', 'needs 500000 cents available, the balance is 12234', 'INSUFFICIENT_BALANCE', 'Saldo disponível insuficiente: são necessários R$ 5.000,00 e há R$ 122,34.'],
    ['amountCents', 'at most 100000 cents can still be refunded', 'REFUND_EXCEEDS_PAID', 'Ainda é possível estornar no máximo R$ 1.000,00.'],
    ['currentPassword', 'is not the current password', 'VALIDATION_ERROR', 'A senha atual não confere.'],
    ['checkoutConfig.theme.primaryColor', 'white button text on #ffd400 has a contrast of 1.42:1; at least 4.5:1 is needed to be read (choose a darker colour)', 'VALIDATION_ERROR', 'O texto branco do botão sobre #ffd400 tem contraste 1,42:1; são necessários 4,5:1 para ler. Escolha uma cor mais escura.'],
    ['checkoutConfig.termsUrl', 'is required when showTermsFooter is true', 'VALIDATION_ERROR', 'Informe o endereço dos termos de compra.'],
    ['discountCents', "must be less than the product's price (1990 cents)", 'VALIDATION_ERROR', 'O desconto precisa ser menor que o preço do produto (R$ 19,90).'],
    ['reason', 'is required to reject: the merchant is told why', 'VALIDATION_ERROR', 'Informe o motivo: o lojista recebe esta explicação.'],
    ['document', 'is not a valid CPF or CNPJ', 'INVALID_DOCUMENT', 'CPF ou CNPJ inválido: confira os números.'],
    ['email', 'is already registered', 'EMAIL_ALREADY_REGISTERED', 'Já existe uma conta com este e-mail.'],
    ['bankAccount.ispb', 'must match pattern "^[0-9]{8}$"', 'VALIDATION_ERROR', 'Escolha o banco ou informe o ISPB dele, com 8 números.'],
    ['bankAccount.branch', 'must match pattern "^[0-9]{1,4}$"', 'VALIDATION_ERROR', 'Use a agência com até 4 números, sem o dígito.'],
    ['bankAccount.account', 'must match pattern "^[0-9]{1,20}$"', 'VALIDATION_ERROR', 'Use a conta com o dígito, só números (até 20).'],
    ['bankAccount.holderDocument', 'must NOT have fewer than 11 characters', 'VALIDATION_ERROR', 'Informe o CPF ou o CNPJ completo.'],
    ['bankAccount.holderDocument', 'Invalid CPF check digits', 'INVALID_DOCUMENT', 'CPF ou CNPJ inválido: confira os números.'],
    ['bankAccount.holderName', 'must contain text', 'VALIDATION_ERROR', 'Preencha este campo.'],
    // The catalogue: a product's and a payment link's settings, and the products of a link.
    ['stockQuantity', 'is required when stockEnabled is true', 'VALIDATION_ERROR', 'Informe a quantidade em estoque.'],
    ['stockEnabled', 'digital products keep no stock', 'VALIDATION_ERROR', 'Um produto digital não tem estoque: desmarque “Controlar estoque”.'],
    ['settings.interestRate', 'must be <= 30', 'VALIDATION_ERROR', 'O máximo é 30%.'],
    ['settings.interestRate', 'must be multiple of 0.01', 'VALIDATION_ERROR', 'Use no máximo duas casas decimais, como 2,99.'],
    ['metaPixelCode', 'must match pattern "^[0-9]{5,20}$"', 'VALIDATION_ERROR', 'Use só os números do ID do pixel (de 5 a 20 dígitos).'],
    ['products.1.productId', 'is listed more than once', 'VALIDATION_ERROR', 'Este produto já está em outra linha: some as quantidades numa só.'],
    ['products.0.productId', 'is an inactive product', 'VALIDATION_ERROR', 'Produto inativo: reative-o em Produtos ou remova esta linha.'],
    ['products', 'the sum of price x quantity must be at most 100000000 cents', 'VALIDATION_ERROR', 'A soma dos produtos passa do máximo de R$ 1.000.000,00.'],
    ['amountCents', 'amountCents or products is required', 'VALIDATION_ERROR', 'Informe o valor, ou escolha os produtos do link.'],
    ['expiresAt', 'must be in the future', 'VALIDATION_ERROR', 'A data precisa estar no futuro.'],
    ['foo', 'is not an allowed field', 'VALIDATION_ERROR', 'Este campo não é aceito.'],
    ['url', 'resolves to a private address', 'VALIDATION_ERROR', 'Valor inválido neste campo.'],
  ];
  for (const [field, message, code, expected] of cases) assert.equal(fieldMessage(field, message, code), expected, `${field}: ${message}`);
});
