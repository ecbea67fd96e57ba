/**
 * The public contract of the catalog: request schemas with their field rules,
 * and response schemas as explicit allowlists, so a new column (e.g. `file_url`) never leaks.
 */
import { z } from 'zod';
import { TAX_CATEGORIES } from '@/db/schema';
import { queryBoolean, strict } from '../kit/json-schema';
import { EXAMPLE } from '../kit/examples';
import { listSchema, pageFields } from '../kit/list';

export const PRODUCT_TYPES = ['digital', 'physical'] as const;
export const PRICE_MODES = ['one_time', 'recurring'] as const;
export const PRICE_INTERVALS = ['day', 'week', 'month', 'year'] as const;

/** Fields a merchant may never set, each with the reason it is refused. */
const REJECTED_FIELDS: Record<string, string> = {
  has_license: '`has_license` is read-only: licenses are attached by the platform.',
  has_file: '`has_file` is read-only: delivery files are attached by the platform.',
  file_url: '`file_url` cannot be set through the API: delivery files are attached by the platform.',
  // `price` and `currency` are refused with a message that points at `amount`.
  price: '`price` cannot be set: send the price as `amount`, an integer in cents (1999 = EUR 19.99).',
  currency: '`currency` cannot be set: every price is in EUR. Send `amount`, an integer in cents (1999 = EUR 19.99).',
};

/**
 * These fields are refused with their own message, checked before any other rule so
 * that `{ name, price: 1999 }` hears about `amount` rather than about a missing field.
 */
function refusingReadOnlyFields<T extends z.ZodType>(schema: T) {
  return z.preprocess((value, ctx) => {
    if (typeof value !== 'object' || value === null) return value;
    const field = Object.keys(REJECTED_FIELDS).find((key) => Object.hasOwn(value, key));
    if (field !== undefined) {
      // Naming the code keeps the message verbatim (server/http/zod-errors.ts) instead of "Invalid price: …".
      ctx.issues.push({ code: 'custom', message: REJECTED_FIELDS[field]!, path: [field], input: value, params: { apiCode: 'parameter_invalid' } });
    }
    return value;
  }, schema);
}

const SKU_PATTERN = /^[A-Za-z0-9._-]{3,64}$/;

/** Absolute http(s) URLs only (no `http:foo`, no `javascript:`). */
function isHttpUrl(value: string): boolean {
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    return new URL(value).hostname !== '';
  } catch {
    return false;
  }
}

/** Amounts stay within a 32-bit column and far above any real catalog price. */
export const MAX_PRODUCT_AMOUNT = 99_999_999;

const productFields = {
  name: z
    .string()
    .min(1)
    .max(255)
    .refine((name) => name.trim() !== '', 'must not be blank')
    .describe('Product name, 1–255 characters.'),
  amount: strict(z.number().int().min(0).max(MAX_PRODUCT_AMOUNT)).describe(`Price in cents (minor units): 1999 means EUR 19.99. At most ${MAX_PRODUCT_AMOUNT}.`),
  description: z.string().max(2000).nullable().describe('Up to 2000 characters.'),
  type: z.enum(PRODUCT_TYPES).describe('`digital` (default) or `physical`.'),
  sku: z.string().regex(SKU_PATTERN, 'must be 3–64 letters, digits, ".", "_" or "-"').describe('3–64 letters, digits, `.`, `_`, `-`. Unique across the platform; generated when omitted.'),
  show_in_store: strict(z.boolean()).describe('Visible on the public storefront; default true.'),
  images: z.array(z.string().max(2000).refine(isHttpUrl, 'must be an absolute http(s) URL')).max(10).describe('Up to 10 absolute http(s) image URLs.'),
  tax_rate: strict(z.number().int().min(0).max(100)).nullable().describe('VAT percentage 0–100; omitted, null or 0 means no tax.'),
  tax_inclusive: strict(z.boolean()).describe('Whether `amount` includes tax; effective only with a non-zero `tax_rate` and tax calculation enabled on the account.'),
  tax_category: z
    .enum(TAX_CATEGORIES)
    .describe(
      '`standard` (default: every electronically supplied service), `ebook` (electronic books) or `enewspaper` (electronic newspapers and periodicals): which VAT rate of the buyer’s country applies in a store taxing by the buyer’s country. Accepted in every tax mode.',
    ),
  mode: z.enum(PRICE_MODES).describe('`one_time` (default) or `recurring`.'),
  interval: z.enum(PRICE_INTERVALS).describe('Billing interval; required when `mode` is `recurring`, rejected otherwise.'),
  interval_count: strict(z.number().int().min(1).max(365)).describe('Intervals between charges, 1–365; default 1. Recurring prices only.'),
  active: strict(z.boolean()).describe('Whether the price can be used for new sales; default true.'),
};

/** Every field but the required two, optional: the create body's tail and the whole update body. */
const optionalFields = {
  description: productFields.description.optional(),
  type: productFields.type.optional(),
  sku: productFields.sku.optional(),
  show_in_store: productFields.show_in_store.optional(),
  images: productFields.images.optional(),
  tax_rate: productFields.tax_rate.optional(),
  tax_inclusive: productFields.tax_inclusive.optional(),
  tax_category: productFields.tax_category.optional(),
  mode: productFields.mode.optional(),
  interval: productFields.interval.optional(),
  interval_count: productFields.interval_count.optional(),
  active: productFields.active.optional(),
};

