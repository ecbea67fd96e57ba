import { refuseBodyId } from '../http/path-id';
import { createRouter, secretKeyProcedure } from '../trpc';
import {
  couponListSchema,
  couponSchema,
  createCouponInput,
  createPromotionCodeInput,
  deleteCouponInput,
  deletedCouponSchema,
  listCouponsInput,
  listPromotionCodesInput,
  promotionCodeListSchema,
  promotionCodeSchema,
  retrieveCouponInput,
  retrievePromotionCodeInput,
  updatePromotionCodeInput,
} from './schemas';
import { createCoupon, createPromotionCode, deleteCoupon, getCoupon, getPromotionCode, listCoupons, listPromotionCodes, updatePromotionCode } from './service';

const COUPON_TAGS = ['Coupons'];
const PROMOTION_CODE_TAGS = ['Promotion codes'];

export const couponsRouter = createRouter({
  // POST /api/v1/coupons: create a coupon.
  create: secretKeyProcedure
    .meta({
      openapi: { method: 'POST', path: '/coupons', tags: COUPON_TAGS, summary: 'Create a coupon', protect: true },
      successStatus: 201,
      idempotent: true,
      errors: ['currency_unsupported', 'metadata_invalid', 'resource_missing'],
    })
    .input(createCouponInput)
    .output(couponSchema)
    .mutation(({ ctx, input }) => createCoupon(ctx, ctx.subject, input, ctx.idempotency)),

  // GET /api/v1/coupons: this store's coupons in this environment, newest first.
  list: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/coupons', tags: COUPON_TAGS, summary: 'List coupons', protect: true }, errors: ['resource_missing'] })
    .input(listCouponsInput)
    .output(couponListSchema)
    .query(({ ctx, input }) => listCoupons(ctx, ctx.subject, input)),

  // GET /api/v1/coupons/{id}: a coupon of this store and environment.
  retrieve: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/coupons/{id}', tags: COUPON_TAGS, summary: 'Retrieve a coupon', protect: true } })
    .input(retrieveCouponInput)
    .output(couponSchema)
    .query(({ ctx, input }) => getCoupon(ctx, ctx.subject, input.id)),

  // DELETE /api/v1/coupons/{id}: delete a coupon and deactivate its promotion codes.
  delete: secretKeyProcedure
    .meta({ openapi: { method: 'DELETE', path: '/coupons/{id}', tags: COUPON_TAGS, summary: 'Delete a coupon', protect: true } })
    .input(deleteCouponInput)
    .output(deletedCouponSchema)
    .mutation(({ ctx, input }) => deleteCoupon(ctx, ctx.subject, input.id)),
});

export const promotionCodesRouter = createRouter({
  // POST /api/v1/promotion_codes: create a code customers type for a coupon.
  create: secretKeyProcedure
    .meta({
      openapi: { method: 'POST', path: '/promotion_codes', tags: PROMOTION_CODE_TAGS, summary: 'Create a promotion code', protect: true },
      successStatus: 201,
      idempotent: true,
      errors: ['promotion_code_unavailable', 'metadata_invalid', 'resource_missing'],
    })
    .input(createPromotionCodeInput)
    .output(promotionCodeSchema)
    .mutation(({ ctx, input }) => createPromotionCode(ctx, ctx.subject, input, ctx.idempotency)),

  // GET /api/v1/promotion_codes: this store's codes in this environment, newest first.
  list: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/promotion_codes', tags: PROMOTION_CODE_TAGS, summary: 'List promotion codes', protect: true }, errors: ['resource_missing'] })
    .input(listPromotionCodesInput)
    .output(promotionCodeListSchema)
    .query(({ ctx, input }) => listPromotionCodes(ctx, ctx.subject, input)),

  // GET /api/v1/promotion_codes/{id}: a code of this store and environment.
  retrieve: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/promotion_codes/{id}', tags: PROMOTION_CODE_TAGS, summary: 'Retrieve a promotion code', protect: true } })
    .input(retrievePromotionCodeInput)
    .output(promotionCodeSchema)
    .query(({ ctx, input }) => getPromotionCode(ctx, ctx.subject, input.id)),

  // PATCH /api/v1/promotion_codes/{id}: activate or deactivate a code, or replace its metadata.
  update: secretKeyProcedure
    .meta({ openapi: { method: 'PATCH', path: '/promotion_codes/{id}', tags: PROMOTION_CODE_TAGS, summary: 'Update a promotion code', protect: true }, errors: ['metadata_invalid'] })
    .input(updatePromotionCodeInput)
    .output(promotionCodeSchema)
    .mutation(({ ctx, input: { id, ...body } }) => {
      refuseBodyId(ctx.request.body, 'promotion code');
      return updatePromotionCode(ctx, ctx.subject, id, body);
    }),
});
