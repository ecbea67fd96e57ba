import { afterAll, beforeAll } from 'vitest';
import { START_TIMEOUT_MS } from '../support/production-server';
import { balanceSuite } from './dashboard/balance';
import { bankAccountSuite } from './dashboard/bank-account';
import { couponsSuite } from './dashboard/coupons';
import { customersSuite } from './dashboard/customers';
import { developersSuite } from './dashboard/developers';
import { disputesSuite } from './dashboard/disputes';
import { ordersSuite } from './dashboard/orders';
import { startDashboardServer, stopDashboardServer } from './dashboard/server';

/**
 * The merchant dashboard's store pages in Debian's Chromium against one `npm start`: orders,
 * customers and subscriptions, developers, the bank account, the balance and payouts, disputes
 * and coupons. Its people are dashboard-team.test.ts.
 */
beforeAll(startDashboardServer, START_TIMEOUT_MS + 60_000);
afterAll(stopDashboardServer, 60_000);

ordersSuite();
customersSuite();
developersSuite();
bankAccountSuite();
balanceSuite();
disputesSuite();
couponsSuite();
