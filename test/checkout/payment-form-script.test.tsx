// @vitest-environment happy-dom
import { renderToStaticMarkup } from 'react-dom/server';
import { beforeEach, describe, expect, it } from 'vitest';
import { CardFields, Field, PaymentForm } from '@/app/checkout/parts';
import { PAYMENT_FORM_SCRIPT } from '@/server/checkout/hosted/payment-form-script';
import { bundlePaymentFormScript } from '@/scripts/write-payment-form-script';

/**
 * The hosted payment form's script (server/checkout/hosted/payment-form.browser.ts) on the form
 * markup the pages render; in Chromium on the real pages in test/browser/checkout.test.ts.
 */
const NOV_2026 = Date.UTC(2026, 10, 26) / 1000;

/** The form as the pages render it: the email to type (checkout), given read-only (subscription) or none (given by the session). */
function renderForm(email: 'typed' | 'given' | 'none' = 'typed') {
  document.body.innerHTML = renderToStaticMarkup(
    <section>
      <PaymentForm action="/checkout/cs_test_x/pay" readAt={NOV_2026}>
        {email === 'none' ? null : (
          <Field name="email" label="Email">
            {(props) => (email === 'typed' ? <input {...props} type="email" required /> : <input {...props} type="email" value="given@" readOnly />)}
          </Field>
        )}
        <CardFields fieldError={() => undefined} />
        <button type="submit">Pay €25.00</button>
      </PaymentForm>
    </section>,
  );
  // innerHTML does not run scripts; the page's own element is the one the browser runs.
  new Function(document.querySelector('script')!.textContent!)();
  return document.querySelector('form')!;
}

const field = (name: string) => document.querySelector<HTMLInputElement>(`input[name="${name}"]`)!;

function type(name: string, value: string) {
  field(name).value = value;
  field(name).dispatchEvent(new Event('input', { bubbles: true }));
}

/** Submits as the button would; true when the form was let through to the server. */
function submit(form: HTMLFormElement): boolean {
  return form.dispatchEvent(new Event('submit', { cancelable: true }));
}

function fill(values: Record<string, string>) {
  for (const [name, value] of Object.entries(values)) type(name, value);
}

