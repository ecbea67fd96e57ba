/**
 * Coupons and promotion codes as the store manages them: create, read, list, delete a coupon
 * (its codes deactivated with it), create, read, list and update a code. Every change is audited
 * with its actor and writes its events in its own transaction.
 */
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Database, Executor } from '@/db/client';
import { isUniqueViolation } from '@/db/errors';
import { coupons, products, promotionCodes } from '@/db/schema';
import { actorAudit, recordAudit, type Actor } from '../audit/service';
import { epochSeconds, type Clock } from '../clock';
import { ApiError, resourceMissing } from '../errors';
import { newId } from '../ids';
import { createIdempotently, type IdempotentRequest } from '../kit/idempotency';
import { createdWithin, listEnvelope, listPage } from '../kit/list';
import { normalizeMetadata } from '../kit/metadata';
import { ownedBy, type Scope } from '../kit/scope';
import { recordEvent } from '../webhooks/events';
import type {
  Coupon,
  CouponList,
  CreateCouponInput,
  CreatePromotionCodeInput,
  DeletedCoupon,
  ListCouponsQuery,
  ListPromotionCodesQuery,
  PromotionCode,
  PromotionCodeList,
  UpdatePromotionCodeBody,
} from './schemas';

type CouponRow = typeof coupons.$inferSelect;
type PromotionCodeRow = typeof promotionCodes.$inferSelect;

/** What reads need: the database and the store's clock (a coupon's `valid` depends on it). */
export interface CouponReadDeps {
  db: Database;
  clock: Clock;
}

export interface CouponDeps extends CouponReadDeps {
  /** Real time: when the events' first deliveries fall due. */
  wallClock: Clock;
  /** Who makes the change: every change is audited with it. */
  actor: Actor;
}

/** The API shape of a coupon at `now` on the store's clock. */
export function couponView(row: CouponRow, now: Date): Coupon {
  const expired = row.redeemBy !== null && row.redeemBy.getTime() <= now.getTime();
  const exhausted = row.maxRedemptions !== null && row.timesRedeemed >= row.maxRedemptions;
  return {
    id: row.id,
    object: 'coupon',
    livemode: row.livemode,
    name: row.name,
    percent_off: row.percentOff,
    amount_off: row.amountOff,
    currency: 'eur',
    duration: row.duration,
    duration_in_months: row.durationInMonths,
    max_redemptions: row.maxRedemptions,
    redeem_by: row.redeemBy === null ? null : epochSeconds(row.redeemBy),
    applies_to: row.appliesTo === null ? null : { products: row.appliesTo },
    metadata: row.metadata,
    times_redeemed: row.timesRedeemed,
    valid: !expired && !exhausted,
    created: epochSeconds(row.createdAt),
  };
}

export function promotionCodeView(row: PromotionCodeRow): PromotionCode {
  return {
    id: row.id,
    object: 'promotion_code',
    livemode: row.livemode,
    coupon: row.couponId,
    code: row.code,
    active: row.active,
    max_redemptions: row.maxRedemptions,
    expires_at: row.expiresAt === null ? null : epochSeconds(row.expiresAt),
    times_redeemed: row.timesRedeemed,
    metadata: row.metadata,
    created: epochSeconds(row.createdAt),
  };
}

/** A time a create sets must lie ahead of the store's clock. */
function assertFuture(epoch: number | undefined, now: Date, param: string): Date | null {
  if (epoch === undefined) return null;
  if (epoch * 1000 <= now.getTime()) throw new ApiError('parameter_invalid', `\`${param}\` must be in the future (epoch seconds).`, { param });
  return new Date(epoch * 1000);
}

