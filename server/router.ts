import { balanceRouter, balanceTransactionsRouter } from './balance/router';
import { subscriptionBillingRouter } from './billing/router';
import { checkoutRouter } from './checkout/router';
import { couponsRouter, promotionCodesRouter } from './coupons/router';
import { customersRouter } from './customers/router';
import { disputesRouter } from './disputes/router';
import { eventsRouter } from './events/router';
import { creditNotesRouter, invoicesRouter } from './invoices/router';
import { licensesRouter } from './licenses/router';
import { mailTestHelpersRouter } from './mail/router';
import { ordersRouter } from './orders/router';
import { portalRouter } from './portal/router';
import { payoutsRouter } from './payouts/router';
import { productsRouter } from './products/router';
import { refundsRouter } from './orders/refunds/router';
import { subscriptionsRouter } from './subscriptions/router';
import { testClockRouter } from './test-clock/router';
import { createRouter, mergeRouters } from './trpc';
import { webhooksRouter } from './webhooks/router';

/** The public API: every procedure here carries OpenAPI meta and is served under /api/v1. */
export const appRouter = createRouter({
  products: productsRouter,
  checkout: checkoutRouter,
  testHelpers: mergeRouters(testClockRouter, mailTestHelpersRouter),
  orders: ordersRouter,
  customers: customersRouter,
  licenses: licensesRouter,
  refunds: refundsRouter,
  webhookEndpoints: webhooksRouter,
  subscriptions: mergeRouters(subscriptionsRouter, subscriptionBillingRouter),
  portal: portalRouter,
  events: eventsRouter,
  invoices: invoicesRouter,
  creditNotes: creditNotesRouter,
  balance: balanceRouter,
  balanceTransactions: balanceTransactionsRouter,
  payouts: payoutsRouter,
  disputes: disputesRouter,
  coupons: couponsRouter,
  promotionCodes: promotionCodesRouter,
});

export type AppRouter = typeof appRouter;
