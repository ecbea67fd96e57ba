'use client';

import { useId, useRef, useState, type FormEvent } from 'react';
import { checkoutFieldErrors, firstFieldError, formatCardNumber, type CheckoutField } from '../card';
import { validationError, type ServiceError } from '../errors';
import { useService } from './context';
import { redirectOnSuccess, type CheckoutFormBaseProps } from './form-props';
import { CheckoutOutcome } from './outcome';
import { useCheckout } from './use-checkout';

export type CheckoutFormProps = CheckoutFormBaseProps;

type Field = CheckoutField;

/**
 * Card inputs in the merchant's own page. The card goes only to the service origin
 * (the confirm request); SecureCheckoutForm keeps it out of the page entirely.
 */
export function CheckoutForm({ clientSecret, sessionId, customerEmail, collectEmail = false, submitLabel = 'Pay', onSuccess, onError, className, checkoutUrl }: CheckoutFormProps) {
  const service = useService();
  const { confirm, processing } = useCheckout();
  const id = useId();
  const [values, setValues] = useState({ email: customerEmail ?? '', card_number: '', expiry: '', cvc: '' });
  const [fieldErrors, setFieldErrors] = useState<Partial<Record<Field, string>>>({});
  const [outcome, setOutcome] = useState<ServiceError | null>(null);
  const inputs = useRef<Partial<Record<Field, HTMLInputElement | null>>>({});

  const fail = (error: ServiceError) => {
    if (error.type !== 'validation_error' || !error.param) setOutcome(error);
    onError?.(error);
  };

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setOutcome(null);
    const card = { number: values.card_number, expiry: values.expiry, cvc: values.cvc };
    const email = collectEmail ? { email: values.email } : {};
    const errors = checkoutFieldErrors({ card, ...email });
    setFieldErrors(Object.fromEntries(Object.entries(errors).map(([field, error]) => [field, error.message])));
    const first = firstFieldError(errors);
    if (first) {
      inputs.current[first.field]?.focus();
      // Local validation: nothing is sent and no attempt is used.
      return fail(validationError(first.error.code, first.error.message, first.field));
    }
    const result = await confirm({ clientSecret, ...(sessionId ? { sessionId } : {}), card, ...email });
    if (result.session) return (onSuccess ?? redirectOnSuccess(service))(result.session);
    if (result.error.code === 'confirm_in_progress') return undefined;
    if (result.error.param && result.error.param in values) setFieldErrors({ [result.error.param]: result.error.message });
    return fail(result.error);
  }

  const field = (name: Field, label: string, props: { autoComplete: string; inputMode?: 'numeric' | 'email'; placeholder?: string; type?: string }) => {
    const error = fieldErrors[name];
    return (
      <div>
        <label htmlFor={`${id}-${name}`}>{label}</label>
        <input
          ref={(element) => {
            inputs.current[name] = element;
          }}
          id={`${id}-${name}`}
          name={name}
          type={props.type ?? 'text'}
          autoComplete={props.autoComplete}
          inputMode={props.inputMode}
          placeholder={props.placeholder}
          value={values[name]}
          onChange={(event) => setValues({ ...values, [name]: name === 'card_number' ? formatCardNumber(event.target.value) : event.target.value })}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-${name}-error` : undefined}
          required
        />
        {error ? <p id={`${id}-${name}-error`}>{error}</p> : null}
      </div>
    );
  };

  return (
    <form className={className} onSubmit={(event) => void submit(event)} noValidate aria-busy={processing}>
      {collectEmail ? field('email', 'Email', { autoComplete: 'email', inputMode: 'email', type: 'email' }) : null}
      {field('card_number', 'Card number', { autoComplete: 'cc-number', inputMode: 'numeric', placeholder: '1234 1234 1234 1234' })}
      {field('expiry', 'Expiry', { autoComplete: 'cc-exp', inputMode: 'numeric', placeholder: 'MM/YY' })}
      {field('cvc', 'CVC', { autoComplete: 'cc-csc', inputMode: 'numeric', placeholder: '123' })}
      <button type="submit" disabled={processing}>
        {processing ? 'Processing…' : submitLabel}
      </button>
      {outcome ? <CheckoutOutcome error={outcome} service={service} checkoutUrl={checkoutUrl} /> : null}
    </form>
  );
}
