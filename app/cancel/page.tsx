import { headers } from 'next/headers';
import { getAppServices } from '@/server/app';
import { singleParam, type SearchParams } from '@/server/kit/hosted-page/request';
import { pageLanguage } from '@/server/kit/language';
import { CANCEL_FORM_PROBLEMS, MAX_NAME_LENGTH, MAX_NUMBER_LENGTH, MAX_REASON_LENGTH, openCancelDraft, type CancelForm, type CancelFormProblem } from '@/server/subscriptions/cancel-page';
import { DeclarationHeading } from '../_declaration/parts';
import { Field } from '../checkout/parts';
import { CancelShell } from './parts';
import { CANCEL_TEXTS } from './texts';

export const dynamic = 'force-dynamic';

const EMPTY: CancelForm = { email: '', number: '', name: '', reason: '', cancelAt: 'period_end' };

function isProblem(value: string | undefined): value is CancelFormProblem {
  return (CANCEL_FORM_PROBLEMS as readonly (string | undefined)[]).includes(value);
}

/**
 * GET /cancel: step one, the cancellation's details. `?number=` fills in the number (the links in
 * e-mails and the portal); after a refused post `draft` fills in what was typed and `error` names the field.
 */
export default async function CancelPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const query = await searchParams;
  const language = pageLanguage(await headers());
  const text = CANCEL_TEXTS[language];
  const services = await getAppServices();
  const draft = openCancelDraft(services.config, singleParam(query.draft), Math.floor(services.clock.now().getTime() / 1000));
  const typed = draft.state === 'open' ? draft.form : { ...EMPTY, number: singleParam(query.number) ?? '' };
  const error = singleParam(query.error);
  const problem = isProblem(error) ? error : undefined;
  const alert = problem ? text.correct(text.fieldNames[problem]) : error === 'expired' ? text.expiredAlert : undefined;
  const fieldError = (name: 'email' | 'number' | 'name' | 'reason') => (problem === name || (name === 'reason' && problem === 'reason_required') ? text.problems[problem!] : undefined);
  return (
    <CancelShell operator={services.config.operator} language={language}>
      <DeclarationHeading>{text.heading}</DeclarationHeading>
      <p>{text.intro}</p>
      {alert ? (
        <div role="alert" className="co-alert" id="form-error">
          <p>{alert}</p>
        </div>
      ) : null}
      <form method="post" action="/cancel/check" className="co-form">
        <input type="hidden" name="lang" value={language} />
        <Field name="email" label={text.email} error={fieldError('email')}>
          {(props) => <input {...props} type="email" autoComplete="email" inputMode="email" spellCheck={false} maxLength={254} defaultValue={typed.email} required />}
        </Field>
        <Field name="number" label={text.number} hint={text.numberHint} error={fieldError('number')}>
          {(props) => <input {...props} type="text" autoComplete="off" spellCheck={false} maxLength={MAX_NUMBER_LENGTH} defaultValue={typed.number} />}
        </Field>
        <Field name="name" label={text.name} error={fieldError('name')}>
          {(props) => <input {...props} type="text" autoComplete="name" maxLength={MAX_NAME_LENGTH} defaultValue={typed.name} required />}
        </Field>
        <fieldset className="co-waiver">
          <legend>{text.cancelAt}</legend>
          <div className="co-check">
            <input type="radio" id="cancel_at_period_end" name="cancel_at" value="period_end" defaultChecked={typed.cancelAt === 'period_end'} />
            <label htmlFor="cancel_at_period_end">{text.periodEnd}</label>
          </div>
          <div className="co-check">
            <input type="radio" id="cancel_at_asap" name="cancel_at" value="asap" defaultChecked={typed.cancelAt === 'asap'} aria-describedby="cancel_at_asap-hint" />
            <label htmlFor="cancel_at_asap">{text.asap}</label>
          </div>
          <p id="cancel_at_asap-hint" className="co-hint">
            {text.asapHint}
          </p>
        </fieldset>
        <Field name="reason" label={text.reason} hint={text.reasonHint} error={fieldError('reason')}>
          {(props) => <textarea {...props} rows={4} maxLength={MAX_REASON_LENGTH} defaultValue={typed.reason} />}
        </Field>
        <button type="submit" className="co-button co-pay-button">
          {text.continue}
        </button>
      </form>
    </CancelShell>
  );
}
