import type { SearchParams } from '../../list-query';
import { AuditPage } from '../../audit/audit-log';

export const dynamic = 'force-dynamic';

export default async function TestAudit({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <AuditPage mode="test" searchParams={await searchParams} />;
}