const VALID = { email: 'ada@example.com', card_number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123' };

beforeEach(() => {
  document.body.innerHTML = '';
});

describe('the payment form script', () => {
  it('is the current bundle of payment-form.browser.ts with the server’s checks (run npm run form-script:write)', async () => {
    expect(PAYMENT_FORM_SCRIPT).toBe(await bundlePaymentFormScript());
  });

  it('every field wrong: nothing is sent; each field shows the server’s message, tied by aria-describedby; one alert names them; the focus is on the first', () => {
    const form = renderForm();
    expect(form.noValidate).toBe(true);
    fill({ email: 'ada@', card_number: '4242 4242 4242 4241', expiry: '13/30', cvc: '12' });
    expect(submit(form)).toBe(false);
    const messages = {
      email: 'Enter a valid email address for your receipt.',
      card_number: 'This card number is not valid. Check it and try again.',
      expiry: 'Enter the expiry date as MM/YY.',
      cvc: 'Enter the 3-digit security code from the back of the card.',
    };
    for (const [name, message] of Object.entries(messages)) {
      expect(field(name).getAttribute('aria-invalid')).toBe('true');
      const describedBy = field(name).getAttribute('aria-describedby')!.split(' ');
      expect(document.getElementById(describedBy[describedBy.length - 1]!)!.textContent).toBe(message);
      expect(field(name).closest('.co-field')!.classList.contains('co-field-invalid')).toBe(true);
    }
    // The hints stay described too.
    expect(field('expiry').getAttribute('aria-describedby')).toBe('expiry-hint expiry-error');
    const alerts = document.querySelectorAll('[role="alert"]');
    expect(alerts).toHaveLength(1);
    expect(alerts[0]!.textContent).toBe('Please correct the email address, card number, expiry date and security code (CVC) below.');
    expect(alerts[0]!.nextElementSibling).toBe(form);
    expect(document.activeElement).toBe(field('email'));
    // The typed card number stays: nothing was sent, nothing cleared.
    expect(field('card_number').value).toBe('4242 4242 4242 4241');
  });

  it('the expiry as people type it (1230, 12 30, 12/2030, 12-30, 1/30) passes; a month before the store’s is expired', () => {
    const form = renderForm();
    for (const expiry of ['1230', '12 30', '12/2030', '12-30', '1/30', '11/26', '112026']) {
      fill({ ...VALID, expiry });
      expect(submit(form), expiry).toBe(true);
      expect(field('expiry').hasAttribute('aria-invalid')).toBe(false);
    }
    fill({ ...VALID, expiry: '10/26' });
    expect(submit(form)).toBe(false);
    expect(document.getElementById('expiry-error')!.textContent).toBe('This card has expired. Use another card.');
    expect(document.activeElement).toBe(field('expiry'));
    for (const expiry of ['130', '12030', '00/30', 'Dec 30']) {
      fill({ ...VALID, expiry });
      expect(submit(form), expiry).toBe(false);
      expect(document.getElementById('expiry-error')!.textContent).toBe('Enter the expiry date as MM/YY.');
    }
  });

  it('a field is cleared as it is corrected, the alert then names what is left and goes with the last; then the form is sent', () => {
    const form = renderForm();
    fill({ ...VALID, card_number: '4242', cvc: '1' });
    expect(submit(form)).toBe(false);
    expect(document.getElementById('form-error')!.textContent).toBe('Please correct the card number and security code (CVC) below.');
    type('card_number', '4242 4242 4242 4242');
    expect(field('card_number').hasAttribute('aria-invalid')).toBe(false);
    expect(field('card_number').getAttribute('aria-describedby')).toBeNull();
    expect(document.getElementById('card_number-error')).toBeNull();
    expect(document.getElementById('form-error')!.textContent).toBe('Please correct the security code (CVC) below.');
    type('cvc', '12');
    expect(document.getElementById('cvc-error')!.textContent).toBe('Enter the 3-digit security code from the back of the card.');
    type('cvc', '123');
    expect(document.getElementById('form-error')).toBeNull();
    expect(document.querySelectorAll('.co-field-invalid')).toHaveLength(0);
    expect(submit(form)).toBe(true);
  });

  it('marks the card’s network as the number is typed; an Amex number takes a 4-digit CVC, a Visa number does not', () => {
    const form = renderForm('none');
    const brands = document.querySelector<HTMLElement>('[data-brands]')!;
    expect(brands.dataset.brand).toBeUndefined();
    expect([...brands.querySelectorAll('li')].map((mark) => mark.textContent)).toEqual(['Visa', 'Mastercard', 'Amex', 'Discover']);
    for (const [number, brand] of [
      ['4', 'visa'],
      ['5555', 'mastercard'],
      ['2221 00', 'mastercard'],
      ['37', 'amex'],
      ['6011', 'discover'],
      ['9', 'unknown'],
      ['', ''],
    ]) {
      type('card_number', number!);
      expect(brands.dataset.brand, number).toBe(brand);
    }
    fill({ card_number: '3782 822463 10005', expiry: '12/30', cvc: '1234' });
    expect(submit(form)).toBe(true);
    fill({ card_number: '4242 4242 4242 4242', cvc: '1234' });
    expect(submit(form)).toBe(false);
    // Without an email field the form checks the card alone.
    expect(document.getElementById('form-error')!.textContent).toBe('Please correct the security code (CVC) below.');
  });

  it('a read-only field (the subscription’s given email) is not checked', () => {
    const form = renderForm('given');
    fill({ card_number: VALID.card_number, expiry: VALID.expiry, cvc: VALID.cvc });
    expect(submit(form)).toBe(true);
    expect(field('email').hasAttribute('aria-invalid')).toBe(false);
  });
});
