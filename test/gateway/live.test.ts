import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLiveGateway } from '@/server/gateway/live';
import { GatewayRejectedError, GatewayTimeoutError, type ChargeRequest } from '@/server/gateway/types';
import { randomBase62 } from '@/server/ids';
import { createStripeReplay, STRIPE_BASE_URL, STRIPE_KEY } from './stripe-api';

const stripe = createStripeReplay();
const server = setupServer(...stripe.handlers);
// Any request that is not to the acquirer fails the test: card data goes nowhere else.
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  stripe.calls.length = 0;
});
afterAll(() => server.close());

// The production timeout: a loaded machine must not turn an in-process answer into a timeout.
const gateway = createLiveGateway({ secretKey: STRIPE_KEY, baseUrl: STRIPE_BASE_URL, timeoutMs: 15_000 });

const request = (number: string, extra: Partial<ChargeRequest> = {}): ChargeRequest => ({
  idempotencyKey: `charge:cs_live_${randomBase62(24)}:1`,
  amount: 2500,
  description: 'Store order ord_live_1',
  card: { number, expMonth: 12, expYear: 2030, cvc: '123' },
  returnUrl: 'https://pay.example.test/checkout/cs_live_1/return?signature=abc',
  ...extra,
});

describe('Stripe PaymentIntents adapter (msw replay of the documented API)', () => {
  it('approve: one confirmed PaymentIntent, form-encoded, with the Idempotency-Key header', async () => {
    const req = request('4242424242424242');
    const result = await gateway.charge(req);
    expect(result).toEqual({ status: 'succeeded', paymentId: expect.stringMatching(/^pi_/), brand: 'visa', last4: '4242' });
    expect(stripe.calls).toHaveLength(1);
    const [call] = stripe.calls;
    expect(call!.method).toBe('POST');
    expect(call!.path).toBe('/v1/payment_intents');
    expect(call!.headers['idempotency-key']).toBe(req.idempotencyKey);
    expect(call!.headers.authorization).toBe(`Bearer ${STRIPE_KEY}`);
    expect(call!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(call!.form)).toEqual({
      amount: '2500',
      currency: 'eur',
      description: 'Store order ord_live_1',
      confirm: 'true',
      return_url: req.returnUrl,
      'metadata[idempotency_key]': req.idempotencyKey,
      'payment_method_data[type]': 'card',
      'payment_method_data[card][number]': '4242424242424242',
      'payment_method_data[card][exp_month]': '12',
      'payment_method_data[card][exp_year]': '2030',
      'payment_method_data[card][cvc]': '123',
      'expand[]': 'payment_method',
    });
  });

  it("a retry with the same key is answered from Stripe's idempotency cache: same payment", async () => {
    const req = request('4242424242424242');
    const first = await gateway.charge(req);
    const second = await gateway.charge(req);
    expect(second).toEqual(first);
    expect(stripe.calls.map((call) => call.headers['idempotency-key'])).toEqual([req.idempotencyKey, req.idempotencyKey]);
  });

  it('decline: 402 card_error card_declined → declined card_declined, with the refused intent', async () => {
    expect(await gateway.charge(request('4000000000000002'))).toEqual({
      status: 'declined',
      code: 'card_declined',
      paymentId: expect.stringMatching(/^pi_/),
      brand: 'visa',
      last4: '0002',
    });
  });

  it('Stripe error codes map to ours: incorrect_cvc → invalid_cvc', async () => {
    expect(await gateway.charge(request('4000000000000127'))).toMatchObject({ status: 'declined', code: 'invalid_cvc', last4: '0127' });
  });

  it('3-D Secure: requires_action → redirect URL; retrieveCharge follows the intent to succeeded', async () => {
    const req = request('4000000000003220');
    const challenged = await gateway.charge(req);
    expect(challenged).toEqual({
      status: 'requires_action',
      paymentId: expect.stringMatching(/^pi_/),
      redirectUrl: 'https://hooks.stripe.com/3d_secure_2/hosted?merchant=acct_1&payment_intent=pi_3ds',
      brand: 'visa',
      last4: '3220',
    });
    const paymentId = (challenged as { paymentId: string }).paymentId;
    expect(await gateway.retrieveCharge(req.idempotencyKey, { paymentId, sentAt: new Date() })).toMatchObject({ status: 'requires_action', paymentId });
    stripe.completeChallenge(paymentId, 'succeeded');
    expect(await gateway.retrieveCharge(req.idempotencyKey, { paymentId, sentAt: new Date() })).toEqual({ status: 'succeeded', paymentId, brand: 'visa', last4: '3220' });
    expect(stripe.calls.at(-1)).toMatchObject({ method: 'GET', path: `/v1/payment_intents/${paymentId}` });
  });

  it('3-D Secure failed: the intent needs a new payment method → declined card_declined', async () => {
    const req = request('4000000000003220');
    const challenged = (await gateway.charge(req)) as { paymentId: string };
    stripe.completeChallenge(challenged.paymentId, 'failed');
    expect(await gateway.retrieveCharge(req.idempotencyKey, { paymentId: challenged.paymentId, sentAt: new Date() })).toMatchObject({ status: 'declined', code: 'card_declined' });
  });

  it('cancelCharge withdraws an unfinished challenge (null: nothing charged), keyed and with Stripe\'s "abandoned" reason', async () => {
    const challenged = (await gateway.charge(request('4000000000003220'))) as { paymentId: string };
    expect(await gateway.cancelCharge(challenged.paymentId)).toBeNull();
    expect(stripe.calls.at(-1)).toMatchObject({
      method: 'POST',
      path: `/v1/payment_intents/${challenged.paymentId}/cancel`,
      headers: { 'idempotency-key': `cancel:${challenged.paymentId}` },
    });
    expect(stripe.calls.at(-1)!.form.get('cancellation_reason')).toBe('abandoned');
    // Asked again (a reconciler that lost the answer): Stripe refuses, the intent says canceled.
    expect(await gateway.cancelCharge(challenged.paymentId)).toBeNull();
  });

  it('cancelCharge after the customer finished the challenge: Stripe refuses to cancel, the answer is the payment', async () => {
    const challenged = (await gateway.charge(request('4000000000003220'))) as { paymentId: string };
    stripe.completeChallenge(challenged.paymentId, 'succeeded');
    expect(await gateway.cancelCharge(challenged.paymentId)).toEqual({ status: 'succeeded', paymentId: challenged.paymentId, brand: 'visa', last4: '3220' });
    expect(stripe.intents.get(challenged.paymentId)!.status).toBe('succeeded');
  });

  it('timeout: no answer within the configured time → GatewayTimeoutError, without the card in its message', async () => {
    const impatient = createLiveGateway({ secretKey: STRIPE_KEY, baseUrl: STRIPE_BASE_URL, timeoutMs: 1_000 });
    const error = await impatient.charge(request('4000000000000259')).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayTimeoutError);
    expect(String((error as Error).message)).not.toContain('4000000000000259');
  });

  it('the same key while its first request still runs (409 idempotency_key_in_use) leaves the outcome open → GatewayTimeoutError, not a refusal', async () => {
    const req = request('4000000000000259');
    const impatient = createLiveGateway({ secretKey: STRIPE_KEY, baseUrl: STRIPE_BASE_URL, timeoutMs: 1_000 });
    await expect(impatient.charge(req)).rejects.toBeInstanceOf(GatewayTimeoutError);
    await expect(gateway.charge(req)).rejects.toBeInstanceOf(GatewayTimeoutError);
    expect(stripe.calls.at(-1)).toMatchObject({ method: 'POST', path: '/v1/payment_intents', headers: { 'idempotency-key': req.idempotencyKey } });
  });

  it('rate limited (429): nothing was run, the outcome is open → GatewayTimeoutError; the next request goes through', async () => {
    stripe.rateLimitNext();
    const req = request('4242424242424242');
    await expect(gateway.charge(req)).rejects.toBeInstanceOf(GatewayTimeoutError);
    expect(await gateway.charge(req)).toMatchObject({ status: 'succeeded' });
  });

  it('a 5xx leaves the outcome open → GatewayTimeoutError', async () => {
    await expect(gateway.charge(request('4000000000000119'))).rejects.toBeInstanceOf(GatewayTimeoutError);
  });

  it('refused credentials (401) and no credentials are GatewayRejectedError: nothing was charged', async () => {
    const wrongKey = createLiveGateway({ secretKey: 'sk_live_wrong', baseUrl: STRIPE_BASE_URL, timeoutMs: 15_000 });
    await expect(wrongKey.charge(request('4242424242424242'))).rejects.toBeInstanceOf(GatewayRejectedError);
    const unconfigured = createLiveGateway({ secretKey: undefined, baseUrl: STRIPE_BASE_URL, timeoutMs: 15_000 });
    stripe.calls.length = 0;
    await expect(unconfigured.charge(request('4242424242424242'))).rejects.toBeInstanceOf(GatewayRejectedError);
    expect(stripe.calls).toEqual([]);
  });

  it('retrieveCharge by key lists the intents created around the send (read-after-write, unlike search) and matches the key in their metadata; null when Stripe never saw it', async () => {
    const req = request('4242424242424242');
    const sentAt = new Date();
    const charged = await gateway.charge(req);
    expect(await gateway.retrieveCharge(req.idempotencyKey, { sentAt })).toEqual(charged);
    const list = stripe.calls.at(-1)!;
    expect(list).toMatchObject({ method: 'GET', path: '/v1/payment_intents' });
    const sent = Math.floor(sentAt.getTime() / 1000);
    expect(Number(list.form.get('created[gte]'))).toBe(sent - 300);
    expect(Number(list.form.get('created[lte]'))).toBe(sent + 1800);
    expect(list.form.get('limit')).toBe('100');
    expect(await gateway.retrieveCharge('charge:cs_live_never:1', { sentAt })).toBeNull();
    // An intent made long before the send is outside the window.
    expect(await gateway.retrieveCharge(req.idempotencyKey, { sentAt: new Date(sentAt.getTime() + 3_600_000) })).toBeNull();
  });

  it('retrieveCharge by key follows the list past its first page', async () => {
    const sentAt = new Date();
    const first = request('4242424242424242');
    const charged = await gateway.charge(first);
    for (let n = 0; n < 100; n += 1) await gateway.charge(request('4242424242424242'));
    stripe.calls.length = 0;
    expect(await gateway.retrieveCharge(first.idempotencyKey, { sentAt })).toEqual(charged);
    expect(stripe.calls.map((call) => call.path)).toEqual(['/v1/payment_intents', '/v1/payment_intents']);
    expect(stripe.calls[1]!.form.get('starting_after')).toMatch(/^pi_/);
  });

  it('recurring: a customer under a derived key, setup_future_usage, then off-session charges and detach', async () => {
    const req = request('4242424242424242', { recurring: true });
    const first = await gateway.charge(req);
    expect(first).toMatchObject({ status: 'succeeded', recurringId: expect.stringMatching(/^cus_\d+\/pm_\d+$/) });
    expect(stripe.calls[0]).toMatchObject({ path: '/v1/customers', headers: expect.objectContaining({ 'idempotency-key': `${req.idempotencyKey}:customer` }) });
    expect(stripe.calls[1]!.form.get('setup_future_usage')).toBe('off_session');
    const recurringId = (first as { recurringId: string }).recurringId;
    const [customer, paymentMethod] = recurringId.split('/');
    expect(stripe.calls[1]!.form.get('customer')).toBe(customer);

    const renewal = await gateway.chargeRecurring({ idempotencyKey: `recurring:sub_live_1:2`, recurringId, amount: 900, description: 'Plan' });
    expect(renewal).toMatchObject({ status: 'succeeded', paymentId: expect.stringMatching(/^pi_/) });
    const renewalCall = stripe.calls.at(-1)!;
    expect(Object.fromEntries(renewalCall.form)).toMatchObject({ customer, payment_method: paymentMethod, off_session: 'true', confirm: 'true', amount: '900' });
    expect(renewalCall.headers['idempotency-key']).toBe('recurring:sub_live_1:2');

    await gateway.cancelRecurring(recurringId);
    expect(stripe.calls.at(-1)).toMatchObject({ method: 'POST', path: `/v1/payment_methods/${paymentMethod}/detach` });
  });

  it('refund: POST /v1/refunds with the payment, the amount and the Idempotency-Key', async () => {
    const result = await gateway.refund({ idempotencyKey: 'refund:re_live_1:1', paymentId: 'pi_123', amount: 700 });
    expect(result).toEqual({ refundId: expect.stringMatching(/^re_/), status: 'succeeded' });
    const [call] = stripe.calls;
    expect(call!.headers['idempotency-key']).toBe('refund:re_live_1:1');
    expect(Object.fromEntries(call!.form)).toEqual({ payment_intent: 'pi_123', amount: '700', 'metadata[idempotency_key]': 'refund:re_live_1:1' });
    expect(await gateway.refund({ idempotencyKey: 'refund:re_live_1:1', paymentId: 'pi_123', amount: 700 })).toEqual(result);
  });

  it("retrieveRefund by key lists the payment's refunds (read-after-write, unlike search) and matches the key in their metadata; null when Stripe never saw it", async () => {
    const paymentId = `pi_${randomBase62(24)}`;
    const made = await gateway.refund({ idempotencyKey: 'refund:re_live_2:1', paymentId, amount: 300 });
    await gateway.refund({ idempotencyKey: 'refund:re_live_3:1', paymentId, amount: 200 });
    stripe.calls.length = 0;
    expect(await gateway.retrieveRefund({ idempotencyKey: 'refund:re_live_2:1', paymentId })).toEqual(made);
    expect(stripe.calls).toMatchObject([{ method: 'GET', path: '/v1/refunds' }]);
    expect(Object.fromEntries(stripe.calls[0]!.form)).toEqual({ payment_intent: paymentId, limit: '100' });
    expect(await gateway.retrieveRefund({ idempotencyKey: 'refund:re_live_never:1', paymentId })).toBeNull();
  });

  it('retrieveRefund follows the list past its first page', async () => {
    const paymentId = `pi_${randomBase62(24)}`;
    const oldest = await gateway.refund({ idempotencyKey: 'refund:re_live_oldest:1', paymentId, amount: 1 });
    const newer = [];
    for (let n = 0; n < 100; n += 1) newer.push(await gateway.refund({ idempotencyKey: `refund:re_live_page_${n}:1`, paymentId, amount: 1 }));
    stripe.calls.length = 0;
    expect(await gateway.retrieveRefund({ idempotencyKey: 'refund:re_live_oldest:1', paymentId })).toEqual(oldest);
    // Newest first: the first page ends with the oldest of the hundred newer ones.
    expect(stripe.calls.map((call) => call.form.get('starting_after'))).toEqual([null, newer[0]!.refundId]);
  });

  it('a pending refund: retrieveRefund by its id follows it to succeeded or failed', async () => {
    stripe.answerRefundsWith('pending');
    try {
      const pending = await gateway.refund({ idempotencyKey: 'refund:re_live_4:1', paymentId: 'pi_pending', amount: 900 });
      expect(pending).toEqual({ refundId: expect.stringMatching(/^re_/), status: 'pending' });
      const lookup = { idempotencyKey: 'refund:re_live_4:1', paymentId: 'pi_pending', refundId: pending.refundId };
      expect(await gateway.retrieveRefund(lookup)).toEqual(pending);
      stripe.finishRefund(pending.refundId, 'failed');
      expect(await gateway.retrieveRefund(lookup)).toEqual({ refundId: pending.refundId, status: 'failed' });
      expect(stripe.calls.at(-1)).toMatchObject({ method: 'GET', path: `/v1/refunds/${pending.refundId}` });
    } finally {
      stripe.answerRefundsWith('succeeded');
    }
  });
});

