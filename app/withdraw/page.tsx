import { getAppServices } from '@/server/app';
import { singleParam, type SearchParams } from '@/server/kit/hosted-page/request';
import { FIELD_PROBLEMS, MAX_NAME_LENGTH, MAX_REASON_LENGTH, openDraft, type WithdrawalField, type WithdrawalForm } from '@/server/orders/withdrawals/hosted';
import { Field } from '../checkout/parts';
import { DeclarationHeading } from '../_declaration/parts';
import { FIELD_LABELS, WithdrawShell } from './parts';

export const dynamic = 'force-dynamic';

const EMPTY: WithdrawalForm = { orderId: '', email: '', name: '', reason: '' };

function isField(value: string | undefined): value is WithdrawalField {
  return value !== undefined && Object.hasOwn(FIELD_PROBLEMS, value);
}

/**
 * GET /withdraw: step one, the declaration's details. `?order=` fills in the order number (the
 * receipt's link); after a refused post `draft` fills in what was typed and `error` names the field.
 */
export default async function WithdrawPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const query = await searchParams;
  const services = await getAppServices();
  const draft = openDraft(services.config, singleParam(query.draft), Math.floor(services.clock.now().getTime() / 1000));
  const typed = draft.state === 'open' ? draft.form : { ...EMPTY, orderId: singleParam(query.order) ?? '' };
  const error = singleParam(query.error);
  const field = isField(error) ? error : undefined;
  const alert = field ? `Please correct the ${FIELD_LABELS[field]} below.` : error === 'expired' ? 'The form had expired, so nothing was sent. Please fill it in again.' : undefined;
  const fieldError = (name: WithdrawalField) => (name === field ? FIELD_PROBLEMS[name] : undefined);
  return (
    <WithdrawShell operator={services.config.operator}>
      <DeclarationHeading>Withdraw from a contract</DeclarationHeading>
      <p>
        You may withdraw from a purchase within 14 days without giving a reason. Enter the order number from your receipt and the e-mail address you used for the order; you check everything on the
        next step before it is sent.
      </p>
      {alert ? (
        <div role="alert" className="co-alert" id="form-error">
          <p>{alert}</p>
        </div>
      ) : null}
      <form method="post" action="/withdraw/check" className="co-form">
        <Field name="order" label="Order number" hint="Starts with ord_, as on your receipt and in our e-mails." error={fieldError('orderId')}>
          {(props) => <input {...props} type="text" autoComplete="off" spellCheck={false} maxLength={80} defaultValue={typed.orderId} required />}
        </Field>
        <Field name="email" label="Email" error={fieldError('email')}>
          {(props) => <input {...props} type="email" autoComplete="email" inputMode="email" spellCheck={false} maxLength={254} defaultValue={typed.email} required />}
        </Field>
        <Field name="name" label="Name" error={fieldError('name')}>
          {(props) => <input {...props} type="text" autoComplete="name" maxLength={MAX_NAME_LENGTH} defaultValue={typed.name} required />}
        </Field>
        <Field name="reason" label="Reason" hint="Optional." error={fieldError('reason')}>
          {(props) => <textarea {...props} rows={4} maxLength={MAX_REASON_LENGTH} defaultValue={typed.reason} />}
        </Field>
        <button type="submit" className="co-button co-pay-button">
          Continue
        </button>
      </form>
    </WithdrawShell>
  );
}