/** Every product of `applies_to` must be this store's in this environment: the first unknown one is 404, named by its place. */
async function assertProductsExist(executor: Executor, scope: Scope, ids: readonly string[]): Promise<void> {
  const found = await executor
    .select({ id: products.id })
    .from(products)
    .where(and(ownedBy(products, scope), inArray(products.id, [...new Set(ids)])));
  const known = new Set(found.map((row) => row.id));
  const missing = ids.findIndex((id) => !known.has(id));
  if (missing !== -1) throw resourceMissing('product', ids[missing]!, `applies_to.products[${missing}]`);
}

/** A coupon that is not deleted, by id within the scope. */
const liveCoupon = (scope: Scope, id: string) => and(eq(coupons.id, id), ownedBy(coupons, scope), isNull(coupons.deletedAt));

export const CREATE_COUPON_OPERATION = 'coupon.create';
export const CREATE_PROMOTION_CODE_OPERATION = 'promotion_code.create';

/** POST /coupons, under an optional `Idempotency-Key` (a refusal leaves the key unused). */
export async function createCoupon(deps: CouponDeps, scope: Scope, input: CreateCouponInput, idempotency?: IdempotentRequest): Promise<Coupon> {
  const now = deps.clock.now();
  const redeemBy = assertFuture(input.redeem_by, now, 'redeem_by');
  const id = newId('cpn', scope.livemode);
  const { result } = await createIdempotently({
    db: deps.db,
    scope,
    operation: CREATE_COUPON_OPERATION,
    request: idempotency,
    orderedFields: ['metadata'],
    now,
    resourceId: id,
    replay: (replayedId) => getCoupon(deps, scope, replayedId),
    create: (executor) =>
      executor.transaction(async (tx) => {
        if (input.applies_to) await assertProductsExist(tx, scope, input.applies_to.products);
        const [created] = await tx
          .insert(coupons)
          .values({
            id,
            storeId: scope.storeId,
            livemode: scope.livemode,
            name: input.name,
            percentOff: input.percent_off ?? null,
            amountOff: input.amount_off ?? null,
            currency: 'eur',
            duration: input.duration,
            durationInMonths: input.duration_in_months ?? null,
            maxRedemptions: input.max_redemptions ?? null,
            redeemBy,
            appliesTo: input.applies_to?.products ?? null,
            metadata: normalizeMetadata(input.metadata),
            createdAt: now,
          })
          .returning();
        const coupon = couponView(created!, now);
        await recordEvent(tx, { storeId: scope.storeId, livemode: scope.livemode, type: 'coupon.created', object: coupon, now, wallNow: deps.wallClock.now() });
        await recordAudit(tx, actorAudit(scope, deps.actor, 'coupon.create', { coupon: id }));
        return coupon;
      }),
  });
  return result;
}

/** GET /coupons/{id}: unknown, foreign, other-environment and deleted ids answer alike. */
export async function getCoupon(deps: CouponReadDeps, scope: Scope, id: string): Promise<Coupon> {
  const [row] = await deps.db.select().from(coupons).where(liveCoupon(scope, id));
  if (!row) throw resourceMissing('coupon', id);
  return couponView(row, deps.clock.now());
}

/** GET /coupons: newest first; deleted coupons are left out, and are no cursor either. */
export async function listCoupons(deps: CouponReadDeps, scope: Scope, query: ListCouponsQuery): Promise<CouponList> {
  const { rows, hasMore } = await listPage(deps.db, coupons, {
    scope,
    page: query,
    kind: 'coupon',
    visible: (table) => isNull(table.deletedAt),
    where: createdWithin(coupons.createdAt, query),
  });
  const now = deps.clock.now();
  return listEnvelope(
    '/api/v1/coupons',
    scope,
    rows.map((row) => couponView(row, now)),
    hasMore,
  );
}

/**
 * DELETE /coupons/{id}: a soft delete (discounts granted keep their copied terms), and its active
 * codes deactivated in the same transaction: `coupon.deleted`, then one `promotion_code.updated`
 * per code, oldest code first. The coupon row is locked first, so no code is created for it
 * meanwhile (a create locks it too).
 */
