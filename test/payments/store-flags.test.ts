import { describe, expect, it } from 'vitest';
import { payCheckoutSession } from '@/server/payments/service';
import { updateStore } from '@/server/stores/service';
import { createStore } from '../support/factories';
import { expectPaymentError, insertSession, usePayments, validCard } from './support';

const fx = usePayments();

describe('hosted payments follow the store flags', () => {
  it('suspended store: live payments refused with account_suspended, test payments still go through', async () => {
    const store = await createStore(fx);
    await updateStore(fx.db, store.id, { suspended: true });
    const live = await insertSession(fx, store, { livemode: true });
    await expectPaymentError(payCheckoutSession(fx, { sessionId: live.sessionId, card: validCard() }), 'account_suspended', 403);
    const test = await insertSession(fx, store);
    expect((await payCheckoutSession(fx, { sessionId: test.sessionId, card: validCard() })).status).toBe('paid');
  });

  it('live channel off: live payments refused with capability_disabled', async () => {
    const store = await createStore(fx);
    await updateStore(fx.db, store.id, { liveApi: false });
    const live = await insertSession(fx, store, { livemode: true });
    await expectPaymentError(payCheckoutSession(fx, { sessionId: live.sessionId, card: validCard() }), 'capability_disabled', 403);
  });
});
