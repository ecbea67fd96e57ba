import { headers } from 'next/headers';
import { getAppServices } from '@/server/app';
import { singleParam, type SearchParams } from '@/server/kit/hosted-page/request';
import { pageLanguage } from '@/server/kit/language';
import { openCancelReceipt } from '@/server/subscriptions/cancel-page';
import { DeclarationHeading, ReceivedTime } from '../../_declaration/parts';
import { CancelShell } from '../parts';
import { CANCEL_TEXTS } from '../texts';

export const dynamic = 'force-dynamic';

/**
 * GET /cancel/received?receipt: the answer to every declaration, matched or not, so it never
 * tells whether the address has a subscription.
 */
export default async function CancellationReceivedPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const language = pageLanguage(await headers());
  const text = CANCEL_TEXTS[language];
  const { config } = await getAppServices();
  const receipt = openCancelReceipt(config, singleParam((await searchParams).receipt));
  if (!receipt) {
    return (
      <CancelShell operator={config.operator} language={language}>
        <DeclarationHeading>{text.noReceiptHeading}</DeclarationHeading>
        <p>{text.noReceiptText}</p>
      </CancelShell>
    );
  }
  return (
    <CancelShell operator={config.operator} language={language}>
      <DeclarationHeading>{text.receivedHeading}</DeclarationHeading>
      <dl className="co-facts co-withdraw-facts">
        <dt>{text.received}</dt>
        <dd>
          <ReceivedTime at={receipt.declaredAt} language={language} />
        </dd>
        <dt>{text.email}</dt>
        <dd>{receipt.email}</dd>
        <dt>{text.number}</dt>
        <dd>{receipt.number === '' ? text.none : <code>{receipt.number}</code>}</dd>
      </dl>
      <p>{text.receivedText}</p>
      <p>{text.keepProof}</p>
    </CancelShell>
  );
}
