// The logged-in session: the dashboard token (kept in localStorage so a reload stays logged in;
// logout revokes it at the API) and the environment every request is made in (X-Environment).
import { Cell } from './state.ts';

export type Environment = 'development' | 'production';
export interface User {
  id: string;
  name: string;
  email: string;
  role: 'USER' | 'ADMIN';
  referralCode: string;
  createdAt: string;
}

const TOKEN_KEY = 'cofre.token';
const ENV_KEY = 'cofre.env';
const KEYS_KEY = 'cofre.keys';

/** The name of the API keys the dashboard makes for itself (Desenvolvedores lists them apart). */
export const SESSION_KEY_NAME = 'Sessão do painel';

export interface SessionKey {
  id: string;
  key: string;
}
type Keys = Partial<Record<Environment, SessionKey>>;

function readKeys(): Keys {
  try {
    return JSON.parse(read(KEYS_KEY) ?? '{}') as Keys;
  } catch {
    return {};
  }
}

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}
function write(key: string, value: string | null) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    /* storage unavailable (private mode): the session lasts this page */
  }
}

class Session {
  token = new Cell<string | null>(read(TOKEN_KEY));
  user = new Cell<User | null>(null);
  /** The API keys this session uses on routes that take a key only (api/client.ts). */
  keys = new Cell<Keys>(readKeys());
  env = new Cell<Environment>(read(ENV_KEY) === 'production' ? 'production' : 'development');
  /** Set when the API refused the token: the login screen says why. */
  expired = new Cell(false);

  start(token: string, user: User) {
    write(TOKEN_KEY, token);
    this.expired.set(false);
    this.user.set(user);
    this.token.set(token);
  }
  setKey(env: Environment, key: SessionKey) {
    this.keys.set({ ...this.keys.value, [env]: key });
    write(KEYS_KEY, JSON.stringify(this.keys.value));
  }
  dropKey(env: Environment) {
    const next = { ...this.keys.value };
    delete next[env];
    this.keys.set(next);
    write(KEYS_KEY, JSON.stringify(next));
  }
  end() {
    write(TOKEN_KEY, null);
    write(KEYS_KEY, null);
    this.keys.set({});
    this.user.set(null);
    this.token.set(null);
  }
  expire() {
    this.expired.set(true);
    this.end();
  }
  setEnv(env: Environment) {
    write(ENV_KEY, env);
    this.env.set(env);
  }
}

export const session = new Session();
