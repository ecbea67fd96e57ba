import { and, count, eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '@/db/client';
import { isUniqueViolation } from '@/db/errors';
import { products } from '@/db/schema';
import type { Subject } from '../auth/service';
import type { Clock } from '../clock';
import { epochSeconds } from '../clock';
import { ApiError, resourceMissing } from '../errors';
import { newId, randomBase62 } from '../ids';
import type { CreateProductInput, Product } from './schemas';

type ProductRow = typeof products.$inferSelect;

export interface ProductDeps {
  db: Database;
  clock: Clock;
  maxProductsPerStore: number;
}

/** 1999 → "19.99", with integer arithmetic only. */
export function amountDecimal(amount: number): string {
  const cents = String(Math.abs(amount) % 100).padStart(2, '0');
  return `${amount < 0 ? '-' : ''}${Math.trunc(Math.abs(amount) / 100)}.${cents}`;
}

/** The API shape of a product row: an explicit allowlist, so `file_url` can never leak. */
export function productView(row: ProductRow): Product {
  return {
    id: row.id,
    object: 'product',
    livemode: row.livemode,
    name: row.name,
    description: row.description,
    sku: row.sku,
    type: row.type,
    show_in_store: row.showInStore,
    images: row.images,
    amount: row.amount,
    amount_decimal: amountDecimal(row.amount),
    currency: 'eur',
    tax_rate: row.taxRate,
    tax_inclusive: row.taxInclusive,
    has_license: row.hasLicense,
    has_file: row.fileUrl !== null,
    license_duration: row.licenseDuration,
    price_id: row.priceId,
    price: {
      id: row.priceId,
      object: 'price',
      amount: row.amount,
      amount_decimal: amountDecimal(row.amount),
      currency: 'eur',
      mode: row.priceMode,
      interval: row.priceInterval,
      interval_count: row.priceIntervalCount,
      active: row.priceActive,
      created: epochSeconds(row.priceCreatedAt),
      updated: epochSeconds(row.priceUpdatedAt),
    },
    created: epochSeconds(row.createdAt),
    updated: epochSeconds(row.updatedAt),
  };
}

/** Tenant and environment, in the same WHERE as every lookup (spec 5). */
export function ownedBy(subject: Pick<Subject, 'storeId' | 'livemode'>) {
  return and(eq(products.storeId, subject.storeId), eq(products.livemode, subject.livemode));
}

export interface ResolvedPrice {
  mode: 'one_time' | 'recurring';
  interval: 'day' | 'week' | 'month' | 'year' | null;
  intervalCount: number | null;
}

/**
 * Spec 4.1 update rule 1: the resulting price is validated as a whole. `interval` is required
 * with `recurring` and rejected with `one_time`; rule 2: switching to one_time clears both.
 */
export function resolvePrice(
  requested: { mode?: 'one_time' | 'recurring'; interval?: ResolvedPrice['interval'] | undefined; interval_count?: number | undefined },
  current?: ResolvedPrice,
): ResolvedPrice {
  const mode = requested.mode ?? current?.mode ?? 'one_time';
  if (mode === 'one_time') {
    if (requested.interval !== undefined) {
      throw new ApiError('parameter_invalid', '`interval` is only allowed when `mode` is `recurring`.', { param: 'interval' });
    }
    if (requested.interval_count !== undefined) {
      throw new ApiError('parameter_invalid', '`interval_count` is only allowed when `mode` is `recurring`.', { param: 'interval_count' });
    }
    return { mode, interval: null, intervalCount: null };
  }
  // Setting `mode: recurring` explicitly needs its interval in the same request (rule 1).
  const interval = requested.interval ?? (requested.mode === undefined ? current?.interval : undefined) ?? null;
  if (interval === null) {
    throw new ApiError('parameter_invalid', '`interval` is required when `mode` is `recurring` (day, week, month or year).', { param: 'interval' });
  }
  const intervalCount = requested.interval_count ?? (requested.mode === undefined ? current?.intervalCount : undefined) ?? 1;
  return { mode, interval, intervalCount };
}

const skuTaken = () =>
  new ApiError('sku_unavailable', 'This sku is not available. Choose another one.', { param: 'sku' });

/** SKUs the platform generates: recognisable and far from any collision. */
function generateSku(): string {
  return `SKU-${randomBase62(16).toUpperCase()}`;
}

/** POST /products: the product and its price in one row, within the store's product limit. */
export async function createProduct(deps: ProductDeps, subject: Subject, input: CreateProductInput): Promise<Product> {
  const price = resolvePrice(input);
  const now = deps.clock.now();
  try {
    const row = await deps.db.transaction(async (tx) => {
      // Serialises creates of one store and environment so the limit is exact under concurrency.
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`products:${subject.storeId}:${subject.livemode}`}))`);
      await assertBelowProductLimit(tx, subject, deps.maxProductsPerStore);
      const [created] = await tx
        .insert(products)
        .values({
          id: newId('prod', subject.livemode),
          storeId: subject.storeId,
          livemode: subject.livemode,
          name: input.name,
          description: input.description ?? null,
          sku: input.sku ?? generateSku(),
          type: input.type ?? 'digital',
          showInStore: input.show_in_store ?? true,
          images: input.images ?? [],
          taxRate: input.tax_rate ?? null,
          taxInclusive: input.tax_inclusive ?? false,
          priceId: newId('price', subject.livemode),
          amount: input.amount,
          priceMode: price.mode,
          priceInterval: price.interval,
          priceIntervalCount: price.intervalCount,
          priceActive: input.active ?? true,
          priceCreatedAt: now,
          priceUpdatedAt: now,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      return created!;
    });
    return productView(row);
  } catch (error) {
    if (isUniqueViolation(error, 'products_sku_unique')) throw skuTaken();
    throw error;
  }
}

async function assertBelowProductLimit(tx: Executor, subject: Subject, max: number): Promise<void> {
  const [row] = await tx.select({ total: count() }).from(products).where(ownedBy(subject));
  if ((row?.total ?? 0) >= max) {
    throw new ApiError('product_limit_reached', `This store has reached the limit of ${max} products in ${subject.livemode ? 'live' : 'test'} mode. Delete products you no longer sell.`);
  }
}

/** GET /products/{id}: unknown, foreign and other-environment ids answer alike. */
export async function getProduct(deps: Pick<ProductDeps, 'db'>, subject: Subject, id: string): Promise<Product> {
  const [row] = await deps.db.select().from(products).where(and(eq(products.id, id), ownedBy(subject))).limit(1);
  if (!row) throw resourceMissing('product', id);
  return productView(row);
}
