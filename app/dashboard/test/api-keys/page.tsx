import { ApiKeysPage } from '../../api-keys/api-keys-page';

export const dynamic = 'force-dynamic';

export default async function TestApiKeys({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  return <ApiKeysPage mode="test" searchParams={await searchParams} />;
}
