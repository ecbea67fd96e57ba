import { and, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import { lockUntilCommit, type Database, type Executor } from '@/db/client';
import { isUniqueViolation } from '@/db/errors';
import { licenseKeys, PRODUCT_BLOCKING_SUBSCRIPTION_STATUSES, products, subscriptions } from '@/db/schema';
import { actorAudit, recordAudit, type Actor } from '../audit/service';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { epochSeconds } from '../clock';
import { ApiError, resourceMissing } from '../errors';
import { newId, randomBase62 } from '../ids';
import type { CreateProductInput, DeletedProduct, ListProductsQuery, Product, ProductList, UpdateProductBody } from './schemas';
import { createIdempotently, type IdempotentRequest } from '../kit/idempotency';
import { listEnvelope, listPage } from '../kit/list';
import { ownedBy, type Scope } from '../kit/scope';
import { recordEvent } from '../webhooks/events';
import { firstPage, productById } from './statements';

type ProductRow = typeof products.$inferSelect;

export interface ProductDeps {
  db: Database;
  clock: Clock;
  /** Real time: when the events' first deliveries fall due. */
  wallClock: Clock;
  maxProductsPerStore: number;
  /** Who makes the change: every change is audited with it. */
  actor: Actor;
}

/** A product service's dependencies from a request's context. */
export function productDeps(ctx: Pick<ProductDeps, 'db' | 'clock' | 'wallClock' | 'actor'> & { config: Pick<Config, 'maxProductsPerStore'> }): ProductDeps {
  return { db: ctx.db, clock: ctx.clock, wallClock: ctx.wallClock, maxProductsPerStore: ctx.config.maxProductsPerStore, actor: ctx.actor };
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
    tax_category: row.taxCategory,
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

export interface ResolvedPrice {
  mode: 'one_time' | 'recurring';
  interval: 'day' | 'week' | 'month' | 'year' | null;
  intervalCount: number | null;
}

/**
 * The price that results from a create or an update, validated as a whole.
 * `interval` is required with `recurring` and refused with `one_time`; `interval_count`
 * is refused with `one_time` too, rather than silently dropped. Sending `mode` restates the
 * price: `mode: recurring` needs its `interval` in the same request even when the product is
 * already recurring, and `interval_count` falls back to its default of 1. Without `mode`, the
 * current interval and count are kept. Switching to `one_time` clears both.
 */
export function resolvePrice(requested: { mode?: ResolvedPrice['mode']; interval?: ResolvedPrice['interval']; interval_count?: number }, current?: ResolvedPrice): ResolvedPrice {
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
  const restated = requested.mode !== undefined;
  const interval = requested.interval ?? (restated ? undefined : current?.interval) ?? null;
  if (interval === null) {
    throw new ApiError('parameter_invalid', '`interval` is required when `mode` is `recurring` (day, week, month or year).', { param: 'interval' });
  }
  const intervalCount = requested.interval_count ?? (restated ? undefined : current?.intervalCount) ?? 1;
  return { mode, interval, intervalCount };
}

/** The same answer whether the sku is this product's store's, another store's or the other environment's. */
const skuTaken = () => new ApiError('sku_unavailable', 'This sku is not available. Choose another one.', { param: 'sku' });

function rethrowSkuCollision(error: unknown): never {
  if (isUniqueViolation(error, 'products_sku_unique')) throw skuTaken();
  throw error;
}

/** SKUs the platform generates when none is sent: recognisable, and 36^16 values keep collisions out of reach. */
function generateSku(): string {
  return `SKU-${randomBase62(16).toUpperCase()}`;
}

export const CREATE_OPERATION = 'product.create';

/**
 * POST /products: the product and its price in one row, within the store's product limit, under
 * an optional `Idempotency-Key` (the key's row commits with the product; a refusal leaves it unused).
 */
export async function createProduct(deps: ProductDeps, subject: Scope, input: CreateProductInput, idempotency?: IdempotentRequest): Promise<Product> {
  const price = resolvePrice(input);
  const now = deps.clock.now();
  const id = newId('prod', subject.livemode);
  try {
    const { result } = await createIdempotently({
      db: deps.db,
      scope: { storeId: subject.storeId, livemode: subject.livemode },
      operation: CREATE_OPERATION,
      request: idempotency,
      now,
      resourceId: id,
      replay: (replayedId) => getProduct(deps, subject, replayedId),
      create: (executor) =>
        executor.transaction(async (tx) => {
          // Serialises creates of one store and environment so the limit is exact under concurrency.
          await lockUntilCommit(tx, `products:${subject.storeId}:${subject.livemode}`);
          await assertBelowProductLimit(tx, subject, deps.maxProductsPerStore);
          const [created] = await tx
            .insert(products)
            .values({
              id,
              storeId: subject.storeId,
              livemode: subject.livemode,
              name: input.name,
              description: input.description ?? null,
              sku: input.sku ?? generateSku(),
              type: input.type ?? 'digital',
              showInStore: input.show_in_store ?? true,
              images: input.images ?? [],
              // Kept as sent: 0 stays 0 and null stays null, both meaning "no tax", so a
              // merchant reads back exactly what it wrote.
              taxRate: input.tax_rate ?? null,
              taxInclusive: input.tax_inclusive ?? false,
              taxCategory: input.tax_category ?? 'standard',
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
          await recordEvent(tx, { storeId: subject.storeId, livemode: subject.livemode, type: 'product.created', object: productView(created!), now, wallNow: deps.wallClock.now() });
          await recordAudit(tx, actorAudit(subject, deps.actor, 'product.create', { product: id }));
          return productView(created!);
        }),
    });
    return result;
  } catch (error) {
    // The unique index decides races between stores: the loser waits for the winner's commit, then fails here.
    return rethrowSkuCollision(error);
  }
}

async function assertBelowProductLimit(tx: Executor, subject: Scope, max: number): Promise<void> {
  const [row] = await tx.select({ total: count() }).from(products).where(ownedBy(products, subject));
  if ((row?.total ?? 0) >= max) {
    throw new ApiError('product_limit_reached', `This store has reached the limit of ${max} products in ${subject.livemode ? 'live' : 'test'} mode. Delete products you no longer sell.`);
  }
}

/** GET /products/{id}: unknown, foreign and other-environment ids answer alike. */
export async function getProduct(deps: Pick<ProductDeps, 'db'>, subject: Scope, id: string): Promise<Product> {
  const [row] = await productById(deps.db).execute({ id, storeId: subject.storeId, livemode: subject.livemode });
  if (!row) throw resourceMissing('product', id);
  return productView(row);
}

/**
 * GET /products: newest first, then by id, filtered. The LIMIT is a bound parameter: PostgreSQL
 * connections run with `plan_cache_mode = force_generic_plan` (db/client.ts), so it does not
 * force a re-plan.
 */
export async function listProducts(deps: Pick<ProductDeps, 'db'>, subject: Scope, query: ListProductsQuery): Promise<ProductList> {
  const where = [
    query.type === undefined ? undefined : eq(products.type, query.type),
    query.mode === undefined ? undefined : eq(products.priceMode, query.mode),
    query.show_in_store === undefined ? undefined : eq(products.showInStore, query.show_in_store === 'true'),
    query.sku === undefined ? undefined : eq(products.sku, query.sku),
  ];
  if (query.starting_after === undefined && where.every((condition) => condition === undefined)) {
    const rows = await firstPage(deps.db).execute({ storeId: subject.storeId, livemode: subject.livemode, limit: query.limit + 1 });
    return listEnvelope('/api/v1/products', subject, rows.slice(0, query.limit).map(productView), rows.length > query.limit);
  }
  const { rows, hasMore } = await listPage(deps.db, products, { scope: subject, page: query, kind: 'product', where });
  return listEnvelope('/api/v1/products', subject, rows.map(productView), hasMore);
}

/** The columns an update writes, or null when the request changes nothing. */
function productChanges(current: ProductRow, input: UpdateProductBody, now: Date): Partial<ProductRow> | null {
  const price = resolvePrice(input, { mode: current.priceMode, interval: current.priceInterval, intervalCount: current.priceIntervalCount });
  const priceColumns = {
    amount: input.amount ?? current.amount,
    priceMode: price.mode,
    priceInterval: price.interval,
    priceIntervalCount: price.intervalCount,
    priceActive: input.active ?? current.priceActive,
  };
  const productColumns: Partial<ProductRow> = {};
  if (input.name !== undefined) productColumns.name = input.name;
  if (input.description !== undefined) productColumns.description = input.description;
  if (input.type !== undefined) productColumns.type = input.type;
  if (input.sku !== undefined) productColumns.sku = input.sku;
  if (input.show_in_store !== undefined) productColumns.showInStore = input.show_in_store;
  if (input.images !== undefined) productColumns.images = input.images;
  if (input.tax_rate !== undefined) productColumns.taxRate = input.tax_rate;
  if (input.tax_inclusive !== undefined) productColumns.taxInclusive = input.tax_inclusive;
  if (input.tax_category !== undefined) productColumns.taxCategory = input.tax_category;

  const differs = (columns: Partial<ProductRow>) => Object.entries(columns).some(([column, value]) => JSON.stringify(value) !== JSON.stringify(current[column as keyof ProductRow]));
  const priceChanged = differs(priceColumns);
  if (!priceChanged && !differs(productColumns)) return null;
  // The price's `updated` moves only when the price itself changes.
  return { ...productColumns, ...priceColumns, updatedAt: now, ...(priceChanged ? { priceUpdatedAt: now } : {}) };
}

/**
 * PATCH /products/{id} (and its POST alias): a partial update. The row is locked first, so two
 * concurrent updates each validate the price against the other's result (the resulting price is
 * validated as a whole).
 */
export async function updateProduct(deps: ProductDeps, subject: Scope, id: string, input: UpdateProductBody): Promise<Product> {
  const now = deps.clock.now();
  try {
    const row = await deps.db.transaction(async (tx) => {
      const [current] = await tx
        .select()
        .from(products)
        .where(and(eq(products.id, id), ownedBy(products, subject)))
        .for('update');
      if (!current) throw resourceMissing('product', id);
      const changes = productChanges(current, input, now);
      // A restatement that changes nothing is still the actor's accepted request.
      await recordAudit(tx, actorAudit(subject, deps.actor, 'product.update', { product: id, fields: Object.keys(input) }));
      if (changes === null) return current;
      const [updated] = await tx
        .update(products)
        .set(changes)
        .where(and(eq(products.id, id), ownedBy(products, subject)))
        .returning();
      await recordEvent(tx, {
        storeId: subject.storeId,
        livemode: subject.livemode,
        type: 'product.updated',
        object: productView(updated!),
        previous: productView(current),
        now,
        wallNow: deps.wallClock.now(),
      });
      return updated!;
    });
    return productView(row);
  } catch (error) {
    return rethrowSkuCollision(error);
  }
}

/**
 * DELETE /products/{id}: the guards (active subscriptions always refuse, license keys unless
 * forced), in one transaction with the product row locked.
 * Issuing a license key or creating a subscription references the product, and that foreign key
 * check takes a share lock on the product row, which conflicts with ours: so no key or
 * subscription can appear between the guard and the delete. Subscriptions and keys keep their
 * rows: `on delete set null` detaches them from the product, as it must for orders and payment
 * links once those tables exist.
 */
export async function deleteProduct(deps: Pick<ProductDeps, 'db' | 'clock' | 'wallClock' | 'actor'>, subject: Scope, id: string, options: { force: boolean }): Promise<DeletedProduct> {
  const deleted: DeletedProduct = { id, object: 'product', deleted: true, livemode: subject.livemode };
  await deps.db.transaction(async (tx) => {
    const [locked] = await tx
      .select({ id: products.id })
      .from(products)
      .where(and(eq(products.id, id), ownedBy(products, subject)))
      .for('update');
    if (!locked) throw resourceMissing('product', id);

    const liveKeys = and(eq(licenseKeys.productId, id), ownedBy(licenseKeys, subject), isNull(licenseKeys.revokedAt));
    const [guards] = await tx
      .select({
        hasActiveSubscriptions: sql<boolean>`exists (${tx
          .select({ id: subscriptions.id })
          .from(subscriptions)
          .where(and(eq(subscriptions.productId, id), ownedBy(subscriptions, subject), inArray(subscriptions.status, PRODUCT_BLOCKING_SUBSCRIPTION_STATUSES)))})`,
        hasLicenses: sql<boolean>`exists (${tx.select({ id: licenseKeys.id }).from(licenseKeys).where(liveKeys)})`,
      })
      .from(products)
      .where(and(eq(products.id, id), ownedBy(products, subject)));
    if (guards?.hasActiveSubscriptions) {
      throw new ApiError('product_has_active_subscriptions', 'This product has subscriptions that are pending, active, past due or suspended. Cancel them before deleting the product.');
    }
    if (guards?.hasLicenses) {
      if (!options.force) {
        throw new ApiError('product_has_licenses', 'License keys have been issued for this product. Delete with `force=true` to revoke them and delete the product.');
      }
      // With force the keys stop validating at once, in the same commit as the delete.
      await tx.update(licenseKeys).set({ revokedAt: deps.clock.now() }).where(liveKeys);
    }
    await tx.delete(products).where(and(eq(products.id, id), ownedBy(products, subject)));
    await recordEvent(tx, { storeId: subject.storeId, livemode: subject.livemode, type: 'product.deleted', object: deleted, now: deps.clock.now(), wallNow: deps.wallClock.now() });
    await recordAudit(tx, actorAudit(subject, deps.actor, 'product.delete', { product: id, force: options.force }));
  });
  return deleted;
}
