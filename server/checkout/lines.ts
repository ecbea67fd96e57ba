/**
 * What a checkout session sells: its lines, priced from the catalog (price and line
 * items mode) or described by the merchant (amount mode), each taxed on its own (tax.ts).
 */
import { and, inArray, sql } from 'drizzle-orm';
import { preparedPerShape, type Executor } from '@/db/client';
import { products, type TaxCategory } from '@/db/schema';
import type { Subject } from '../auth/service';
import { ApiError, resourceMissing } from '../errors';
import { normalizePriceId } from '../ids';
import { ownedBy, SCOPE_PLACEHOLDERS } from '../kit/scope';
import type { CreateCheckoutSessionInput } from './schemas';
import { lineTax, lineTaxAt, type LineAmounts } from '../kit/line-tax';

/**
 * Totals stay within the 32-bit amount columns: 100 lines of 100 units of the dearest product
 * would overflow them. No real cart comes near a million euros.
 */
export const MAX_SESSION_TOTAL = 99_999_999;

interface LineRequest {
  priceId: string;
  quantity: number;
  /** The field to blame when the price is refused: `price_id` or `line_items[2].price_id`. */
  param: string;
}

export interface ResolvedLine extends LineAmounts {
  productId: string | null;
  priceId: string | null;
  description: string;
  quantity: number;
  unitAmount: number;
  taxRate: number | null;
  taxInclusive: boolean;
  taxCategory: TaxCategory;
  hasLicense: boolean;
}

const priceColumns = {
  id: products.id,
  name: products.name,
  priceId: products.priceId,
  amount: products.amount,
  priceMode: products.priceMode,
  priceActive: products.priceActive,
  taxRate: products.taxRate,
  taxInclusive: products.taxInclusive,
  taxCategory: products.taxCategory,
  hasLicense: products.hasLicense,
};

/** The price read of every checkout creation, for `count` distinct prices. */
const priceRead = preparedPerShape((executor, count) =>
  executor
    .select(priceColumns)
    .from(products)
    .where(
      and(
        inArray(
          products.priceId,
          Array.from({ length: count }, (_, index) => sql.placeholder(`price${index}`)),
        ),
        ownedBy(products, SCOPE_PLACEHOLDERS),
      ),
    )
    .prepare(`checkout_prices_${count}`),
);

type PriceRow = Pick<typeof products.$inferSelect, 'id' | 'name' | 'priceId' | 'amount' | 'taxCategory' | 'hasLicense'>;

/** A catalog price's line; the named fields first and the amounts' spread last (a leading spread is slow). */
function catalogLine(product: PriceRow, quantity: number, taxRate: number | null, taxInclusive: boolean, amounts: LineAmounts): ResolvedLine {
  return {
    productId: product.id,
    priceId: product.priceId,
    description: product.name,
    quantity,
    unitAmount: product.amount,
    taxRate,
    taxInclusive,
    taxCategory: product.taxCategory,
    hasLicense: product.hasLicense,
    ...amounts,
  };
}

/**
 * Every price in one query, scoped to the store and environment; unknown, foreign and
 * other-environment ids are 404, recurring prices `price_mode_unsupported`, inactive ones
 * `price_inactive`, in the order the lines were sent.
 */
async function resolvePriceLines(executor: Executor, subject: Subject, requests: LineRequest[]): Promise<ResolvedLine[]> {
  const ids = [...new Set(requests.map((line) => line.priceId))];
  const params: Record<string, unknown> = { storeId: subject.storeId, livemode: subject.livemode };
  ids.forEach((id, index) => (params[`price${index}`] = id));
  const rows = await priceRead(executor, ids.length).execute(params);
  const byPrice = new Map(rows.map((row) => [row.priceId, row]));
  return requests.map((line) => {
    const product = byPrice.get(line.priceId);
    if (!product) throw resourceMissing('price', line.priceId, line.param);
    if (product.priceMode !== 'one_time') {
      throw new ApiError('price_mode_unsupported', 'This price is recurring: sell it with a subscription checkout, not a checkout session.', {
        param: line.param,
      });
    }
    if (!product.priceActive) throw new ApiError('price_inactive', 'This price is not active: activate it or sell another one.', { param: line.param });
    // By the buyer's country: untaxed until the hosted page learns the country (server/checkout/buyer-tax.ts).
    if (subject.taxMode === 'buyer_country') return catalogLine(product, line.quantity, null, product.taxInclusive, lineTaxAt(product.amount * line.quantity, 0, product.taxInclusive));
    // Tax settings count only where tax is calculated; the line records what was applied.
    const taxed = subject.flags.taxCalculation && product.taxRate !== null && product.taxRate > 0;
    const inclusive = taxed && product.taxInclusive;
    return catalogLine(product, line.quantity, taxed ? product.taxRate : null, inclusive, lineTax(product.amount * line.quantity, product.taxRate, inclusive, taxed));
  });
}

export async function resolveLines(executor: Executor, subject: Subject, input: CreateCheckoutSessionInput): Promise<ResolvedLine[]> {
  if (input.amount !== undefined) {
    // Amount mode: one line the merchant describes; no product, no catalog tax. By the buyer's
    // country, the amount is what the buyer pays, VAT included, at the standard rate.
    return [
      {
        productId: null,
        priceId: null,
        description: input.description!,
        quantity: 1,
        unitAmount: input.amount,
        taxRate: null,
        taxInclusive: subject.taxMode === 'buyer_country',
        taxCategory: 'standard',
        hasLicense: false,
        subtotal: input.amount,
        tax: 0,
        total: input.amount,
      },
    ];
  }
  const requests: LineRequest[] =
    input.line_items !== undefined
      ? input.line_items.map((item, index) => ({
          priceId: normalizePriceId(item.price_id),
          quantity: item.quantity ?? 1,
          param: `line_items[${index}].price_id`,
        }))
      : [{ priceId: normalizePriceId(input.price_id!), quantity: input.quantity ?? 1, param: 'price_id' }];
  return resolvePriceLines(executor, subject, requests);
}
