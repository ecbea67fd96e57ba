import { balanceTransactionListSchema } from '../balance/schemas';
import { pdfFileSchema } from '../invoices/schemas';
import { createRouter, secretKeyProcedure } from '../trpc';
import { createPayoutInput, listPayoutBalanceTransactionsInput, listPayoutsInput, payoutListSchema, payoutSchema, retrievePayoutInput } from './schemas';
import { createPayout, getPayout, listPayoutBalanceTransactions, listPayouts } from './service';
import { payoutStatementPdf } from './statement';

const TAGS = ['Payouts'];

export const payoutsRouter = createRouter({
  // POST /api/v1/payouts: the available balance paid out now, whatever the schedule.
  create: secretKeyProcedure
    .meta({
      openapi: { method: 'POST', path: '/payouts', tags: TAGS, summary: 'Pay out the available balance', protect: true },
      successStatus: 201,
      idempotent: true,
      errors: ['balance_insufficient', 'payouts_held'],
    })
    .input(createPayoutInput)
    .output(payoutSchema)
    .mutation(({ ctx }) => createPayout(ctx, ctx.subject, ctx.idempotency)),

  // GET /api/v1/payouts: this store's payouts in this environment, newest first.
  list: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/payouts', tags: TAGS, summary: 'List payouts', protect: true }, errors: ['resource_missing'] })
    .input(listPayoutsInput)
    .output(payoutListSchema)
    .query(({ ctx, input }) => listPayouts(ctx.db, ctx.subject, input)),

  // GET /api/v1/payouts/{id}: a payout of this store and environment.
  retrieve: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/payouts/{id}', tags: TAGS, summary: 'Retrieve a payout', protect: true } })
    .input(retrievePayoutInput)
    .output(payoutSchema)
    .query(({ ctx, input }) => getPayout(ctx.db, ctx.subject, input.id)),

  // GET /api/v1/payouts/{id}/balance_transactions: the entries the payout settled, newest first.
  balanceTransactions: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/payouts/{id}/balance_transactions', tags: TAGS, summary: 'List the balance transactions of a payout', protect: true } })
    .input(listPayoutBalanceTransactionsInput)
    .output(balanceTransactionListSchema)
    .query(({ ctx, input }) => listPayoutBalanceTransactions(ctx, ctx.subject, input)),

  // GET /api/v1/payouts/{id}/statement.pdf: a paid payout's statement as a PDF in the store's language.
  retrieveStatement: secretKeyProcedure
    .meta({
      openapi: {
        method: 'GET',
        path: '/payouts/{id}/statement.pdf',
        tags: TAGS,
        summary: 'Download a payout statement as PDF',
        description:
          'The entries the payout settled, one row per order, refund, dispute or adjustment (date, invoice or credit note number, gross, VAT, fee, net), the totals per type and the amount paid out, in the store’s language. Not an invoice. Only a `paid` payout has one. Answers `application/pdf` over REST; over /api/trpc, the same file in base64.',
        protect: true,
      },
      file: 'application/pdf',
      errors: ['payout_not_paid'],
    })
    .input(retrievePayoutInput)
    .output(pdfFileSchema)
    .query(({ ctx, input }) => payoutStatementPdf(ctx, ctx.subject, input.id)),
});
