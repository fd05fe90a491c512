import { Type } from '@sinclair/typebox';
import { Nullable, PagePagination, PageQuery, Timestamp, Uuid } from '../../http/schemas.ts';

const Status = Type.Union([Type.Literal('ACTIVE'), Type.Literal('INACTIVE')]);
const ImageUrl = Type.String({ format: 'uri', pattern: '^https?://', maxLength: 2048 });

const fields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  description: Nullable(Type.String({ maxLength: 1000 })),
  price: Type.Integer({ minimum: 1, maximum: 100000000, description: 'cents' }),
  currency: Type.Literal('BRL', { default: 'BRL' }),
  stockQuantity: Nullable(Type.Integer({ minimum: 0, maximum: 2147483647, description: 'Required when stockEnabled is true' })),
  stockEnabled: Type.Boolean({ default: false }),
  isDigital: Type.Boolean({ default: false, description: 'Digital products keep no stock (stockEnabled must be false)' }),
  imageUrl: Nullable(ImageUrl),
  status: Status,
};

export const CreateProductBody = Type.Object(
  {
    name: fields.name,
    price: fields.price,
    description: Type.Optional(fields.description),
    currency: Type.Optional(fields.currency),
    stockQuantity: Type.Optional(fields.stockQuantity),
    stockEnabled: Type.Optional(fields.stockEnabled),
    isDigital: Type.Optional(fields.isDigital),
    imageUrl: Type.Optional(fields.imageUrl),
    status: Type.Optional(fields.status),
  },
  { additionalProperties: false },
);

export const UpdateProductBody = Type.Partial(CreateProductBody, { additionalProperties: false, minProperties: 1 });

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
  status: Status,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const ListProductsQuery = Type.Object(
  { ...PageQuery, search: Type.Optional(Type.String({ maxLength: 255 })), status: Type.Optional(Status) },
  { additionalProperties: false },
);

export const ProductResponse = Type.Object({ message: Type.String(), product: ProductView });
export const ProductListResponse = Type.Object({ message: Type.String(), products: Type.Array(ProductView), pagination: PagePagination });
