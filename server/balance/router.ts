import { createRouter, secretKeyProcedure } from '../trpc';
import { balanceSchema, balanceTransactionListSchema, balanceTransactionSchema, listBalanceTransactionsInput, retrieveBalanceInput, retrieveBalanceTransactionInput } from './schemas';
import { getBalance, getBalanceTransaction, listBalanceTransactions } from './service';

const TAGS = ['Balance'];

export const balanceRouter = createRouter({
  // GET /api/v1/balance: what this store can be paid out now and what is still held, in this environment.
  retrieve: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/balance', tags: TAGS, summary: 'Retrieve the balance', protect: true } })
    .input(retrieveBalanceInput)
    .output(balanceSchema)
    .query(({ ctx }) => getBalance(ctx, ctx.subject)),
});

export const balanceTransactionsRouter = createRouter({
  // GET /api/v1/balance_transactions: this store's ledger in this environment, newest first.
  list: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/balance_transactions', tags: TAGS, summary: 'List balance transactions', protect: true }, errors: ['resource_missing'] })
    .input(listBalanceTransactionsInput)
    .output(balanceTransactionListSchema)
    .query(({ ctx, input }) => listBalanceTransactions(ctx, ctx.subject, input)),

  // GET /api/v1/balance_transactions/{id}: one ledger entry.
  retrieve: secretKeyProcedure
    .meta({ openapi: { method: 'GET', path: '/balance_transactions/{id}', tags: TAGS, summary: 'Retrieve a balance transaction', protect: true } })
    .input(retrieveBalanceTransactionInput)
    .output(balanceTransactionSchema)
    .query(({ ctx, input }) => getBalanceTransaction(ctx, ctx.subject, input.id)),
});
