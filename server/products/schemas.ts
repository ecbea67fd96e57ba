import { z } from 'zod';
import { strict } from '../http/json-schema';

export const PRODUCT_TYPES = ['digital', 'physical'] as const;
export const PRICE_MODES = ['one_time', 'recurring'] as const;
export const PRICE_INTERVALS = ['day', 'week', 'month', 'year'] as const;

/** Fields a merchant may never set (spec 4.1), each with the reason it is refused. */
const REJECTED_FIELDS: Record<string, string> = {
  has_license: '`has_license` is read-only: licenses are attached by the platform.',
  has_file: '`has_file` is read-only: delivery files are attached by the platform.',
  file_url: '`file_url` cannot be set through the API: delivery files are attached by the platform.',
  price: '`price` cannot be set: send the price as `amount`, an integer in cents (1999 = EUR 19.99).',
  currency: '`currency` cannot be set: every price is in EUR. Send `amount`, an integer in cents (1999 = EUR 19.99).',
};

function unknownFieldMessage(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== 'unrecognized_keys') return undefined;
  const keys = (issue as unknown as { keys: string[] }).keys;
  const rejected = keys.find((key) => key in REJECTED_FIELDS);
  return rejected ? REJECTED_FIELDS[rejected] : `Received unknown parameter: ${keys[0]}.`;
}

const SKU_PATTERN = /^[A-Za-z0-9._-]{3,64}$/;

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Amounts stay within a 32-bit column and far above any real catalog price. */
export const MAX_PRODUCT_AMOUNT = 99_999_999;

const productFields = {
  name: z.string().trim().min(1).max(255).describe('Product name, 1–255 characters.'),
  amount: strict(z.number().int().min(0).max(MAX_PRODUCT_AMOUNT)).describe('Price in cents (minor units): 1999 means EUR 19.99.'),
  description: z.string().max(2000).nullable().describe('Up to 2000 characters.'),
  type: z.enum(PRODUCT_TYPES).describe('`digital` (default) or `physical`.'),
  sku: z
    .string()
    .regex(SKU_PATTERN, 'must be 3–64 letters, digits, ".", "_" or "-"')
    .describe('Unique across the platform; generated when omitted.'),
  show_in_store: strict(z.boolean()).describe('Visible on the public storefront; default true.'),
  images: z
    .array(z.string().max(2000).refine(isHttpUrl, 'must be an absolute http(s) URL'))
    .max(10)
    .describe('Up to 10 absolute http(s) image URLs.'),
  tax_rate: strict(z.number().int().min(0).max(100)).nullable().describe('VAT percentage 0–100; omitted or 0 means no tax.'),
  tax_inclusive: strict(z.boolean()).describe('Whether `amount` includes tax; effective only with a non-zero `tax_rate` and tax calculation enabled on the account.'),
  mode: z.enum(PRICE_MODES).describe('`one_time` (default) or `recurring`.'),
  interval: z.enum(PRICE_INTERVALS).describe('Billing interval; required when `mode` is `recurring`, rejected otherwise.'),
  interval_count: strict(z.number().int().min(1).max(365)).describe('Intervals between charges, 1–365; default 1.'),
  active: strict(z.boolean()).describe('Whether the price can be used for new sales; default true.'),
};

export const createProductInput = z.strictObject(
  {
    name: productFields.name,
    amount: productFields.amount,
    description: productFields.description.optional(),
    type: productFields.type.optional(),
    sku: productFields.sku.optional(),
    show_in_store: productFields.show_in_store.optional(),
    images: productFields.images.optional(),
    tax_rate: productFields.tax_rate.optional(),
    tax_inclusive: productFields.tax_inclusive.optional(),
    mode: productFields.mode.optional(),
    interval: productFields.interval.optional(),
    interval_count: productFields.interval_count.optional(),
    active: productFields.active.optional(),
  },
  { error: unknownFieldMessage },
);
export type CreateProductInput = z.infer<typeof createProductInput>;

export const updateProductBody = z.strictObject(
  {
    name: productFields.name.optional(),
    amount: productFields.amount.optional(),
    description: productFields.description.optional(),
    type: productFields.type.optional(),
    sku: productFields.sku.optional(),
    show_in_store: productFields.show_in_store.optional(),
    images: productFields.images.optional(),
    tax_rate: productFields.tax_rate.optional(),
    tax_inclusive: productFields.tax_inclusive.optional(),
    mode: productFields.mode.optional(),
    interval: productFields.interval.optional(),
    interval_count: productFields.interval_count.optional(),
    active: productFields.active.optional(),
  },
  { error: unknownFieldMessage },
);
export type UpdateProductBody = z.infer<typeof updateProductBody>;

export const productIdParam = z.string().min(1).max(255).describe('The product id, `prod_…`.');

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
    active: z.boolean(),
    created: z.number().int(),
    updated: z.number().int(),
  })
  .meta({ id: 'Price' });

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
    amount_decimal: z.string(),
    currency: z.literal('eur'),
    tax_rate: z.number().int().nullable(),
    tax_inclusive: z.boolean(),
    has_license: z.boolean(),
    has_file: z.boolean(),
    license_duration: z.string().nullable(),
    price_id: z.string(),
    price: priceSchema,
    created: z.number().int(),
    updated: z.number().int(),
  })
  .meta({ id: 'Product' });
export type Product = z.infer<typeof productSchema>;

export const deletedProductSchema = z
  .object({ id: z.string(), object: z.literal('product'), deleted: z.literal(true), livemode: z.boolean() })
  .meta({ id: 'DeletedProduct' });
