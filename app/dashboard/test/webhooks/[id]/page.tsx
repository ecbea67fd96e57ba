import { WebhookPage } from '../../../webhooks/webhook-detail';
import type { SearchParams } from '../../../list-query';

export const dynamic = 'force-dynamic';

export default function TestWebhook({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<SearchParams> }) {
  return <WebhookPage mode="test" params={params} searchParams={searchParams} />;
}
