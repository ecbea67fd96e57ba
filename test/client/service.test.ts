// @vitest-environment happy-dom
import { delay, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { DEFAULT_API_BASE_URL, loadService, Service } from '@/packages/client';
import { API, CARD, CLIENT_SECRET, deferred, PK_LIVE, PK_TEST, SESSION_ID, sessionBody, spyOnNavigation, THREE_D_SECURE, useConfirmApi } from './support';

const confirmApi = useConfirmApi();
const service = () => loadService(PK_TEST, { apiBaseUrl: API });

describe('loadService', () => {
  it('creates a client synchronously from a pk_test_ or pk_live_ key', () => {
    const test = loadService(PK_TEST);
    expect(test).toBeInstanceOf(Service);
    expect(test).toMatchObject({ publishableKey: PK_TEST, livemode: false, apiBaseUrl: DEFAULT_API_BASE_URL });
    expect(loadService(PK_LIVE, { apiBaseUrl: 'https://pay.example/some/path' })).toMatchObject({ livemode: true, apiBaseUrl: 'https://pay.example' });
  });

  it('refuses anything but a publishable key with a clear error; a secret key is never echoed', () => {
    const secret = 'sk_test_0123456789abcdefghijABCDEFGHIJ';
    expect(() => loadService(secret)).toThrow(/publishable key starting with pk_test_ or pk_live_/);
    expect(() => loadService(secret)).toThrow(/secret key must never be used in a browser/);
    expect(() => loadService(secret)).not.toThrow(new RegExp(secret));
    for (const value of ['', 'pk_', 'pk_prod_abc', 'PK_TEST_abc', ' pk_test_abc', 'rk_test_abc']) expect(() => loadService(value), value).toThrow(/pk_test_ or pk_live_/);
    expect(() => loadService(undefined as unknown as string)).toThrow(/pk_test_ or pk_live_/);
  });

  it('apiBaseUrl must be an absolute http(s) URL', () => {
    for (const apiBaseUrl of ['javascript:alert(1)', '/api', 'pay.example']) expect(() => loadService(PK_TEST, { apiBaseUrl })).toThrow(/apiBaseUrl/);
  });
});

describe('redirectToCheckout (scheme-checked, live keys require HTTPS)', () => {
  it('navigates to an absolute http(s) URL and resolves to {}', async () => {
    const assign = spyOnNavigation();
    expect(await service().redirectToCheckout({ url: 'http://localhost:3000/checkout/cs_test_x?expires=1&signature=s' })).toEqual({});
    expect(assign).toHaveBeenCalledWith('http://localhost:3000/checkout/cs_test_x?expires=1&signature=s');
  });

  it('javascript:, data:, relative URLs → validation_error unsafe_redirect_url, no navigation', async () => {
    const assign = spyOnNavigation();
    for (const url of ['javascript:alert(document.cookie)', 'data:text/html,<script>alert(1)</script>', '/checkout/cs_test_x', '']) {
      expect(await service().redirectToCheckout({ url })).toEqual({ error: { type: 'validation_error', code: 'unsafe_redirect_url', message: expect.any(String), param: 'url' } });
    }
    expect(assign).not.toHaveBeenCalled();
  });

  it('a live key refuses http (insecure_redirect_url) and follows https', async () => {
    const assign = spyOnNavigation();
    const live = loadService(PK_LIVE, { apiBaseUrl: API });
    expect((await live.redirectToCheckout({ url: 'http://pay.example/checkout/cs_live_x' })).error).toMatchObject({ type: 'validation_error', code: 'insecure_redirect_url' });
    expect(assign).not.toHaveBeenCalled();
    expect(await live.redirectToCheckout({ url: 'https://pay.example/checkout/cs_live_x' })).toEqual({});
    expect(assign).toHaveBeenCalledWith('https://pay.example/checkout/cs_live_x');
  });
});

describe('confirmCheckoutSession', () => {
  it('POSTs to <apiBaseUrl>/api/v1/checkout/sessions/{id}/confirm with Bearer pk_… and exactly { client_secret }; today’s answer → { error: three_d_secure_required }', async () => {
    const result = await service().confirmCheckoutSession({ clientSecret: CLIENT_SECRET, card: CARD });
    expect(result).toEqual({ error: { ...THREE_D_SECURE.error, status: 400 } });
    expect(confirmApi.seen).toEqual([{ id: SESSION_ID, authorization: `Bearer ${PK_TEST}`, contentType: 'application/json', body: { client_secret: CLIENT_SECRET } }]);
  });

  it('an explicit sessionId is used as given', async () => {
    await service().confirmCheckoutSession({ clientSecret: CLIENT_SECRET, sessionId: 'cs_test_other' });
    expect(confirmApi.seen[0]!.id).toBe('cs_test_other');
  });

  it('a session answer → { session }', async () => {
    confirmApi.answer(() => HttpResponse.json(sessionBody({ redirect_url: 'https://shop.example/thanks?session_id=x' })));
    expect(await service().confirmCheckoutSession({ clientSecret: CLIENT_SECRET })).toEqual({ session: sessionBody({ redirect_url: 'https://shop.example/thanks?session_id=x' }) });
  });

  it('API errors keep type, code, message, param and status', async () => {
    const cases = [
      [401, { type: 'authentication_error', code: 'invalid_client_secret', message: 'The client secret does not match this checkout session.', param: 'client_secret' }],
      [401, { type: 'authentication_error', code: 'environment_mismatch', message: 'Other mode.' }],
      [400, { type: 'invalid_request_error', code: 'session_expired', message: 'Expired.' }],
      [409, { type: 'invalid_request_error', code: 'session_payment_failed', message: 'Declined before.' }],
      [402, { type: 'card_error', code: 'card_declined', message: 'Declined.' }],
      [500, { type: 'api_error', code: 'internal_error', message: 'An internal error occurred.' }],
    ] as const;
    for (const [status, error] of cases) {
      confirmApi.answer(() => HttpResponse.json({ error }, { status }));
      expect(await service().confirmCheckoutSession({ clientSecret: CLIENT_SECRET })).toEqual({ error: { ...error, status } });
    }
  });

  it('429 carries retry_after from Retry-After (seconds or an HTTP date)', async () => {
    const limited = { type: 'rate_limit_error', code: 'rate_limited', message: 'Too many requests.' };
    confirmApi.answer(() => HttpResponse.json({ error: limited }, { status: 429, headers: { 'retry-after': '7' } }));
    expect(await service().confirmCheckoutSession({ clientSecret: CLIENT_SECRET })).toEqual({ error: { ...limited, status: 429, retry_after: 7 } });
    confirmApi.answer(() => HttpResponse.json({ error: limited }, { status: 429, headers: { 'retry-after': new Date(Date.now() + 120_000).toUTCString() } }));
    const { error } = await service().confirmCheckoutSession({ clientSecret: CLIENT_SECRET });
    // The date is whole seconds, and a loaded machine may take a moment to parse it.
    expect(error!.retry_after).toBeGreaterThanOrEqual(115);
    expect(error!.retry_after).toBeLessThanOrEqual(120);
    confirmApi.answer(() => HttpResponse.json({ error: limited }, { status: 429 }));
    expect((await service().confirmCheckoutSession({ clientSecret: CLIENT_SECRET })).error).toEqual({ ...limited, status: 429 });
  });

  it('a network failure → network_error; never a throw', async () => {
    confirmApi.answer(() => HttpResponse.error());
    expect(await service().confirmCheckoutSession({ clientSecret: CLIENT_SECRET })).toEqual({
      error: { type: 'network_error', code: 'network_error', message: expect.stringMatching(/may still have gone through/) },
    });
    const throwing = loadService(PK_TEST, {
      apiBaseUrl: API,
      fetch: () => {
        throw new TypeError('Failed to fetch');
      },
    });
    expect((await throwing.confirmCheckoutSession({ clientSecret: CLIENT_SECRET })).error).toMatchObject({ type: 'network_error', code: 'network_error' });
  });

  it('an unparsable or unexpected answer → invalid_response with the status', async () => {
    const answers: Array<[() => Response, number]> = [
      [() => new HttpResponse('<html>Bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }), 502],
      [() => new HttpResponse('{"id": "cs_test_', { status: 200, headers: { 'content-type': 'application/json' } }), 200],
      [() => HttpResponse.json({ ok: true }, { status: 200 }), 200],
      [() => HttpResponse.json({ message: 'nope' }, { status: 400 }), 400],
      [() => HttpResponse.json({ error: { type: 'made_up_error', code: 'x', message: 'y' } }, { status: 400 }), 400],
    ];
    for (const [respond, status] of answers) {
      confirmApi.answer(respond);
      expect(await service().confirmCheckoutSession({ clientSecret: CLIENT_SECRET })).toEqual({
        error: { type: 'api_error', code: 'invalid_response', status, message: expect.stringMatching(/may still have gone through/) },
      });
    }
  });

  it('a duplicate confirm while one is in flight → confirm_in_progress before any request; afterwards confirming works again', async () => {
    const hold = deferred();
    confirmApi.answer(async () => {
      await hold.promise;
      return HttpResponse.json(THREE_D_SECURE, { status: 400 });
    });
    const client = service();
    const first = client.confirmCheckoutSession({ clientSecret: CLIENT_SECRET });
    await expect.poll(() => confirmApi.seen.length).toBe(1);
    expect(await client.confirmCheckoutSession({ clientSecret: CLIENT_SECRET })).toEqual({ error: { type: 'validation_error', code: 'confirm_in_progress', message: expect.any(String) } });
    expect(confirmApi.seen).toHaveLength(1);
    hold.resolve();
    expect((await first).error?.code).toBe('three_d_secure_required');
    confirmApi.answer(() => HttpResponse.json(THREE_D_SECURE, { status: 400 }));
    expect((await client.confirmCheckoutSession({ clientSecret: CLIENT_SECRET })).error?.code).toBe('three_d_secure_required');
    expect(confirmApi.seen).toHaveLength(2);
  });

  it('the guard is per session: another session confirms meanwhile', async () => {
    confirmApi.answer(async () => {
      await delay(20);
      return HttpResponse.json(THREE_D_SECURE, { status: 400 });
    });
    const client = service();
    const results = await Promise.all([client.confirmCheckoutSession({ clientSecret: CLIENT_SECRET }), client.confirmCheckoutSession({ clientSecret: 'cs_test_zzzzzzzzzzzzzzzzzzzzzzzz_secret_abc' })]);
    expect(results.map((result) => result.error?.code)).toEqual(['three_d_secure_required', 'three_d_secure_required']);
  });

  it('local validation → validation_error with the field, no request (no attempt used)', async () => {
    const client = service();
    const cases = [
      [{ clientSecret: 'not-a-secret' }, 'invalid_client_secret', 'client_secret'],
      [{ clientSecret: CLIENT_SECRET, card: { ...CARD, number: '4242 4242 4242 4241' } }, 'invalid_card_number', 'card_number'],
      [{ clientSecret: CLIENT_SECRET, card: { ...CARD, expiry: '01/20' } }, 'expired_card', 'expiry'],
      [{ clientSecret: CLIENT_SECRET, card: { ...CARD, expiry: '13/30' } }, 'invalid_expiry', 'expiry'],
      [{ clientSecret: CLIENT_SECRET, card: { ...CARD, cvc: '1' } }, 'invalid_cvc', 'cvc'],
      [{ clientSecret: CLIENT_SECRET, card: CARD, email: 'not an email' }, 'invalid_email', 'email'],
    ] as const;
    for (const [params, code, param] of cases) {
      expect(await client.confirmCheckoutSession(params)).toEqual({ error: { type: 'validation_error', code, param, message: expect.any(String) } });
    }
    expect(confirmApi.seen).toHaveLength(0);
  });

  it('a live key sends nothing over plain http (its default included): validation_error insecure_api_base_url', async () => {
    for (const live of [loadService(PK_LIVE), loadService(PK_LIVE, { apiBaseUrl: 'http://pay.example' })]) {
      expect((await live.confirmCheckoutSession({ clientSecret: CLIENT_SECRET.replace('cs_test_', 'cs_live_') })).error).toMatchObject({ type: 'validation_error', code: 'insecure_api_base_url' });
    }
    expect(confirmApi.seen).toHaveLength(0);
  });
});
