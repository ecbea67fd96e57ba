// @vitest-environment happy-dom
import { act, cleanup, configure, render, renderHook, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { HttpResponse } from 'msw';
import type { ReactNode } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CheckoutForm, ServiceProvider, useCheckout, useService, type ServiceError } from '@/packages/client';
import { API, CARD, CLIENT_SECRET, deferred, PK_TEST, SESSION_ID, sessionBody, spyOnNavigation, THREE_D_SECURE, useConfirmApi } from './support';

// waitFor and findBy wait 1 s by default: short for a loaded CI machine.
configure({ asyncUtilTimeout: 5_000 });

const confirmApi = useConfirmApi();
afterEach(cleanup);

const CHECKOUT_URL = `${API}/checkout/${SESSION_ID}?expires=1&signature=abc`;
const wrapper = ({ children }: { children: ReactNode }) => (
  <ServiceProvider publishableKey={PK_TEST} apiBaseUrl={API}>
    {children}
  </ServiceProvider>
);

describe('ServiceProvider, useService, useCheckout', () => {
  it('useService returns the provider’s client', () => {
    const { result } = renderHook(() => useService(), { wrapper });
    expect(result.current).toMatchObject({ publishableKey: PK_TEST, apiBaseUrl: API, livemode: false });
  });

  it('outside a provider useService and useCheckout throw that they must be used inside <ServiceProvider>', () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(() => renderHook(() => useService())).toThrow(/must be used inside <ServiceProvider>/);
    expect(() => renderHook(() => useCheckout())).toThrow(/must be used inside <ServiceProvider>/);
  });

  it('the provider refuses a secret key', () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(() => render(<ServiceProvider publishableKey="sk_test_abc">x</ServiceProvider>)).toThrow(/pk_test_ or pk_live_/);
  });

  it('useCheckout: { confirm, processing, error, session }; processing while in flight; a duplicate is dropped and leaves the state alone', async () => {
    const hold = deferred();
    confirmApi.answer(async () => {
      await hold.promise;
      return HttpResponse.json(THREE_D_SECURE, { status: 400 });
    });
    const { result } = renderHook(() => useCheckout(), { wrapper });
    expect(result.current).toEqual({ confirm: expect.any(Function), processing: false, error: null, session: null });
    let first!: Promise<unknown>;
    act(() => {
      first = result.current.confirm({ clientSecret: CLIENT_SECRET });
    });
    expect(result.current.processing).toBe(true);
    await waitFor(() => expect(confirmApi.seen).toHaveLength(1));
    let duplicate: unknown;
    await act(async () => {
      duplicate = await result.current.confirm({ clientSecret: CLIENT_SECRET });
    });
    expect(duplicate).toEqual({ error: expect.objectContaining({ code: 'confirm_in_progress' }) });
    expect(result.current).toMatchObject({ processing: true, error: null });
    expect(confirmApi.seen).toHaveLength(1);
    await act(async () => {
      hold.resolve();
      await first;
    });
    expect(result.current).toMatchObject({ processing: false, error: { code: 'three_d_secure_required', status: 400 }, session: null });
  });

  it('useCheckout: a session answer sets session and clears error', async () => {
    confirmApi.answer(() => HttpResponse.json(sessionBody()));
    const { result } = renderHook(() => useCheckout(), { wrapper });
    await act(async () => {
      expect(await result.current.confirm({ clientSecret: CLIENT_SECRET })).toEqual({ session: sessionBody() });
    });
    expect(result.current).toMatchObject({ processing: false, error: null, session: sessionBody() });
  });
});

async function fillCard(user: ReturnType<typeof userEvent.setup>, card = CARD) {
  await user.type(screen.getByLabelText('Card number'), card.number);
  await user.type(screen.getByLabelText('Expiry'), card.expiry);
  await user.type(screen.getByLabelText('CVC'), card.cvc);
}

