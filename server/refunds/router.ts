import { createRouter, secretKeyProcedure } from '../trpc';
import { createRefundInput, refundSchema } from './schemas';
import { createRefund } from './service';

export const refundsRouter = createRouter({
  // POST /api/v1/refunds: refund a paid order in full or in part, through its environment's gateway.
  create: secretKeyProcedure
    .meta({
      openapi: { method: 'POST', path: '/refunds', tags: ['Refunds'], summary: 'Refund an order', protect: true },
      successStatus: 201,
      idempotent: true,
      errors: ['resource_missing', 'order_already_processed', 'payment_outcome_unknown'],
    })
    .input(createRefundInput)
    .output(refundSchema)
    .mutation(({ ctx, input }) =>
      createRefund({ db: ctx.db, clock: ctx.clock, wallClock: ctx.wallClock, gateway: ctx.gateways[ctx.subject.livemode ? 'live' : 'test'] }, ctx.subject, input, ctx.idempotency),
    ),
});
