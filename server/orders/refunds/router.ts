import { createRouter, secretKeyProcedure } from '../../trpc';
import { refundSchema } from './object';
import { createRefundInput, listRefundsInput, refundListSchema, retrieveRefundInput } from './schemas';
import { createRefund, getRefund, listRefunds } from './service';

const TAGS = ['Refunds'];

export const refundsRouter = createRouter({
  // POST /api/v1/refunds: refund a paid order in full or in part, through its environment's gateway.
  create: secretKeyProcedure
    .meta({
      openapi: { method: 'POST', path: '/refunds', tags: TAGS, summary: 'Refund an order', protect: true },
      successStatus: 201,
      idempotent: true,
      errors: ['resource_missing', 'order_already_processed', 'order_disputed', 'payment_outcome_unknown'],
    })
    .input(createRefundInput)
    .output(refundSchema)
    .mutation(({ ctx, input }) =>
      createRefund({ db: ctx.db, clock: ctx.clock, wallClock: ctx.wallClock, gateway: ctx.gateways[ctx.subject.livemode ? 'live' : 'test'], actor: ctx.actor }, ctx.subject, input, ctx.idempotency),
    ),

  // GET /api/v1/refunds: this store's refunds in this environment, newest first.
  list: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/refunds', tags: TAGS, summary: 'List refunds', protect: true }, errors: ['resource_missing'] })
    .input(listRefundsInput)
    .output(refundListSchema)
    .query(({ ctx, input }) => listRefunds(ctx.db, ctx.subject, input)),

  // GET /api/v1/refunds/{id}: a refund of this store and environment.
  retrieve: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/refunds/{id}', tags: TAGS, summary: 'Retrieve a refund', protect: true } })
    .input(retrieveRefundInput)
    .output(refundSchema)
    .query(({ ctx, input }) => getRefund(ctx.db, ctx.subject, input.id)),
});
