import { afterAll, beforeAll } from 'vitest';
import { START_TIMEOUT_MS } from '../support/production-server';
import { balanceSuite } from './dashboard/balance';
import { bankAccountSuite } from './dashboard/bank-account';
import { couponsSuite } from './dashboard/coupons';
import { customersSuite } from './dashboard/customers';
import { developersSuite } from './dashboard/developers';
import { disputesSuite } from './dashboard/disputes';
import { invitationsSuite } from './dashboard/invitations';
import { ordersSuite } from './dashboard/orders';
import { securitySuite } from './dashboard/security';
import { startDashboardServer, stopDashboardServer } from './dashboard/server';
import { settingsSuite } from './dashboard/settings';
import { signInSuite } from './dashboard/sign-in';

/**
 * The merchant dashboard in Debian's Chromium against one `npm start`. Sign-in runs first: it
 * reads the demo owner's link from the server's first output.
 */
beforeAll(startDashboardServer, START_TIMEOUT_MS + 60_000);
afterAll(stopDashboardServer, 60_000);

signInSuite();
ordersSuite();
customersSuite();
developersSuite();
securitySuite();
settingsSuite();
bankAccountSuite();
invitationsSuite();
balanceSuite();
disputesSuite();
couponsSuite();
