// @vitest-environment happy-dom
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BillingFields, CardFields, PaymentForm } from '@/app/checkout/parts';
import type { BillingAnswer } from '@/server/checkout/hosted/billing';
import { billingFormFrom } from '@/server/vat/billing';

/**
 * The form's script where the page asks for billing details (server/checkout/hosted/payment-form.browser.ts):
 * what it sends as they change, and how it puts the answer in place; in Chromium on the real pages
 * in test/browser/buyer-country.test.ts.
 */
const NOV_2026 = Date.UTC(2026, 10, 26) / 1000;
const ACTION = '/checkout/cs_test_x/billing?expires=1&signature=s';

const GERMANY: BillingAnswer = {
  status: 'taxed',
  shownTotal: 2379,
  texts: { title: 'Pay €23.79 to Atlas Books', heading: '€23.79', subtotal: '€19.99', 'tax-label': 'VAT 19% (Germany)', tax: '€3.80', total: '€23.79', pay: 'Pay €23.79' },
  vatIdUnconfirmed: false,
};

let answers: BillingAnswer[] = [];
const sent: { url: string; body: Record<string, string> }[] = [];

/** The page's summary and form as the checkout renders them where it asks for billing details. */
function renderPage() {
  document.title = 'Pay €19.99 to Atlas Books';
  document.body.innerHTML = renderToStaticMarkup(
    <main>
      <span data-bind="heading">€19.99</span>
      <dl>
        <dd data-bind="subtotal">€19.99</dd>
        <dt data-bind="tax-label">VAT (select your country)</dt>
        <dd data-bind="tax">€0.00</dd>
        <dd data-bind="total">€19.99</dd>
      </dl>
      <div role="status" id="form-status">
        <p>The total has changed to €19.99. Please check it and confirm.</p>
      </div>
      <PaymentForm action="/checkout/cs_test_x/pay" readAt={NOV_2026} billingAction={ACTION}>
        <BillingFields form={billingFormFrom(null)} errors={{}} vatIdUnconfirmed={false} shownTotal={1999} />
        <CardFields fieldError={() => undefined} />
        <button type="submit" data-bind="pay">
          Pay €19.99
        </button>
      </PaymentForm>
    </main>,
  );
  new Function(document.querySelector('script')!.textContent!)();
  return document.querySelector('form')!;
}

const field = (name: string) => document.querySelector<HTMLInputElement | HTMLSelectElement>(`[name="${name}"]`)!;
const bound = (name: string) => document.querySelector(`[data-bind="${name}"]`)!.textContent;

function change(name: string, value: string) {
  field(name).value = value;
  field(name).dispatchEvent(new Event('input', { bubbles: true }));
  field(name).dispatchEvent(new Event('change', { bubbles: true }));
}

/** Lets the script's fetch and its answer run. */
const settle = () => vi.advanceTimersByTimeAsync(0);