export async function deleteCoupon(deps: CouponDeps, scope: Scope, id: string): Promise<DeletedCoupon> {
  const deleted: DeletedCoupon = { id, object: 'coupon', deleted: true, livemode: scope.livemode };
  await deps.db.transaction(async (tx) => {
    const times = { now: deps.clock.now(), wallNow: deps.wallClock.now() };
    const [row] = await tx.update(coupons).set({ deletedAt: times.now }).where(liveCoupon(scope, id)).returning({ id: coupons.id });
    if (!row) throw resourceMissing('coupon', id);
    await recordEvent(tx, { storeId: scope.storeId, livemode: scope.livemode, type: 'coupon.deleted', object: deleted, ...times });
    const deactivated = await tx
      .update(promotionCodes)
      .set({ active: false })
      .where(and(eq(promotionCodes.couponId, id), ownedBy(promotionCodes, scope), eq(promotionCodes.active, true)))
      .returning();
    deactivated.sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1));
    for (const code of deactivated) {
      const after = promotionCodeView(code);
      await recordEvent(tx, { storeId: scope.storeId, livemode: scope.livemode, type: 'promotion_code.updated', object: after, previous: { ...after, active: true }, ...times });
    }
    await recordAudit(tx, actorAudit(scope, deps.actor, 'coupon.delete', { coupon: id, promotion_codes_deactivated: deactivated.map((code) => code.id) }));
  });
  return deleted;
}

/** The same answer whichever case the taken code was written in. */
const codeTaken = () =>
  new ApiError('promotion_code_unavailable', 'This code is already used by another promotion code of this store (codes are compared in any case). Choose another one.', { param: 'code' });

/** POST /promotion_codes, under an optional `Idempotency-Key`. The unique index on the lower-cased code decides races. */
export async function createPromotionCode(deps: CouponDeps, scope: Scope, input: CreatePromotionCodeInput, idempotency?: IdempotentRequest): Promise<PromotionCode> {
  const now = deps.clock.now();
  const expiresAt = assertFuture(input.expires_at, now, 'expires_at');
  const id = newId('promo', scope.livemode);
  try {
    const { result } = await createIdempotently({
      db: deps.db,
      scope,
      operation: CREATE_PROMOTION_CODE_OPERATION,
      request: idempotency,
      orderedFields: ['metadata'],
      now,
      resourceId: id,
      replay: (replayedId) => getPromotionCode(deps, scope, replayedId),
      create: (executor) =>
        executor.transaction(async (tx) => {
          // Shares the lock a delete takes: no code appears on a coupon being deleted.
          const [coupon] = await tx.select({ id: coupons.id }).from(coupons).where(liveCoupon(scope, input.coupon)).for('share');
          if (!coupon) throw resourceMissing('coupon', input.coupon, 'coupon');
          const [created] = await tx
            .insert(promotionCodes)
            .values({
              id,
              storeId: scope.storeId,
              livemode: scope.livemode,
              couponId: coupon.id,
              code: input.code,
              maxRedemptions: input.max_redemptions ?? null,
              expiresAt,
              active: input.active ?? true,
              metadata: normalizeMetadata(input.metadata),
              createdAt: now,
            })
            .returning();
          const code = promotionCodeView(created!);
          await recordEvent(tx, { storeId: scope.storeId, livemode: scope.livemode, type: 'promotion_code.created', object: code, now, wallNow: deps.wallClock.now() });
          await recordAudit(tx, actorAudit(scope, deps.actor, 'promotion_code.create', { promotion_code: id, coupon: coupon.id }));
          return code;
        }),
    });
    return result;
  } catch (error) {
    if (isUniqueViolation(error, 'promotion_codes_code_unique')) throw codeTaken();
    throw error;
  }
}

