import { WebhookPage } from '../webhook-detail';
import type { SearchParams } from '../../list-query';

export const dynamic = 'force-dynamic';

export default function LiveWebhook({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  return <WebhookPage mode="live" params={params} searchParams={searchParams} />;
}
