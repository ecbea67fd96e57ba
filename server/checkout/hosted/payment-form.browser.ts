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
 *
 * Where the page asks for billing details (`data-billing-action`), it sends them as they change
 * (the billing fields only, never the card's) and puts the answer in place: the texts marked
 * `data-bind`, the total the form carries, or the fields the server refused. The server's word
 * on a billing field stands until the field is changed; it checks them all again at `Pay`.
 */
import type { DocumentLanguage } from '@/db/schema';
import { cardBrand, luhnValid } from '../../gateway/card-number';
import { isEmailAddress } from '../../kit/fields';
import { BILLING_FIELD_NAMES, correctionAlert, hostedMessage, type BillingFieldName, type HostedErrorCode, type HostedField } from '../../kit/hosted-page/messages';
import { parseCardExpiry } from '../card';
import type { BillingAnswer, PageTexts } from './billing';

/** In form order: the first invalid one gets the focus. */
const FIELDS: readonly HostedField[] = ['email', ...BILLING_FIELD_NAMES, 'card_number', 'expiry', 'cvc'];

/** Billing fields only the server checks (the country is checked here too: it must be chosen). */
const serverChecked = (name: string) => name !== 'country' && (BILLING_FIELD_NAMES as readonly string[]).includes(name);

/** How long typing pauses before the details are sent (a change, leaving the field, sends them at once). */
const TYPING_PAUSE_MS = 400;

/** The page's language (`<html lang>`): the script speaks it as the server does. */
const language: DocumentLanguage = document.documentElement.lang === 'de' ? 'de' : 'en';

const say = (code: HostedErrorCode) => hostedMessage(code, language)!.message;

function attach(form: HTMLFormElement): void {
  // The script shows its own messages; without it the browser's checks of `required` apply.
  form.noValidate = true;
  const [todayYear = 0, todayMonth = 0] = (form.dataset.today ?? '').split('-').map(Number);
  const input = (name: string) => form.querySelector<HTMLInputElement | HTMLSelectElement>(`input[name="${name}"], select[name="${name}"]`);
  const cardDigits = () => (input('card_number')?.value ?? '').replace(/[\s-]/g, '');

  /** What is wrong with a field, in the server's words; undefined when nothing (or it is read-only). */
  const problem = (name: HostedField): string | undefined => {
    const field = input(name);
    if (!field || ('readOnly' in field && field.readOnly) || serverChecked(name)) return undefined;
    const value = field.value.trim();
    switch (name) {
      case 'country':
        return value === '' ? field.dataset.missing : undefined;
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
    text.textContent = correctionAlert(invalid, language);
    alert.replaceChildren(text);
  };

  const present = FIELDS.filter((name) => input(name) !== null);
  const marked = () => present.filter((name) => input(name)?.getAttribute('aria-invalid') === 'true');

  form.addEventListener('submit', (event) => {
    const invalid = present.filter((name) => {
      if (serverChecked(name)) return marked().includes(name);
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

  const billingAction = form.dataset.billingAction;
  if (billingAction) attachBilling(form, billingAction, show, () => document.getElementById('form-error') && alertFor(marked()));
}

/**
 * Sends the billing details to `action` as they change and shows the answer: typing sends them
 * after a pause (its refusals wait for the field to be left), a change at once; only the answer
 * to the latest is shown.
 */
function attachBilling(form: HTMLFormElement, action: string, show: (name: HostedField, message: string | undefined) => void, refreshAlert: () => void): void {
  // The script shows the total as the details change: the form's button for that is not needed.
  form.querySelector('[data-update-total]')?.remove();
  const value = (name: BillingFieldName) => form.querySelector<HTMLInputElement | HTMLSelectElement>(`[name="${name}"]`)?.value ?? '';
  let latest = 0;
  let pause: ReturnType<typeof setTimeout> | undefined;

  const apply = (answer: BillingAnswer, showRefusals: boolean) => {
    if (answer.status === 'closed' || answer.status === 'not_found') {
      window.location.reload();
      return;
    }
    if (answer.status === 'refused') {
      if (!showRefusals) return;
      const messages = new Map<string, string>(answer.errors.map((error) => [error.field, error.message]));
      for (const name of BILLING_FIELD_NAMES) show(name, messages.get(name));
      refreshAlert();
      return;
    }
    if (answer.status !== 'taxed') return;
    for (const element of document.querySelectorAll<HTMLElement>('[data-bind]')) {
      const text = answer.texts[element.dataset.bind as keyof PageTexts];
      if (text !== undefined) element.textContent = text;
    }
    document.title = answer.texts.title;
    const shownTotal = form.querySelector<HTMLInputElement>('input[name="shown_total"]');
    if (shownTotal) shownTotal.value = String(answer.shownTotal);
    const unconfirmed = form.querySelector<HTMLElement>('[data-vat-unconfirmed]');
    if (unconfirmed) unconfirmed.hidden = !answer.vatIdUnconfirmed;
    // What the page said of an earlier total no longer holds.
    document.getElementById('form-status')?.remove();
    for (const name of BILLING_FIELD_NAMES) show(name, undefined);
    refreshAlert();
  };

  const send = async (showRefusals: boolean) => {
    clearTimeout(pause);
    latest += 1;
    const sent = latest;
    let answer: BillingAnswer;
    try {
      const response = await fetch(action, { method: 'POST', body: new URLSearchParams(BILLING_FIELD_NAMES.map((name) => [name, value(name)])), headers: { accept: 'application/json' } });
      answer = (await response.json()) as BillingAnswer;
    } catch {
      // Offline or refused (429): the page stays as it is, and `Pay` is checked by the server.
      return;
    }
    if (sent === latest) apply(answer, showRefusals);
  };

  const isBilling = (target: EventTarget | null) => (BILLING_FIELD_NAMES as readonly string[]).includes((target as HTMLInputElement | null)?.name ?? '');
  form.addEventListener('change', (event) => {
    if (isBilling(event.target)) void send(true);
  });
  form.addEventListener('input', (event) => {
    if (!isBilling(event.target) || (event.target as HTMLElement).tagName === 'SELECT') return;
    clearTimeout(pause);
    pause = setTimeout(() => void send(false), TYPING_PAUSE_MS);
  });
}

const form = document.querySelector<HTMLFormElement>('form[data-card-form]');
if (form) attach(form);
