import { Type } from '@sinclair/typebox';
import { Nullable, PagePagination, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';

const Status = Type.Union([Type.Literal('ACTIVE'), Type.Literal('INACTIVE')]);
// A host is required: "https://" alone is a syntactically valid URI but no image can live there.
const ImageUrl = Type.String({ format: 'uri', pattern: '^https?://[^/?#\\s]+', maxLength: 2048 });

const IS_DIGITAL = 'Digital products keep no stock (stockEnabled must be false)';

// No `default` here: the validator applies defaults (useDefaults), and in the partial update body a
// default would silently reset stockEnabled/isDigital/currency on every PATCH. Creation defaults are
// declared on CreateProductBody only (and applied again by the service).
const fields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Nullable(Type.String({ maxLength: 1000 })),
  price: Type.Integer({ minimum: 1, maximum: 100000000, description: 'cents' }),
  currency: Type.Literal('BRL'),
  stockQuantity: Nullable(Type.Integer({ minimum: 0, maximum: 2147483647, description: 'Required when stockEnabled is true' })),
  stockEnabled: Type.Boolean(),
  isDigital: Type.Boolean({ description: IS_DIGITAL }),
  imageUrl: Nullable(ImageUrl),
  sku: Nullable(
    Type.String({
      minLength: 1,
      maxLength: 100,
      pattern: '^\\S(.*\\S)?$',
      description: 'Your stock-keeping code: unique per environment among products not archived, compared case-insensitively (400 SKU_ALREADY_EXISTS)',
    }),
  ),
  status: Status,
};

export const CreateProductBody = Type.Object(
  {
    name: fields.name,
    price: fields.price,
    description: Type.Optional(fields.description),
    currency: Type.Optional(Type.Literal('BRL', { default: 'BRL' })),
    stockQuantity: Type.Optional(fields.stockQuantity),
    stockEnabled: Type.Optional(Type.Boolean({ default: false })),
    isDigital: Type.Optional(Type.Boolean({ description: IS_DIGITAL, default: false })),
    imageUrl: Type.Optional(fields.imageUrl),
    sku: Type.Optional(fields.sku),
    status: Type.Optional(fields.status),
  },
  { additionalProperties: false },
);

/** Only the fields sent change; the stock rules are re-checked on the merged state by the service. */
export const UpdateProductBody = Type.Partial(Type.Object(fields), { additionalProperties: false, minProperties: 1 });

export const ProductView = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Nullable(Type.String()),
  price: Type.Integer(),
  currency: Type.String(),
  stockQuantity: Nullable(Type.Integer()),
  stockEnabled: Type.Boolean(),
  isDigital: Type.Boolean(),
  imageUrl: Nullable(Type.String()),
  sku: Nullable(Type.String()),
  status: Status,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ListProductsQuery = Type.Object(
  {
    ...PageQuery,
    search: Type.Optional(Type.String({ maxLength: 255 })),
    status: Type.Optional(Status),
    sku: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Only the product with this SKU (any case)' })),
  },
  { additionalProperties: false },
);

export const ProductResponse = Type.Object({ message: Type.String(), product: ProductView });
export const ProductListResponse = Type.Object({ message: Type.String(), products: Type.Array(ProductView), pagination: PagePagination });
