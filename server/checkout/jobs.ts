/** Checkout's background work: sessions past their deadline expire when the test clock moves. */
import { checkoutSessions } from '@/db/schema';
import type { DueJob } from '../due-jobs';
import { expireDueRows } from '../kit/expiry';
import { expireCheckoutSessions } from './expiry';

export const expireCheckoutSessionsDueJob: DueJob = ({ db }, scope, now) => expireDueRows(db, checkoutSessions, scope, now, expireCheckoutSessions);
