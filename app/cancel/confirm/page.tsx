import { headers } from 'next/headers';
import { getAppServices } from '@/server/app';
import { singleParam, type SearchParams } from '@/server/kit/hosted-page/request';
import { pageLanguage } from '@/server/kit/language';
import { openCancelDraft } from '@/server/subscriptions/cancel-page';
import { DeclarationHeading } from '../../_declaration/parts';
import { CancelShell } from '../parts';
import { CANCEL_TEXTS } from '../texts';

export const dynamic = 'force-dynamic';

/** GET /cancel/confirm?draft: step two, the details shown back with the button that sends the cancellation. */
export default async function ConfirmCancellationPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const sealed = singleParam((await searchParams).draft);
  const language = pageLanguage(await headers());
  const text = CANCEL_TEXTS[language];
  const services = await getAppServices();
  const draft = openCancelDraft(services.config, sealed, Math.floor(services.clock.now().getTime() / 1000));
  if (draft.state !== 'open') {
    return (
      <CancelShell operator={services.config.operator} language={language}>
        <DeclarationHeading>{draft.state === 'expired' ? text.expiredHeading : text.nothingHeading}</DeclarationHeading>
        <p>{text.startAgainText}</p>
        <p>
          <a className="co-link" href={`/cancel?lang=${language}`}>
            {text.startAgain}
          </a>
        </p>
      </CancelShell>
    );
  }
  const { form } = draft;
  return (
    <CancelShell operator={services.config.operator} language={language}>
      <DeclarationHeading>{text.confirmHeading}</DeclarationHeading>
      <p>{text.confirmIntro}</p>
      <dl className="co-facts co-withdraw-facts">
        <dt>{text.email}</dt>
        <dd>{form.email}</dd>
        <dt>{text.number}</dt>
        <dd>{form.number === '' ? text.none : <code>{form.number}</code>}</dd>
        <dt>{text.name}</dt>
        <dd>{form.name}</dd>
        <dt>{text.cancelAt}</dt>
        <dd>{form.cancelAt === 'asap' ? text.asap : text.periodEnd}</dd>
        <dt>{text.reason}</dt>
        <dd>{form.reason === '' ? text.none : form.reason}</dd>
      </dl>
      <form method="post" action="/cancel/declare" className="co-form">
        <input type="hidden" name="draft" value={sealed} />
        <input type="hidden" name="lang" value={language} />
        <button type="submit" className="co-button co-pay-button">
          {text.cancelNow}
        </button>
      </form>
      <p className="co-cancel">
        <a className="co-link" href={`/cancel?draft=${encodeURIComponent(sealed!)}&lang=${language}`}>
          {text.changeDetails}
        </a>
      </p>
    </CancelShell>
  );
}
