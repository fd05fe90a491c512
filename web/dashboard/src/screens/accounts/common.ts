// What the Subcontas screens share: the API's account types and a sub-account's access in pt-BR.
import type { Json, JsonBody } from '../../api/json.ts';

export type Account = Json<'getAccount'>['account'];
export type AccountBody = JsonBody<'createAccount'>;
export type AccountChanges = JsonBody<'updateAccount'>;

/** Whether the seller set its password from the invitation (it can log in to the dashboard). */
export const loginText = (a: Pick<Account, 'loginEnabled'>) => (a.loginEnabled ? 'Acessa o painel' : 'Convite enviado: senha ainda não criada');
