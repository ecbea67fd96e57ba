import type { SearchParams } from '../../orders/query';
import { AuditPage } from '../../audit/audit-log';

export const dynamic = 'force-dynamic';

export default async function TestAudit({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <AuditPage mode="test" searchParams={await searchParams} />;
}