/** GET /promotion_codes/{id}: a code of a deleted coupon still reads (inactive). */
export async function getPromotionCode(deps: Pick<CouponReadDeps, 'db'>, scope: Scope, id: string): Promise<PromotionCode> {
  const [row] = await deps.db
    .select()
    .from(promotionCodes)
    .where(and(eq(promotionCodes.id, id), ownedBy(promotionCodes, scope)));
  if (!row) throw resourceMissing('promotion code', id);
  return promotionCodeView(row);
}

/** GET /promotion_codes: newest first, filtered by coupon, code (any case) and `active`. */
export async function listPromotionCodes(deps: Pick<CouponReadDeps, 'db'>, scope: Scope, query: ListPromotionCodesQuery): Promise<PromotionCodeList> {
  const { rows, hasMore } = await listPage(deps.db, promotionCodes, {
    scope,
    page: query,
    kind: 'promotion code',
    where: [
      query.coupon === undefined ? undefined : eq(promotionCodes.couponId, query.coupon),
      query.code === undefined ? undefined : sql`lower(${promotionCodes.code}) = lower(${query.code})`,
      query.active === undefined ? undefined : eq(promotionCodes.active, query.active === 'true'),
      ...createdWithin(promotionCodes.createdAt, query),
    ],
  });
  return listEnvelope('/api/v1/promotion_codes', scope, rows.map(promotionCodeView), hasMore);
}

/** Every code of a coupon, oldest first (the dashboard's coupon page). */
export async function promotionCodesOfCoupon(deps: Pick<CouponReadDeps, 'db'>, scope: Scope, couponId: string): Promise<PromotionCode[]> {
  const rows = await deps.db
    .select()
    .from(promotionCodes)
    .where(and(eq(promotionCodes.couponId, couponId), ownedBy(promotionCodes, scope)))
    .orderBy(asc(promotionCodes.createdAt), asc(promotionCodes.id));
  return rows.map(promotionCodeView);
}

/**
 * PATCH /promotion_codes/{id}: `active` and `metadata` (replaced as a whole). A code of a deleted
 * coupon stays inactive: activating it is refused. Nothing changed: no event, still audited.
 */
export async function updatePromotionCode(deps: CouponDeps, scope: Scope, id: string, input: UpdatePromotionCodeBody): Promise<PromotionCode> {
  const now = deps.clock.now();
  const row = await deps.db.transaction(async (tx) => {
    const [current] = await tx
      .select({ code: promotionCodes, couponDeletedAt: coupons.deletedAt })
      .from(promotionCodes)
      .innerJoin(coupons, eq(coupons.id, promotionCodes.couponId))
      .where(and(eq(promotionCodes.id, id), ownedBy(promotionCodes, scope)))
      .for('update');
    if (!current) throw resourceMissing('promotion code', id);
    if (input.active === true && current.couponDeletedAt !== null) {
      throw new ApiError('parameter_invalid', 'This promotion code’s coupon was deleted: the code cannot be activated again.', { param: 'active' });
    }
    await recordAudit(tx, actorAudit(scope, deps.actor, 'promotion_code.update', { promotion_code: id, fields: Object.keys(input) }));
    const changes: Partial<PromotionCodeRow> = {};
    if (input.active !== undefined) changes.active = input.active;
    if (input.metadata !== undefined) changes.metadata = normalizeMetadata(input.metadata);
    const before = promotionCodeView(current.code);
    const after = promotionCodeView({ ...current.code, ...changes });
    if (JSON.stringify(before) === JSON.stringify(after)) return current.code;
    const [updated] = await tx
      .update(promotionCodes)
      .set(changes)
      .where(and(eq(promotionCodes.id, id), ownedBy(promotionCodes, scope)))
      .returning();
    await recordEvent(tx, {
      storeId: scope.storeId,
      livemode: scope.livemode,
      type: 'promotion_code.updated',
      object: promotionCodeView(updated!),
      previous: before,
      now,
      wallNow: deps.wallClock.now(),
    });
    return updated!;
  });
  return promotionCodeView(row);
}
