import { outcomeUnknown, type ServiceError } from './errors';

export const CONTINUE_LABEL = 'Continue on the secure payment page';

export interface OutcomeMessage {
  title: string;
  text: string;
  /** The hosted page can take it from here (today: 3-D Secure). */
  continueOnHostedPage: boolean;
}

/** What the forms tell the customer about a failed confirm; shared by both forms and the card frame. */
export function outcomeMessage(error: ServiceError): OutcomeMessage {
  if (error.code === 'three_d_secure_required') {
    return {
      title: 'Your bank needs to confirm this payment',
      text: 'This payment needs 3-D Secure authentication, which happens on the secure payment page. Nothing has been charged yet.',
      continueOnHostedPage: true,
    };
  }
  if (outcomeUnknown(error)) {
    return { title: 'We could not confirm the payment', text: error.message, continueOnHostedPage: false };
  }
  if (error.code === 'card_declined') {
    return { title: 'Your card was declined', text: 'Nothing was charged. Start a new checkout to try another card.', continueOnHostedPage: false };
  }
  if (error.type === 'rate_limit_error') {
    const wait = error.retry_after === undefined ? 'a moment' : `${error.retry_after} second${error.retry_after === 1 ? '' : 's'}`;
    return { title: 'Too many attempts', text: `Please wait ${wait} and try again.`, continueOnHostedPage: false };
  }
  return { title: 'The payment could not be confirmed', text: error.message, continueOnHostedPage: false };
}