export const createProductInput = refusingReadOnlyFields(z.strictObject({ name: productFields.name, amount: productFields.amount, ...optionalFields })).meta({
  examples: [{ name: 'Ebook: Payments in practice', amount: 1999, tax_rate: 19, description: 'A practical guide to taking payments online.' }],
});
export type CreateProductInput = z.infer<typeof createProductInput>;

export const productIdParam = z
  .string()
  .min(1)
  .describe('The product id, `prod_…`.')
  .meta({ examples: [EXAMPLE.productId] });

/** PATCH: the create body with every field optional; `id` comes from the path. */
export const updateProductInput = refusingReadOnlyFields(
  z.strictObject({
    id: productIdParam,
    name: productFields.name.optional(),
    amount: productFields.amount.optional(),
    ...optionalFields,
  }),
).meta({ examples: [{ description: 'Second edition, with a chapter on refunds.' }] });
export type UpdateProductBody = Omit<z.infer<typeof updateProductInput>, 'id'>;

export const retrieveProductInput = z.strictObject({ id: productIdParam });

export const deleteProductInput = z.strictObject({
  id: productIdParam,
  force: queryBoolean().optional().describe('`true` also deletes a product with issued license keys, revoking them at once.'),
});

/** The list query. Unknown parameters are refused so a mistyped filter never reads as "no filter". */
export const listProductsInput = z.strictObject({
  ...pageFields,
  type: z.enum(PRODUCT_TYPES).optional().describe('Only products of this type.'),
  mode: z.enum(PRICE_MODES).optional().describe('Only products whose price has this mode.'),
  show_in_store: queryBoolean().optional().describe('`true` or `false`: only products with this storefront visibility.'),
  sku: z.string().min(1).optional().describe('Only the product with exactly this sku.'),
});
export type ListProductsQuery = z.infer<typeof listProductsInput>;

const priceExample = {
  id: EXAMPLE.priceId,
  object: 'price',
  amount: 1999,
  amount_decimal: '19.99',
  currency: 'eur',
  mode: 'one_time',
  interval: null,
  interval_count: null,
  active: true,
  created: EXAMPLE.created,
  updated: EXAMPLE.created,
};

export const priceSchema = z
  .object({
    id: z.string().describe('Same as the product’s `price_id`.'),
    object: z.literal('price'),
    amount: z.number().int(),
    amount_decimal: z.string().describe('The amount in euros with two decimals.'),
    currency: z.literal('eur'),
    mode: z.enum(PRICE_MODES),
    interval: z.enum(PRICE_INTERVALS).nullable(),
    interval_count: z.number().int().nullable(),
    active: z.boolean().describe('Whether the price can be used for new sales.'),
    created: z.number().int(),
    updated: z.number().int(),
  })
  .meta({ id: 'Price', examples: [priceExample] });

const productExample = {
  id: EXAMPLE.productId,
  object: 'product',
  livemode: false,
  name: 'Ebook: Payments in practice',
  description: 'A practical guide to taking payments online.',
  sku: 'SKU-KEWGWKNBSFWSTPQC',
  type: 'digital',
  show_in_store: true,
  images: [],
  amount: 1999,
  amount_decimal: '19.99',
  currency: 'eur',
  tax_rate: 19,
  tax_inclusive: false,
  tax_category: 'ebook',
  has_license: true,
  has_file: false,
  license_duration: null,
  price_id: EXAMPLE.priceId,
  price: priceExample,
  created: EXAMPLE.created,
  updated: EXAMPLE.created + 6,
};

export const productSchema = z
  .object({
    id: z.string(),
    object: z.literal('product'),
    livemode: z.boolean(),
    name: z.string(),
    description: z.string().nullable(),
    sku: z.string(),
    type: z.enum(PRODUCT_TYPES),
    show_in_store: z.boolean(),
    images: z.array(z.string()),
    amount: z.number().int(),
    amount_decimal: z.string().describe('The amount in euros with two decimals, e.g. "19.99".'),
    currency: z.literal('eur'),
    tax_rate: z.number().int().nullable(),
    tax_inclusive: z.boolean(),
    tax_category: z.enum(TAX_CATEGORIES).describe('`standard`, `ebook` or `enewspaper`: which of the buyer’s country’s rates applies in stores that tax by the buyer’s country.'),
    has_license: z.boolean().describe('Read-only: set by the platform.'),
    has_file: z.boolean().describe('Read-only: true when a delivery file is attached.'),
    license_duration: z.string().nullable(),
    price_id: z.string(),
    price: priceSchema,
    created: z.number().int(),
    updated: z.number().int(),
  })
  .meta({ id: 'Product', examples: [productExample] });
export type Product = z.infer<typeof productSchema>;

export const productListSchema = listSchema(productSchema, '/api/v1/products', 'ProductList');
export type ProductList = z.infer<typeof productListSchema>;

export const deletedProductSchema = z
  .object({ id: z.string(), object: z.literal('product'), deleted: z.literal(true), livemode: z.boolean() })
  .meta({ id: 'DeletedProduct', examples: [{ id: EXAMPLE.productId, object: 'product', deleted: true, livemode: false }] });
export type DeletedProduct = z.infer<typeof deletedProductSchema>;
