// What the Catálogo's forms share.

/** A product's, a link's or a coupon's situation, as its edit form offers it. */
export const STATUS_OPTIONS: [string, string][] = [
  ['ACTIVE', 'Ativo: à venda, aceita pagamentos'],
  ['INACTIVE', 'Inativo: fora de venda'],
];
