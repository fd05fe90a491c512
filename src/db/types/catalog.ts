// The catalogue: products and clients; checkout: payment links, coupons, cart abandonment (src/modules/checkout).
import type { ColumnType, Generated, Insertable, Selectable, Updateable } from 'kysely';
import type { Json, NullableTimestamp, Timestamp } from './columns.ts';
import type { SplitColumn, SplitRule } from './splits.ts';

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
  sku: Generated<string | null>;
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
  /** Its personal data was erased (LGPD): the row stays, anonymised; new charges are refused. */
  erased_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type Product = Selectable<ProductsTable>;
export type NewProduct = Insertable<ProductsTable>;
export type ProductUpdate = Updateable<ProductsTable>;
export type Client = Selectable<ClientsTable>;

// Checkout (payment links, coupons, cart abandonment): see src/modules/checkout.
export interface PaymentLinkSettings {
  pixEnabled: boolean;
  boletoEnabled: boolean;
  creditCardEnabled: boolean;
  maxInstallments: number;
  interestFreeInstallments: number;
  /** Monthly percent (2.99 = 2.99% a month), Price table beyond interestFreeInstallments. */
  interestRate: number;
  requirePhone: boolean;
  requireAddress: boolean;
}

export interface PaymentLinksTable {
  id: string;
  user_id: string;
  livemode: boolean;
  slug: string;
  title: string;
  description: string | null;
  product_description: string | null;
  amount_cents: number | null;
  currency: Generated<string>;
  status: Generated<'ACTIVE' | 'INACTIVE'>;
  expires_at: NullableTimestamp;
  redirect_url: string | null;
  settings: Json<PaymentLinkSettings>;
  stock_enabled: Generated<boolean>;
  stock_quantity: number | null;
  meta_pixel_code: string | null;
  /** Branding (modules/branding StoredConfig). */
  checkout_config: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  /** The link's sales' split rule (modules/splits), or null. */
  split: SplitColumn<SplitRule>;
  sales_count: Generated<number>;
  times_used: Generated<number>;
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface PaymentLinkProductsTable {
  user_id: string;
  link_id: string;
  product_id: string;
  position: number;
  /** Snapshot of the product's name and price when the link was saved. */
  name: string;
  quantity: number;
  unit_price_cents: number;
}

export interface CouponsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  code: string;
  code_lower: string;
  discount_type: 'PERCENTAGE' | 'FIXED';
  discount_value: number;
  description: string | null;
  min_purchase_cents: number | null;
  max_discount_cents: number | null;
  usage_limit: number | null;
  per_user_limit: number | null;
  valid_from: NullableTimestamp;
  valid_until: NullableTimestamp;
  product_ids: Json<string[]>;
  /** How many charges of a subscription the coupon discounts (null: the first only). */
  subscription_cycles: ColumnType<number | null, number | null | undefined, number | null>;
  /** An affiliate coupon: the affiliate link (of one of the merchant's programs) its sales are attributed to, and its code. */
  affiliate_link_id: ColumnType<string | null, string | null | undefined, string | null>;
  affiliate_code: ColumnType<string | null, string | null | undefined, string | null>;
  status: Generated<'ACTIVE' | 'INACTIVE'>;
  used_count: Generated<number>;
  deleted_at: NullableTimestamp;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type RedemptionStatus = 'RESERVED' | 'USED' | 'RELEASED';

export interface CouponRedemptionsTable {
  id: string;
  user_id: string;
  coupon_id: string;
  /** Null only while a reservation's transaction is being created. */
  transaction_id: string | null;
  /** The subscription holding the use until its first charge is paid (then also transaction_id), or null. */
  subscription_id: ColumnType<string | null, string | null | undefined, string | null>;
  status: ColumnType<RedemptionStatus, RedemptionStatus | undefined, RedemptionStatus>;
  document: string;
  email: string;
  created_at: Timestamp;
}

export interface CartAbandonmentsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  link_id: string;
  client_email: string;
  client_name: string | null;
  client_document: string | null;
  client_phone: string | null;
  recovered_at: NullableTimestamp;
  transaction_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

/** A checkout (modules/checkouts): the hosted page of at most one payment link. */
export interface CheckoutsTable {
  id: string;
  user_id: string;
  livemode: boolean;
  name: string;
  payment_link_id: string | null;
  settings: Json<CheckoutSettings>;
  /** modules/branding StoredCustomization and StoredConfig. */
  customization: Json<Record<string, unknown>>;
  checkout_config: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
  /** Over its link's split rule when set (modules/splits). */
  split: SplitColumn<SplitRule>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface CheckoutSettings {
  pixEnabled: boolean;
  boletoEnabled: boolean;
  creditCardEnabled: boolean;
  maxInstallments: number;
  requirePhone: boolean;
  requireAddress: boolean;
  showOrderBumps: boolean;
}

/** An order bump, an upsell or a downsell of a checkout. */
export interface CheckoutOffersTable {
  id: string;
  checkout_id: string;
  user_id: string;
  kind: 'BUMP' | 'UPSELL' | 'DOWNSELL';
  product_id: string;
  title: string | null;
  description: string | null;
  discount_cents: number | null;
  /** discountPercentage x 100. */
  discount_bp: number | null;
  position: Generated<number>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export type Checkout = Selectable<CheckoutsTable>;
export type CheckoutOffer = Selectable<CheckoutOffersTable>;
export type PaymentLink = Selectable<PaymentLinksTable>;
export type PaymentLinkProduct = Selectable<PaymentLinkProductsTable>;
export type Coupon = Selectable<CouponsTable>;
export type CartAbandonment = Selectable<CartAbandonmentsTable>;
