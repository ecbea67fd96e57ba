import { headers } from 'next/headers';
import { notFound } from 'next/navigation';
import { getAppServices } from '@/server/app';
import { keepPageHandoff } from '@/server/subscriptions/cancel-page';
import { DeclarationHeading, formattersIn } from '../../../_declaration/parts';
import { CancelShell } from '../../parts';
import { KEEP_TEXTS } from '../../texts';

export const dynamic = 'force-dynamic';

/**
 * GET /cancel/keep/<sub id>?expires&signature: the e-mail's `Keep my subscription`. proxy.ts
 * verified the link and undid the scheduled end (a link that does not verify is its 404 page);
 * this page says what came of it, in the subscription's language.
 */
export default async function KeepSubscriptionPage() {
  const kept = keepPageHandoff.take(await headers());
  if (!kept) notFound();
  const text = KEEP_TEXTS[kept.language];
  const date = formattersIn(kept.language).date(kept.at);
  const [heading, sentence] =
    kept.state === 'ended'
      ? [text.endedHeading, text.ended(kept.planName, date)]
      : kept.state === 'kept'
        ? [text.keptHeading, text.kept(kept.planName, date)]
        : [text.notScheduledHeading, text.notScheduled(kept.planName, date)];
  const { config } = await getAppServices();
  return (
    <CancelShell operator={config.operator} language={kept.language}>
      <DeclarationHeading>{heading}</DeclarationHeading>
      <p>{sentence}</p>
    </CancelShell>
  );
}
