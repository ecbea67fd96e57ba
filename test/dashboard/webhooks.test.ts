import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents, webhookDeliveries } from '@/db/schema';
import { createProductAs } from '@/server/dashboard/products';
import { createEndpointAs, resendEventAs, rollSecretAs, updateEndpointAs } from '@/server/dashboard/webhooks';
import { ApiError } from '@/server/errors';
import { listEvents } from '@/server/events/service';
import { endpointSecret } from '@/server/webhooks/secrets';
import { newDeliveryId } from '@/server/webhooks/events';
import { eventReceived, getEndpoint, listDeliveries } from '@/server/webhooks/service';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';

const api = useTestApi();
const store = useTestStore(api);
const scope = () => ({ storeId: store.id, livemode: false });
const actor = { email: 'dev@example.com', ip: '203.0.113.8', path: '/dashboard/test/webhooks' };

const audits = (action: string) => api.services.db.select().from(auditEvents).where(and(eq(auditEvents.storeId, store.id), eq(auditEvents.action, action)));
const refusal = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => (error instanceof ApiError ? error.code : error));

describe('dashboard webhooks', () => {
  it('7 a create posted twice registers one endpoint with one secret, audited once; edit, disable and roll are audited', async () => {
    const key = 'e'.repeat(32);
    const input = { url: 'http://127.0.0.1:9/hooks', events: ['product.created' as const] };
    const first = await createEndpointAs(api.services, scope(), actor, input, key);
    const again = await createEndpointAs(api.services, scope(), actor, input, key);
    expect(again).toEqual(first);
    expect(first.secret).toBe(endpointSecret(api.services.config, first.id));
    expect(await audits('webhook_endpoint.create')).toMatchObject([{ keyHint: 'user:dev@example.com', method: 'POST', ip: actor.ip, details: { webhook_endpoint: first.id, events: ['product.created'] } }]);

    await updateEndpointAs(api.services, scope(), actor, first.id, { url: 'http://127.0.0.1:9/other', events: null });
    await updateEndpointAs(api.services, scope(), actor, first.id, { disabled: true });
    await expect(getEndpoint(api.services.db, scope(), first.id)).resolves.toMatchObject({ url: 'http://127.0.0.1:9/other', events: null, disabled: true });
    expect((await audits('webhook_endpoint.update')).map((entry) => entry.details)).toEqual([
      { webhook_endpoint: first.id, url: 'http://127.0.0.1:9/other', events: null },
      { webhook_endpoint: first.id, disabled: true },
    ]);

    const rolled = await rollSecretAs(api.services, scope(), actor, first.id, 3600);
    expect(rolled.secret).toBe(endpointSecret(api.services.config, first.id, 1));
    expect(rolled.previous_secret_expires_at).toBe(Math.floor(api.services.clock.now().getTime() / 1000) + 3600);
    expect(await audits('webhook_endpoint.roll_secret')).toMatchObject([{ details: { webhook_endpoint: first.id, expires_in: 3600 } }]);
    // Another mode's endpoint is missing there: nothing changed, nothing audited.
    expect(await refusal(updateEndpointAs(api.services, { storeId: store.id, livemode: true }, actor, first.id, { disabled: false }))).toBe('resource_missing');
    expect(await audits('webhook_endpoint.update')).toHaveLength(2);
  });

  it('7 a resend posted twice makes one delivery, audited; a disabled endpoint refuses it; the delivery status reads back', async () => {
    const endpoint = await createEndpointAs(api.services, scope(), actor, { url: 'http://127.0.0.1:9/resend' }, 'f'.repeat(32));
    await createProductAs(api.services, scope(), actor, { name: 'Buoy', amount: 500 }, '1'.repeat(32));
    const [event] = (await listEvents(api.services.db, scope(), { limit: 1, type: 'product.created' })).data;
    const key = '2'.repeat(32);
    const resent = await resendEventAs(api.services, scope(), actor, event!.id, endpoint.id, key);
    const again = await resendEventAs(api.services, scope(), actor, event!.id, endpoint.id, key);
    expect(again.id).toBe(resent.id);
    const log = await listDeliveries(api.services.db, scope(), endpoint.id, { limit: 10, event_id: event!.id });
    expect(log.data.map((delivery) => delivery.id)).toContain(resent.id);
    expect(log.data).toHaveLength(2);
    const received = (deliveryId?: string, endpointId = endpoint.id, within = scope()) => eventReceived(api.services.db, within, endpointId, event!.id, deliveryId);
    expect([await received(), await received(resent.id)]).toEqual([false, false]);
    expect([await received('whd_unknown'), await received(undefined, 'we_test_unknown'), await received(undefined, endpoint.id, { ...scope(), livemode: true })]).toEqual([undefined, undefined, undefined]);
    expect(await audits('event.resend')).toMatchObject([{ keyHint: 'user:dev@example.com', details: { event: event!.id, webhook_endpoint: endpoint.id, delivery: resent.id } }]);

    await updateEndpointAs(api.services, scope(), actor, endpoint.id, { disabled: true });
    expect(await refusal(resendEventAs(api.services, scope(), actor, event!.id, endpoint.id, '3'.repeat(32)))).toBe('webhook_endpoint_disabled');
    expect(await audits('event.resend')).toHaveLength(1);
  });

  it('7 the resend form asks to confirm once the endpoint has the event, however long its delivery log of it', async () => {
    const endpoint = await createEndpointAs(api.services, scope(), actor, { url: 'http://127.0.0.1:9/received' }, '4'.repeat(32));
    await createProductAs(api.services, scope(), actor, { name: 'Anchor', amount: 700 }, '5'.repeat(32));
    const [event] = (await listEvents(api.services.db, scope(), { limit: 1, type: 'product.created' })).data;
    const first = await resendEventAs(api.services, scope(), actor, event!.id, endpoint.id, '6'.repeat(32));
    await api.services.db.update(webhookDeliveries).set({ status: 'succeeded', nextAttemptAt: null }).where(eq(webhookDeliveries.id, first.id));
    // A hundred and more later resends of it, none delivered: the log lists them before the first.
    const [row] = await api.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, first.id));
    const later = new Date(row!.createdAt.getTime() + 1000);
    await api.services.db.insert(webhookDeliveries).values(Array.from({ length: 120 }, () => ({ ...row!, id: newDeliveryId(), status: 'failed' as const, nextAttemptAt: null, createdAt: later })));
    const received = (deliveryId?: string) => eventReceived(api.services.db, scope(), endpoint.id, event!.id, deliveryId);
    expect([await received(), await received(first.id)]).toEqual([true, true]);
  });
});