beforeEach(() => {
  // Fake timers in every test: a typing pause a test leaves pending is dropped with them instead of
  // sending into the next test.
  vi.useFakeTimers();
  answers = [];
  sent.length = 0;
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init: RequestInit) => {
      sent.push({ url, body: Object.fromEntries(new URLSearchParams(init.body as URLSearchParams)) });
      return new Response(JSON.stringify(answers.shift()), { headers: { 'content-type': 'application/json' } });
    }),
  );
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('the billing details, with the form’s script', () => {
  it('no Update total button; a country chosen sends the billing fields alone, and the answer’s texts, title and total take their places', async () => {
    renderPage();
    expect(document.querySelector('[data-update-total]')).toBeNull();
    field('card_number').value = '4242 4242 4242 4242';
    answers.push(GERMANY);
    change('country', 'DE');
    await settle();
    expect(sent).toEqual([{ url: ACTION, body: { country: 'DE', name: '', company: '', vat_id: '', address_line1: '', postal_code: '', city: '' } }]);
    expect(['heading', 'subtotal', 'tax-label', 'tax', 'total', 'pay'].map(bound)).toEqual(['€23.79', '€19.99', 'VAT 19% (Germany)', '€3.80', '€23.79', 'Pay €23.79']);
    expect(document.title).toBe('Pay €23.79 to Atlas Books');
    expect(field('shown_total').value).toBe('2379');
    // What the page said of the earlier total is gone.
    expect(document.getElementById('form-status')).toBeNull();
    const unconfirmed = document.querySelector<HTMLElement>('[data-vat-unconfirmed]')!;
    expect(unconfirmed.hidden).toBe(true);

    answers.push({ ...GERMANY, vatIdUnconfirmed: true });
    change('vat_id', 'ATU13585627');
    await settle();
    expect(unconfirmed.hidden).toBe(false);
    expect(unconfirmed.textContent).toBe('Your VAT ID could not be confirmed, so VAT is charged. Ask us for a corrected invoice once it is confirmed.');
  });

  it('a refusal marks its fields with their messages; an edit clears the mark; Pay is held while the server’s mark stands', async () => {
    const form = renderPage();
    answers.push({ status: 'refused', alert: 'Please correct the VAT ID below.', errors: [{ field: 'vat_id', message: 'This VAT ID belongs to another country than the billing country.' }] });
    change('vat_id', 'ATU13585627');
    await settle();
    expect(field('vat_id').getAttribute('aria-invalid')).toBe('true');
    expect(field('vat_id').getAttribute('aria-describedby')).toBe('vat_id-hint vat_id-error');
    expect(document.getElementById('vat_id-error')!.textContent).toBe('This VAT ID belongs to another country than the billing country.');
    expect(bound('tax-label')).toBe('VAT (select your country)');

    field('country').value = 'DE';
    for (const [name, value] of Object.entries({ card_number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123' })) field(name).value = value;
    expect(form.dispatchEvent(new Event('submit', { cancelable: true }))).toBe(false);
    expect(document.getElementById('form-error')!.textContent).toBe('Please correct the VAT ID below.');

    field('vat_id').value = '';
    field('vat_id').dispatchEvent(new Event('input', { bubbles: true }));
    expect(field('vat_id').hasAttribute('aria-invalid')).toBe(false);
    expect(document.getElementById('form-error')).toBeNull();
    expect(form.dispatchEvent(new Event('submit', { cancelable: true }))).toBe(true);
  });

  it('Pay without a country is held with the server’s message on the country', () => {
    const form = renderPage();
    for (const [name, value] of Object.entries({ card_number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123' })) field(name).value = value;
    expect(form.dispatchEvent(new Event('submit', { cancelable: true }))).toBe(false);
    expect(field('country').getAttribute('aria-invalid')).toBe('true');
    expect(document.getElementById('country-error')!.textContent).toBe('Select your country.');
    expect(document.getElementById('form-error')!.textContent).toBe('Please correct the country below.');
    expect(document.activeElement).toBe(field('country'));
    expect(sent).toEqual([]);
  });

  it('typing sends after a pause without showing refusals; only the latest answer is shown', async () => {
    renderPage();
    field('country').value = 'DE';
    answers.push({
      status: 'refused',
      alert: 'Please correct the VAT ID below.',
      errors: [{ field: 'vat_id', message: 'This VAT ID is not valid for its country: check it, or leave the field empty to buy as a consumer.' }],
    });
    field('vat_id').value = 'DE12';
    field('vat_id').dispatchEvent(new Event('input', { bubbles: true }));
    await vi.advanceTimersByTimeAsync(399);
    expect(sent).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent.map((request) => request.body.vat_id)).toEqual(['DE12']);
    expect(field('vat_id').hasAttribute('aria-invalid')).toBe(false);

    // Two changes in a row: the first one's answer arrives after the second was sent, and is dropped.
    let release: (response: Response) => void = () => {};
    vi.mocked(fetch).mockImplementationOnce(() => new Promise<Response>((resolve) => (release = resolve)));
    answers.push(GERMANY);
    change('country', 'AT');
    change('country', 'DE');
    await vi.advanceTimersByTimeAsync(0);
    release(new Response(JSON.stringify({ ...GERMANY, shownTotal: 2399, texts: { ...GERMANY.texts, 'tax-label': 'VAT 20% (Austria)', total: '€23.99' } })));
    await vi.advanceTimersByTimeAsync(0);
    expect(bound('tax-label')).toBe('VAT 19% (Germany)');
    expect(field('shown_total').value).toBe('2379');
  });
});
