/**
 * The one script of the hosted payment forms (checkout and subscription), run in the browser:
 * `npm run form-script:write` bundles this file into payment-form-script.ts, which the pages
 * carry inline and their CSP allows by its hash, nothing else.
 *
 * It checks the fields before the form is sent, so a mistake the customer can correct (a digit
 * missing, the expiry typed `13/30`) shows on its field at once, with the focus on the first
 * one, and never costs a round-trip that clears the card number; and it marks the card's
 * network as the number is typed. The form works without it: the server checks everything again
 * and decides (server/checkout/card.ts). The checks are the server's own functions, bundled.
 *
 * It acts on a form marked `data-card-form` whose `data-today="YYYY-MM"` is the month on the
 * store's clock (which decides what has expired), and writes the same markup the server renders
 * for an error (app/checkout/parts.tsx).
 */
import { cardBrand, luhnValid } from '../../gateway/card-number';
import { isEmailAddress } from '../../kit/fields';
import { correctionAlert, hostedMessage, type HostedErrorCode, type HostedField } from '../../kit/hosted-page/messages';
import { parseCardExpiry } from '../card';

/** In form order: the first invalid one gets the focus. */
const FIELDS: readonly HostedField[] = ['email', 'card_number', 'expiry', 'cvc'];

const say = (code: HostedErrorCode) => hostedMessage(code)!.message;

function attach(form: HTMLFormElement): void {
  // The script shows its own messages; without it the browser's checks of `required` apply.
  form.noValidate = true;
  const [todayYear = 0, todayMonth = 0] = (form.dataset.today ?? '').split('-').map(Number);
  const input = (name: string) => form.querySelector<HTMLInputElement>(`input[name="${name}"]`);
  const cardDigits = () => (input('card_number')?.value ?? '').replace(/[\s-]/g, '');

  /** What is wrong with a field, in the server's words; undefined when nothing (or it is read-only). */
  const problem = (name: HostedField): string | undefined => {
    const field = input(name);
    if (!field || field.readOnly) return undefined;
    const value = field.value.trim();
    switch (name) {
      case 'email':
        return isEmailAddress(value) ? undefined : say('email_invalid');
      case 'card_number':
        return /^\d{12,19}$/.test(cardDigits()) && luhnValid(cardDigits()) ? undefined : say('invalid_card_number');
      case 'expiry': {
        const expiry = parseCardExpiry(value);
        if (!expiry) return say('invalid_expiry');
        return expiry.year * 12 + expiry.month < todayYear * 12 + todayMonth ? say('expired_card') : undefined;
      }
      case 'cvc':
        return (cardBrand(cardDigits()) === 'amex' ? /^\d{3,4}$/ : /^\d{3}$/).test(value) ? undefined : say('invalid_cvc');
    }
  };

  /** The error under the field, tied to it by aria-describedby; none when `message` is undefined. */
  const show = (name: HostedField, message: string | undefined) => {
    const field = input(name);
    if (!field) return;
    const errorId = `${name}-error`;
    const described = (field.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id !== '' && id !== errorId);
    let error = document.getElementById(errorId);
    if (message === undefined) {
      error?.remove();
      field.removeAttribute('aria-invalid');
    } else {
      if (!error) {
        error = document.createElement('p');
        error.id = errorId;
        error.className = 'co-field-error';
        field.after(error);
      }
      error.textContent = message;
      field.setAttribute('aria-invalid', 'true');
      described.push(errorId);
    }
    if (described.length > 0) field.setAttribute('aria-describedby', described.join(' '));
    else field.removeAttribute('aria-describedby');
    field.closest('.co-field')?.classList.toggle('co-field-invalid', message !== undefined);
  };

  /** One alert above the form naming what to correct; gone once nothing is left. */
  const alertFor = (invalid: readonly HostedField[]) => {
    let alert = document.getElementById('form-error');
    if (invalid.length === 0) return alert?.remove();
    if (!alert) {
      alert = document.createElement('div');
      alert.id = 'form-error';
      alert.className = 'co-alert';
      alert.setAttribute('role', 'alert');
      form.before(alert);
    }
    const text = document.createElement('p');
    text.textContent = correctionAlert(invalid);
    alert.replaceChildren(text);
  };

  const present = FIELDS.filter((name) => input(name) !== null);
  const marked = () => present.filter((name) => input(name)?.getAttribute('aria-invalid') === 'true');

  form.addEventListener('submit', (event) => {
    const invalid = present.filter((name) => {
      const message = problem(name);
      show(name, message);
      return message !== undefined;
    });
    if (invalid.length === 0) return;
    event.preventDefault();
    alertFor(invalid);
    input(invalid[0]!)?.focus();
  });

  form.addEventListener('input', (event) => {
    const name = (event.target as HTMLInputElement).name as HostedField;
    if (name === 'card_number') {
      const brands = form.querySelector<HTMLElement>('[data-brands]');
      if (brands) brands.dataset.brand = cardDigits() === '' ? '' : cardBrand(cardDigits());
    }
    // A field marked invalid is cleared as soon as it is right; the alert then names what is left.
    if (!marked().includes(name) || problem(name) !== undefined) return;
    show(name, undefined);
    if (document.getElementById('form-error')) alertFor(marked());
  });
}

const form = document.querySelector<HTMLFormElement>('form[data-card-form]');
if (form) attach(form);
