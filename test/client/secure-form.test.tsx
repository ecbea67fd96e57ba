// @vitest-environment happy-dom
// @vitest-environment-options {"settings":{"enableIframePageLoading":true}}
import { cleanup, configure, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { setupServer } from 'msw/node';
import type { ReactNode } from 'react';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SecureCheckoutForm, ServiceProvider } from '@/packages/client';
import { API, CLIENT_SECRET, PK_TEST, SESSION_ID, sessionBody, spyOnNavigation, THREE_D_SECURE } from './support';

// waitFor and findBy wait 1 s by default: short for a loaded CI machine.
configure({ asyncUtilTimeout: 5_000 });

/**
 * SecureCheckoutForm's side of the frame protocol (packages/client/frame-protocol.ts); the frame itself
 * runs in Chromium (test/browser/demo.test.ts).
 */
const frameServer = setupServer(http.get(`${API}/embed/card`, () => new HttpResponse('<!doctype html><title>frame</title>', { headers: { 'content-type': 'text/html' } })));
beforeAll(() => frameServer.listen({ onUnhandledRequest: 'error' }));
afterAll(() => frameServer.close());
afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const CHECKOUT_URL = `${API}/checkout/${SESSION_ID}?expires=1&signature=abc`;
const wrapper = ({ children }: { children: ReactNode }) => (
  <ServiceProvider publishableKey={PK_TEST} apiBaseUrl={API}>
    {children}
  </ServiceProvider>
);

async function renderForm(props: Partial<Parameters<typeof SecureCheckoutForm>[0]> = {}) {
  const result = render(<SecureCheckoutForm clientSecret={CLIENT_SECRET} checkoutUrl={CHECKOUT_URL} {...props} />, { wrapper });
  const frame = (await screen.findByTitle('Secure card payment')) as HTMLIFrameElement;
  const post = vi.spyOn(frame.contentWindow!, 'postMessage').mockImplementation(() => {});
  const fromFrame = (type: string, fields: Record<string, unknown> = {}, origin = API, source: Window | null = frame.contentWindow) =>
    window.dispatchEvent(new MessageEvent('message', { data: { source: 'payments-card-frame', type, ...fields }, origin, source }));
  return { ...result, frame, post, fromFrame };
}

describe('SecureCheckoutForm', () => {
  it('frames <apiBaseUrl>/embed/card with this page’s origin; frameUrl overrides it', async () => {
    const { frame, unmount } = await renderForm();
    expect(frame.getAttribute('src')).toBe(`${API}/embed/card?origin=${encodeURIComponent(window.location.origin)}`);
    unmount();
    const custom = await renderForm({ frameUrl: `${API}/embed/card?theme=plain` });
    expect(custom.frame.getAttribute('src')).toBe(`${API}/embed/card?theme=plain&origin=${encodeURIComponent(window.location.origin)}`);
  });

  it('on ready, sends key, client secret and form props to the frame’s exact origin only', async () => {
    const { post, fromFrame } = await renderForm({ collectEmail: true, customerEmail: 'a@example.com', submitLabel: 'Pay now' });
    fromFrame('ready');
    expect(post).toHaveBeenCalledTimes(1);
    expect(post).toHaveBeenCalledWith(
      { source: 'payments-card-host', type: 'init', publishableKey: PK_TEST, clientSecret: CLIENT_SECRET, customerEmail: 'a@example.com', collectEmail: true, submitLabel: 'Pay now' },
      API,
    );
  });

  it('defaults: collectEmail false, submitLabel Pay', async () => {
    const { post, fromFrame } = await renderForm();
    fromFrame('ready');
    expect(post.mock.calls[0]![0]).toMatchObject({ collectEmail: false, submitLabel: 'Pay' });
  });

  it('ignores messages from another origin or another window', async () => {
    const onError = vi.fn();
    const { post, fromFrame } = await renderForm({ onError });
    fromFrame('ready', {}, 'https://evil.example');
    fromFrame('ready', {}, API, window);
    fromFrame('result', { result: { error: THREE_D_SECURE.error } }, 'https://evil.example');
    expect(post).not.toHaveBeenCalled();
    expect(onError).not.toHaveBeenCalled();
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('three_d_secure_required from the frame: onError, an alert, and the continue button to the hosted page', async () => {
    const user = userEvent.setup();
    const assign = spyOnNavigation();
    const onError = vi.fn();
    const { fromFrame } = await renderForm({ onError });
    fromFrame('result', { result: { error: { ...THREE_D_SECURE.error, status: 400 } } });
    expect((await screen.findByRole('alert')).textContent).toContain('3-D Secure');
    expect(onError).toHaveBeenCalledWith({ ...THREE_D_SECURE.error, status: 400 });
    await user.click(screen.getByRole('button', { name: 'Continue on the secure payment page' }));
    expect(assign).toHaveBeenCalledWith(CHECKOUT_URL);
  });

  it('field errors stay in the frame: onError only, no alert in the page', async () => {
    const onError = vi.fn();
    const { fromFrame } = await renderForm({ onError });
    const error = { type: 'validation_error', code: 'invalid_card_number', message: 'Your card number is incomplete or not valid.', param: 'card_number' };
    fromFrame('result', { result: { error } });
    expect(onError).toHaveBeenCalledWith(error);
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('a session from the frame: onSuccess(session), by default a redirect to redirect_url; processing is reflected', async () => {
    const assign = spyOnNavigation();
    const onSuccess = vi.fn();
    const { fromFrame, container, unmount } = await renderForm({ onSuccess, className: 'merchant' });
    expect(container.querySelector('.merchant')).toBeTruthy();
    fromFrame('processing', { processing: true });
    await waitFor(() => expect(container.querySelector('.merchant')!.getAttribute('aria-busy')).toBe('true'));
    fromFrame('result', { result: { session: sessionBody() } });
    expect(onSuccess).toHaveBeenCalledWith(sessionBody());
    unmount();
    const other = await renderForm();
    other.fromFrame('result', { result: { session: sessionBody({ redirect_url: 'https://shop.example/thanks' }) } });
    expect(assign).toHaveBeenCalledWith('https://shop.example/thanks');
  });

  it('resizes the frame to the height it reports', async () => {
    const { frame, fromFrame } = await renderForm();
    fromFrame('resize', { height: 412.5 });
    await waitFor(() => expect(frame.style.height).toBe('413px'));
  });
});
