import { readIdempotencyKey } from '../kit/idempotency';
import { storeClock } from '../clock';
import { createRouter, secretKeyProcedure } from '../trpc';
import { createRefundInput, refundSchema } from './schemas';
import { createRefund } from './service';

/** The `Idempotency-Key` format is checked with the credentials, before the body (as on checkout). */
const createProcedure = secretKeyProcedure.use(({ ctx, next }) => {
  readIdempotencyKey(ctx.request.headers);
  return next();
});

export const refundsRouter = createRouter({
  // POST /api/v1/refunds: refund a paid order in full or in part, through its environment's gateway.
  create: createProcedure
    .meta({
      openapi: { method: 'POST', path: '/refunds', tags: ['Refunds'], summary: 'Refund an order', protect: true },
      successStatus: 201,
      idempotent: true,
      errors: ['resource_missing', 'order_already_processed', 'payment_outcome_unknown'],
    })
    .input(createRefundInput)
    .output(refundSchema)
    .mutation(async ({ ctx, input }) => {
      const { refund, replayed } = await createRefund(
        { db: ctx.db, clock: storeClock(ctx.clock, ctx.subject), gateway: ctx.gateways[ctx.subject.livemode ? 'live' : 'test'] },
        ctx.subject,
        input,
        { idempotencyKey: readIdempotencyKey(ctx.request.headers), rawBody: ctx.request.body },
      );
      if (replayed) ctx.request.successStatus = 200;
      return refund;
    }),
});
