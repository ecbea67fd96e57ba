import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditEvents, webhookDeliveries } from '@/db/schema';
import { ApiError } from '@/server/errors';
import { listEvents } from '@/server/events/service';
import { endpointSecret } from '@/server/webhooks/secrets';
import { newDeliveryId } from '@/server/webhooks/events';
import type { Scope } from '@/server/kit/scope';
import { createProduct, productDeps } from '@/server/products/service';
import { createEndpoint, eventReceived, getEndpoint, listDeliveries, resendEvent, rollEndpointSecret, updateEndpoint } from '@/server/webhooks/service';
import { actingAs, formKey, person } from '../support/dashboard';
import { useTestApi } from '../support/server';
import { useTestStore } from '../support/store';

const api = useTestApi();
const store = useTestStore(api);
const scope = () => ({ storeId: store.id, livemode: false });
const actor = person({ email: 'dev@example.com', ip: '203.0.113.8', path: '/dashboard/test/webhooks' }, 'developer');
const acting = (on: Scope = scope()) => actingAs(api.services, on, actor);

const audits = (action: string) =>
  api.services.db
    .select()
    .from(auditEvents)
    .where(and(eq(auditEvents.storeId, store.id), eq(auditEvents.action, action)));
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => (error instanceof ApiError ? error.code : error),
  );

describe('dashboard webhooks', () => {
  it('7 a create posted twice registers one endpoint with one secret, audited once; edit, disable and roll are audited', async () => {
    const key = 'e'.repeat(32);
    const input = { url: 'http://127.0.0.1:9/hooks', events: ['product.created' as const] };
    const first = await createEndpoint(await acting(), scope(), input, formKey(key, input));
    const again = await createEndpoint(await acting(), scope(), input, formKey(key, input));
    expect(again).toEqual(first);
    expect(first.secret).toBe(endpointSecret(api.services.config, first.id));
    expect(await audits('webhook_endpoint.create')).toMatchObject([
      { keyHint: 'user:dev@example.com', method: 'POST', ip: actor.ip, details: { webhook_endpoint: first.id, events: ['product.created'] } },
    ]);

    await updateEndpoint(await acting(), scope(), first.id, { url: 'http://127.0.0.1:9/other', events: null });
    await updateEndpoint(await acting(), scope(), first.id, { disabled: true });
    await expect(getEndpoint(api.services.db, scope(), first.id)).resolves.toMatchObject({ url: 'http://127.0.0.1:9/other', events: null, disabled: true });
    expect((await audits('webhook_endpoint.update')).map((entry) => entry.details)).toEqual([
      { webhook_endpoint: first.id, url: 'http://127.0.0.1:9/other', events: null },
      { webhook_endpoint: first.id, disabled: true },
    ]);

    const ctx = await acting();
    const rolled = await rollEndpointSecret(ctx, scope(), first.id, 3600, ctx.clock.now());
    expect(rolled.secret).toBe(endpointSecret(api.services.config, first.id, 1));
    expect(rolled.previous_secret_expires_at).toBe(Math.floor(api.services.clock.now().getTime() / 1000) + 3600);
    expect(await audits('webhook_endpoint.roll_secret')).toMatchObject([{ details: { webhook_endpoint: first.id, expires_in: 3600 } }]);
    // Another mode's endpoint is missing there: nothing changed, nothing audited.
    expect(await refusal(updateEndpoint(await acting({ storeId: store.id, livemode: true }), { storeId: store.id, livemode: true }, first.id, { disabled: false }))).toBe('resource_missing');
    expect(await audits('webhook_endpoint.update')).toHaveLength(2);
  });

  it('7 a resend posted twice makes one delivery, audited; a disabled endpoint refuses it; the delivery status reads back', async () => {
    const endpoint = await createEndpoint(await acting(), scope(), { url: 'http://127.0.0.1:9/resend' }, formKey('f'.repeat(32), { url: 'http://127.0.0.1:9/resend' }));
    await createProduct(productDeps(await acting()), scope(), { name: 'Buoy', amount: 500 }, formKey('1'.repeat(32), { name: 'Buoy', amount: 500 }));
    const [event] = (await listEvents(api.services.db, scope(), { limit: 1, type: 'product.created' })).data;
    const key = '2'.repeat(32);
    const resent = await resendEvent(await acting(), scope(), event!.id, endpoint.id, formKey(key, { endpoint_id: endpoint.id }));
    const again = await resendEvent(await acting(), scope(), event!.id, endpoint.id, formKey(key, { endpoint_id: endpoint.id }));
    expect(again.id).toBe(resent.id);
    const log = await listDeliveries(api.services.db, scope(), endpoint.id, { limit: 10, event_id: event!.id });
    expect(log.data.map((delivery) => delivery.id)).toContain(resent.id);
    expect(log.data).toHaveLength(2);
    const received = (deliveryId?: string, endpointId = endpoint.id, within = scope()) => eventReceived(api.services.db, within, endpointId, event!.id, deliveryId);
    expect([await received(), await received(resent.id)]).toEqual([false, false]);
    expect([await received('whd_unknown'), await received(undefined, 'we_test_unknown'), await received(undefined, endpoint.id, { ...scope(), livemode: true })]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(await audits('event.resend')).toMatchObject([{ keyHint: 'user:dev@example.com', details: { event: event!.id, webhook_endpoint: endpoint.id, delivery: resent.id } }]);

    await updateEndpoint(await acting(), scope(), endpoint.id, { disabled: true });
    expect(await refusal(resendEvent(await acting(), scope(), event!.id, endpoint.id, formKey('3'.repeat(32), { endpoint_id: endpoint.id })))).toBe('webhook_endpoint_disabled');
    expect(await audits('event.resend')).toHaveLength(1);
  });

  it('7 the resend form asks to confirm once the endpoint has the event, however long its delivery log of it', async () => {
    const endpoint = await createEndpoint(await acting(), scope(), { url: 'http://127.0.0.1:9/received' }, formKey('4'.repeat(32), { url: 'http://127.0.0.1:9/received' }));
    await createProduct(productDeps(await acting()), scope(), { name: 'Anchor', amount: 700 }, formKey('5'.repeat(32), { name: 'Anchor', amount: 700 }));
    const [event] = (await listEvents(api.services.db, scope(), { limit: 1, type: 'product.created' })).data;
    const first = await resendEvent(await acting(), scope(), event!.id, endpoint.id, formKey('6'.repeat(32), { endpoint_id: endpoint.id }));
    await api.services.db.update(webhookDeliveries).set({ status: 'succeeded', nextAttemptAt: null }).where(eq(webhookDeliveries.id, first.id));
    // A hundred and more later resends of it, none delivered: the log lists them before the first.
    const [row] = await api.services.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, first.id));
    const later = new Date(row!.createdAt.getTime() + 1000);
    await api.services.db.insert(webhookDeliveries).values(Array.from({ length: 120 }, () => ({ ...row!, id: newDeliveryId(), status: 'failed' as const, nextAttemptAt: null, createdAt: later })));
    const received = (deliveryId?: string) => eventReceived(api.services.db, scope(), endpoint.id, event!.id, deliveryId);
    expect([await received(), await received(first.id)]).toEqual([true, true]);
  });
});
