import { ApiKeysPage } from './api-keys-page';

export const dynamic = 'force-dynamic';

export default async function LiveApiKeys({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  return <ApiKeysPage mode="live" searchParams={await searchParams} />;
}
