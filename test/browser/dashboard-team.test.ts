import { afterAll, beforeAll } from 'vitest';
import { START_TIMEOUT_MS } from '../support/production-server';
import { invitationsSuite } from './dashboard/invitations';
import { securitySuite } from './dashboard/security';
import { startDashboardServer, stopDashboardServer } from './dashboard/server';
import { settingsSuite } from './dashboard/settings';
import { signInSuite } from './dashboard/sign-in';

/**
 * The merchant dashboard's people in Debian's Chromium against one `npm start`: signing in,
 * two-factor and API keys, the team, invitations across stores. Sign-in runs first: it reads the
 * demo owner's link from the server's first output. The store's own pages are
 * dashboard-store.test.ts, beside this file so that the two run at once.
 */
beforeAll(startDashboardServer, START_TIMEOUT_MS + 60_000);
afterAll(stopDashboardServer, 60_000);

signInSuite();
securitySuite();
settingsSuite();
invitationsSuite();
