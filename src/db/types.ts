// Table types for Kysely. Columns with defaults are Generated; money is bigint in SQL, number here.
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T> = ColumnType<T, string, string>;

export interface UsersTable {
  id: string;
  name: string;
  email: string;
  password_hash: string;
  role: Generated<'USER' | 'ADMIN'>;
  referral_code: string;
  referred_by: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  user_id: string;
  name: string;
  livemode: boolean;
  permissions: Json<string[]>;
  prefix: string;
  key_hash: string;
  revoked_at: NullableTimestamp;
  last_used_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface ProductsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  name: string;
  description: string | null;
  price_cents: number;
  currency: Generated<string>;
  stock_quantity: number | null;
  stock_enabled: Generated<boolean>;
  is_digital: Generated<boolean>;
  image_url: string | null;
  status: Generated<'ACTIVE' | 'INACTIVE'>;
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ClientsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  name: string;
  email: string;
  document: string;
  phone: string | null;
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface DB {
  users: UsersTable;
  api_keys: ApiKeysTable;
  products: ProductsTable;
  clients: ClientsTable;
}

export type User = Selectable<UsersTable>;
export type ApiKey = Selectable<ApiKeysTable>;
export type Product = Selectable<ProductsTable>;
export type NewProduct = Insertable<ProductsTable>;
export type ProductUpdate = Updateable<ProductsTable>;
export type Client = Selectable<ClientsTable>;