describe('CheckoutForm', () => {
  it('labelled fields, default submit label Pay, no Email unless collectEmail, className on the form', () => {
    const { container } = render(<CheckoutForm clientSecret={CLIENT_SECRET} className="merchant-form" />, { wrapper });
    for (const label of ['Card number', 'Expiry', 'CVC']) expect(screen.getByLabelText(label)).toBeTruthy();
    expect(screen.queryByLabelText('Email')).toBeNull();
    expect(screen.getByRole('button', { name: 'Pay' })).toBeTruthy();
    expect(container.querySelector('form')!.className).toBe('merchant-form');
  });

  it('formats the card number as typed', async () => {
    const user = userEvent.setup();
    render(<CheckoutForm clientSecret={CLIENT_SECRET} />, { wrapper });
    await user.type(screen.getByLabelText('Card number'), '4242424242424242');
    expect((screen.getByLabelText('Card number') as HTMLInputElement).value).toBe('4242 4242 4242 4242');
  });

  it('local errors: aria-invalid, error text tied by aria-describedby, focus on the first, onError(validation_error), nothing sent', async () => {
    const user = userEvent.setup();
    const onError = vi.fn();
    render(<CheckoutForm clientSecret={CLIENT_SECRET} collectEmail onError={onError} />, { wrapper });
    await user.type(screen.getByLabelText('Email'), 'nobody');
    await fillCard(user, { number: '4242 4242 4242 4241', expiry: '01/20', cvc: '12' });
    await user.click(screen.getByRole('button', { name: 'Pay' }));
    for (const label of ['Email', 'Card number', 'Expiry', 'CVC']) {
      const input = screen.getByLabelText(label);
      expect(input.getAttribute('aria-invalid'), label).toBe('true');
      expect(document.getElementById(input.getAttribute('aria-describedby')!)!.textContent, label).toBeTruthy();
    }
    expect(document.activeElement).toBe(screen.getByLabelText('Email'));
    expect(onError).toHaveBeenCalledWith({ type: 'validation_error', code: 'invalid_email', param: 'email', message: expect.any(String) });
    expect(screen.queryByRole('alert')).toBeNull();
    expect(confirmApi.seen).toHaveLength(0);
  });

  it('three_d_secure_required: an alert saying so and a button that continues on the hosted page (checkoutUrl)', async () => {
    const user = userEvent.setup();
    const assign = spyOnNavigation();
    const onError = vi.fn();
    render(<CheckoutForm clientSecret={CLIENT_SECRET} checkoutUrl={CHECKOUT_URL} customerEmail="a@example.com" collectEmail onError={onError} />, { wrapper });
    expect((screen.getByLabelText('Email') as HTMLInputElement).value).toBe('a@example.com');
    await fillCard(user);
    await user.click(screen.getByRole('button', { name: 'Pay' }));
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('3-D Secure');
    expect(onError).toHaveBeenCalledWith({ ...THREE_D_SECURE.error, status: 400 });
    expect(confirmApi.seen).toEqual([expect.objectContaining({ id: SESSION_ID, body: { client_secret: CLIENT_SECRET } })]);
    await user.click(screen.getByRole('button', { name: 'Continue on the secure payment page' }));
    expect(assign).toHaveBeenCalledWith(CHECKOUT_URL);
  });

  it('without checkoutUrl the outcome is shown without a button; sessionId and submitLabel are used as given', async () => {
    const user = userEvent.setup();
    render(<CheckoutForm clientSecret={CLIENT_SECRET} sessionId="cs_test_given" submitLabel="Pay €19.99" />, { wrapper });
    await fillCard(user);
    await user.click(screen.getByRole('button', { name: 'Pay €19.99' }));
    expect((await screen.findByRole('alert')).textContent).toContain('3-D Secure');
    expect(screen.queryByRole('button', { name: 'Continue on the secure payment page' })).toBeNull();
    expect(confirmApi.seen[0]!.id).toBe('cs_test_given');
  });

  it('a double submit sends one confirm', async () => {
    const user = userEvent.setup();
    const hold = deferred();
    confirmApi.answer(async () => {
      await hold.promise;
      return HttpResponse.json(THREE_D_SECURE, { status: 400 });
    });
    render(<CheckoutForm clientSecret={CLIENT_SECRET} />, { wrapper });
    await fillCard(user);
    const form = screen.getByRole('button', { name: 'Pay' }).closest('form')!;
    act(() => {
      form.requestSubmit();
      form.requestSubmit();
    });
    await waitFor(() => expect(confirmApi.seen).toHaveLength(1));
    expect(screen.getByRole('button', { name: 'Processing…' }).hasAttribute('disabled')).toBe(true);
    hold.resolve();
    await screen.findByRole('alert');
    expect(confirmApi.seen).toHaveLength(1);
  });

  it('network_error and invalid_response say the payment may have gone through', async () => {
    const user = userEvent.setup();
    const errors: ServiceError[] = [];
    confirmApi.answer(() => HttpResponse.error());
    render(<CheckoutForm clientSecret={CLIENT_SECRET} onError={(error) => errors.push(error)} />, { wrapper });
    await fillCard(user);
    await user.click(screen.getByRole('button', { name: 'Pay' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/may still have gone through/);
    expect(errors.map((error) => error.type)).toEqual(['network_error']);
  });

  it('on success: onSuccess(session) when given, else a redirect to session.redirect_url', async () => {
    const user = userEvent.setup();
    const assign = spyOnNavigation();
    const redirectUrl = 'https://shop.example/thanks?session_id=cs_test_x';
    confirmApi.answer(() => HttpResponse.json(sessionBody({ redirect_url: redirectUrl })));
    const onSuccess = vi.fn();
    const { unmount } = render(<CheckoutForm clientSecret={CLIENT_SECRET} onSuccess={onSuccess} />, { wrapper });
    await fillCard(user);
    await user.click(screen.getByRole('button', { name: 'Pay' }));
    await waitFor(() => expect(onSuccess).toHaveBeenCalledWith(sessionBody({ redirect_url: redirectUrl })));
    expect(assign).not.toHaveBeenCalled();
    unmount();

    render(<CheckoutForm clientSecret={CLIENT_SECRET} />, { wrapper });
    await fillCard(user);
    await user.click(screen.getByRole('button', { name: 'Pay' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith(redirectUrl));
  });

  it('the default redirect is scheme-checked: a javascript: redirect_url is not followed', async () => {
    const user = userEvent.setup();
    const assign = spyOnNavigation();
    confirmApi.answer(() => HttpResponse.json(sessionBody({ redirect_url: 'javascript:alert(1)' })));
    render(<CheckoutForm clientSecret={CLIENT_SECRET} />, { wrapper });
    await fillCard(user);
    await user.click(screen.getByRole('button', { name: 'Pay' }));
    await waitFor(() => expect(confirmApi.seen).toHaveLength(1));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Pay' }).hasAttribute('disabled')).toBe(false));
    expect(assign).not.toHaveBeenCalled();
  });
});
