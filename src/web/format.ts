// pt-BR formatting shared by the hosted pages.
const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });

export const formatBRL = (cents: number) => brl.format(cents / 100);

/** 'YYYY-MM-DD' -> 'DD/MM/YYYY'. */
export const formatDateBR = (isoDate: string) => isoDate.split('-').reverse().join('/');