describe('Stripe SetupIntents: a recurring contract asked with amount 0 is a card check, no money moves', () => {
  const check = (number: string) => request(number, { amount: 0, recurring: true, description: 'Store: Pro plan (card check)' });
  const intentCalls = () => stripe.calls.filter((call) => call.path.startsWith('/v1/payment_intents'));

  it('one confirmed SetupIntent under a customer made with a derived key, off_session, form-encoded with the Idempotency-Key header; no PaymentIntent', async () => {
    const req = check('4242424242424242');
    const result = await gateway.charge(req);
    expect(stripe.calls.map((call) => `${call.method} ${call.path}`)).toEqual(['POST /v1/customers', 'POST /v1/setup_intents']);
    const [customerCall, setupCall] = stripe.calls;
    expect(customerCall!.headers['idempotency-key']).toBe(`${req.idempotencyKey}:customer`);
    expect(setupCall!.headers['idempotency-key']).toBe(req.idempotencyKey);
    expect(setupCall!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const customer = setupCall!.form.get('customer');
    expect(customer).toMatch(/^cus_\d+$/);
    expect(Object.fromEntries(setupCall!.form)).toEqual({
      description: 'Store: Pro plan (card check)',
      confirm: 'true',
      return_url: req.returnUrl,
      'metadata[idempotency_key]': req.idempotencyKey,
      'payment_method_data[type]': 'card',
      'payment_method_data[card][number]': '4242424242424242',
      'payment_method_data[card][exp_month]': '12',
      'payment_method_data[card][exp_year]': '2030',
      'payment_method_data[card][cvc]': '123',
      'expand[]': 'payment_method',
      customer,
      usage: 'off_session',
    });
    const paymentId = (result as { paymentId: string }).paymentId;
    const saved = stripe.setupIntents.get(paymentId)!;
    expect(saved).toMatchObject({ object: 'setup_intent', status: 'succeeded', usage: 'off_session', customer, last_setup_error: null });
    expect(result).toEqual({ status: 'succeeded', paymentId: expect.stringMatching(/^seti_/), brand: 'visa', last4: '4242', recurringId: `${customer}/${saved.payment_method}` });
    expect(intentCalls()).toEqual([]);

    // A retry is answered from Stripe's idempotency cache: the same check, no new intent.
    const made = stripe.setupIntents.size;
    expect(await gateway.charge(req)).toEqual(result);
    expect(stripe.setupIntents.size).toBe(made);
    // The saved card is charged off-session later.
    const renewal = await gateway.chargeRecurring({ idempotencyKey: `recurring:sub_live_check:1`, recurringId: (result as { recurringId: string }).recurringId, amount: 990, description: 'Plan' });
    expect(renewal).toEqual({ status: 'succeeded', paymentId: expect.stringMatching(/^pi_/), brand: 'visa', last4: '4242' });
  });

  it('decline: 402 card_error with the refused setup_intent → declined card_declined, its seti_ id and the card', async () => {
    expect(await gateway.charge(check('4000000000000002'))).toEqual({ status: 'declined', code: 'card_declined', paymentId: expect.stringMatching(/^seti_/), brand: 'visa', last4: '0002' });
    expect(intentCalls()).toEqual([]);
  });

  it('incorrect_cvc → declined invalid_cvc', async () => {
    expect(await gateway.charge(check('4000000000000127'))).toEqual({ status: 'declined', code: 'invalid_cvc', paymentId: expect.stringMatching(/^seti_/), brand: 'visa', last4: '0127' });
  });

  it('3-D Secure: requires_action → redirect URL; retrieveCharge follows the seti_ id to succeeded with the contract', async () => {
    const req = check('4000000000003220');
    const challenged = await gateway.charge(req);
    expect(challenged).toEqual({
      status: 'requires_action',
      paymentId: expect.stringMatching(/^seti_/),
      redirectUrl: 'https://hooks.stripe.com/3d_secure_2/hosted?merchant=acct_1&setup_intent=seti_3ds',
      brand: 'visa',
      last4: '3220',
    });
    const paymentId = (challenged as { paymentId: string }).paymentId;
    expect(await gateway.retrieveCharge(req.idempotencyKey, { paymentId, sentAt: new Date() })).toEqual(challenged);
    stripe.completeChallenge(paymentId, 'succeeded');
    const customer = stripe.calls.find((call) => call.path === '/v1/setup_intents')!.form.get('customer');
    expect(await gateway.retrieveCharge(req.idempotencyKey, { paymentId, sentAt: new Date() })).toEqual({
      status: 'succeeded',
      paymentId,
      brand: 'visa',
      last4: '3220',
      recurringId: `${customer}/${stripe.setupIntents.get(paymentId)!.payment_method}`,
    });
    expect(stripe.calls.at(-1)).toMatchObject({ method: 'GET', path: `/v1/setup_intents/${paymentId}` });
    expect(stripe.calls.at(-1)!.form.get('expand[]')).toBe('payment_method');
    expect(intentCalls()).toEqual([]);
  });

  it('3-D Secure failed: last_setup_error setup_intent_authentication_failure → declined card_declined, the card from the error', async () => {
    const req = check('4000000000003220');
    const { paymentId } = (await gateway.charge(req)) as { paymentId: string };
    stripe.completeChallenge(paymentId, 'failed');
    expect(stripe.setupIntents.get(paymentId)).toMatchObject({ status: 'requires_payment_method', payment_method: null, last_setup_error: { code: 'setup_intent_authentication_failure' } });
    expect(await gateway.retrieveCharge(req.idempotencyKey, { paymentId, sentAt: new Date() })).toEqual({ status: 'declined', code: 'card_declined', paymentId, brand: 'visa', last4: '3220' });
  });

  it('retrieveCharge by key: no PaymentIntent carries it, so the SetupIntents created around the send are listed; null when Stripe never saw it', async () => {
    const req = check('4242424242424242');
    const sentAt = new Date();
    const checked = await gateway.charge(req);
    // The PaymentIntents' list first (page by page: the other tests made many), then the SetupIntents'.
    const listed = () => [...new Set(stripe.calls.map((call) => `${call.method} ${call.path}`))];
    stripe.calls.length = 0;
    expect(await gateway.retrieveCharge(req.idempotencyKey, { sentAt })).toEqual(checked);
    expect(listed()).toEqual(['GET /v1/payment_intents', 'GET /v1/setup_intents']);
    const sent = Math.floor(sentAt.getTime() / 1000);
    expect(Object.fromEntries(stripe.calls.at(-1)!.form)).toEqual({ 'created[gte]': String(sent - 300), 'created[lte]': String(sent + 1800), limit: '100', 'expand[]': 'data.payment_method' });
    stripe.calls.length = 0;
    expect(await gateway.retrieveCharge('subscription:sub_live_never:0:0', { sentAt })).toBeNull();
    expect(listed()).toEqual(['GET /v1/payment_intents', 'GET /v1/setup_intents']);
  });

  it('cancelCharge withdraws an unfinished challenge at the SetupIntents API (null: nothing checked), keyed and with Stripe\'s "abandoned" reason', async () => {
    const { paymentId } = (await gateway.charge(check('4000000000003220'))) as { paymentId: string };
    expect(await gateway.cancelCharge(paymentId)).toBeNull();
    expect(stripe.calls.at(-1)).toMatchObject({ method: 'POST', path: `/v1/setup_intents/${paymentId}/cancel`, headers: { 'idempotency-key': `cancel:${paymentId}` } });
    expect(stripe.calls.at(-1)!.form.get('cancellation_reason')).toBe('abandoned');
    expect(stripe.setupIntents.get(paymentId)).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });
    // Asked again: Stripe refuses (setup_intent_unexpected_state), the intent says canceled.
    expect(await gateway.cancelCharge(paymentId)).toBeNull();
    expect(stripe.calls.at(-1)).toMatchObject({ method: 'GET', path: `/v1/setup_intents/${paymentId}` });
    expect(intentCalls()).toEqual([]);
  });

  it('cancelCharge after the customer finished the challenge: the answer is the check, with its contract', async () => {
    const { paymentId } = (await gateway.charge(check('4000000000003220'))) as { paymentId: string };
    stripe.completeChallenge(paymentId, 'succeeded');
    expect(await gateway.cancelCharge(paymentId)).toMatchObject({ status: 'succeeded', paymentId, last4: '3220', recurringId: expect.stringMatching(/^cus_\d+\/pm_\d+$/) });
    expect(stripe.setupIntents.get(paymentId)!.status).toBe('succeeded');
  });

  it('a 5xx, a 429 or the key still in use (409) leaves the outcome of a check open → GatewayTimeoutError', async () => {
    await expect(gateway.charge(check('4000000000000119'))).rejects.toBeInstanceOf(GatewayTimeoutError);
    stripe.rateLimitNext();
    await expect(gateway.charge(check('4242424242424242'))).rejects.toBeInstanceOf(GatewayTimeoutError);
    const req = check('4000000000000259');
    const impatient = createLiveGateway({ secretKey: STRIPE_KEY, baseUrl: STRIPE_BASE_URL, timeoutMs: 1_000 });
    await expect(impatient.charge(req)).rejects.toBeInstanceOf(GatewayTimeoutError);
    await expect(gateway.charge(req)).rejects.toBeInstanceOf(GatewayTimeoutError);
    expect(stripe.calls.at(-1)).toMatchObject({ method: 'POST', path: '/v1/setup_intents', headers: { 'idempotency-key': req.idempotencyKey } });
    expect(intentCalls()).toEqual([]);
  });

  it("a charge above 0 but below Stripe's minimum (30 cents) stays a PaymentIntent: Stripe refuses it (400 amount_too_small) → GatewayRejectedError, nothing charged", async () => {
    const made = stripe.intents.size;
    const error = await gateway.charge(request('4242424242424242', { amount: 30, recurring: true })).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayRejectedError);
    expect((error as Error).message).toBe('Stripe refused the request (400 invalid_request_error amount_too_small).');
    expect(stripe.calls.map((call) => `${call.method} ${call.path}`)).toEqual(['POST /v1/customers', 'POST /v1/payment_intents']);
    expect(stripe.calls[1]!.form.get('amount')).toBe('30');
    expect(stripe.calls[1]!.form.get('setup_future_usage')).toBe('off_session');
    expect(stripe.intents.size).toBe(made);
  });
});
