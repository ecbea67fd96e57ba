/**
 * The script of the card frame (app/embed/card), bundled into
 * app/embed/card/card-frame-script.ts by `npm run client:build`. It runs on the service origin:
 * it takes the key and client secret from the embedding page (only from the origin named in its
 * address, which the frame's CSP also requires as its only ancestor), checks the fields, sends
 * the confirm to its own origin, and tells the page the outcome, never the card.
 */
import { checkoutFieldErrors, CHECKOUT_FIELDS, firstFieldError, formatCardNumber, type CheckoutField } from '../card';
import { validationError } from '../errors';
import { frameMessage, isFrameInit, type FrameEvent, type FrameInit } from '../frame-protocol';
import { loadService, type Service } from '../service';

const parentOrigin = new URLSearchParams(window.location.search).get('origin');
const form = document.querySelector('form')!;
const submit = form.querySelector('button')!;
const input = (field: CheckoutField) => document.getElementById(field) as HTMLInputElement;
let service: Service | undefined;
let init: FrameInit | undefined;

function post(event: FrameEvent) {
  if (parentOrigin && window.parent !== window) window.parent.postMessage(frameMessage(event), parentOrigin);
}

function showFieldError(field: CheckoutField, message: string | undefined) {
  const element = input(field);
  const text = document.getElementById(`${field}-error`)!;
  text.textContent = message ?? '';
  text.hidden = !message;
  if (message) {
    element.setAttribute('aria-invalid', 'true');
    element.setAttribute('aria-describedby', text.id);
  } else {
    element.removeAttribute('aria-invalid');
    element.removeAttribute('aria-describedby');
  }
}

function setProcessing(processing: boolean) {
  submit.disabled = processing || !service;
  submit.textContent = processing ? 'Processing…' : (init?.submitLabel ?? 'Pay');
  post({ type: 'processing', processing });
}

window.addEventListener('message', (event) => {
  if (event.origin !== parentOrigin || event.source !== window.parent || !isFrameInit(event.data) || init) return;
  init = event.data;
  try {
    service = loadService(init.publishableKey, { apiBaseUrl: window.location.origin });
  } catch (error) {
    post({ type: 'result', result: { error: validationError('invalid_publishable_key', (error as Error).message) } });
    return;
  }
  const email = input('email');
  email.closest('div')!.hidden = !init.collectEmail;
  email.disabled = !init.collectEmail;
  email.value = init.customerEmail ?? '';
  setProcessing(false);
});

input('card_number').addEventListener('input', (event) => {
  const field = event.target as HTMLInputElement;
  field.value = formatCardNumber(field.value);
});

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  if (!service || !init) return;
  const card = { number: input('card_number').value, expiry: input('expiry').value, cvc: input('cvc').value };
  const email = init.collectEmail ? { email: input('email').value } : {};
  const errors = checkoutFieldErrors({ card, ...email });
  for (const field of CHECKOUT_FIELDS) showFieldError(field, errors[field]?.message);
  const first = firstFieldError(errors);
  if (first) {
    input(first.field).focus();
    post({ type: 'result', result: { error: validationError(first.error.code, first.error.message, first.field) } });
    return;
  }
  setProcessing(true);
  const result = await service.confirmCheckoutSession({ clientSecret: init.clientSecret, ...(init.sessionId ? { sessionId: init.sessionId } : {}), card, ...email });
  if (result.error?.code === 'confirm_in_progress') return;
  setProcessing(false);
  if (result.error?.param && (CHECKOUT_FIELDS as readonly string[]).includes(result.error.param)) showFieldError(result.error.param as CheckoutField, result.error.message);
  post({ type: 'result', result });
});

new ResizeObserver(() => post({ type: 'resize', height: document.documentElement.scrollHeight })).observe(document.body);
post({ type: 'ready' });
