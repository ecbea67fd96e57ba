import type { SearchParams } from '../list-query';
import { AuditPage } from './audit-log';

export const dynamic = 'force-dynamic';

export default async function LiveAudit({ searchParams }: { searchParams: Promise<SearchParams> }) {
  return <AuditPage mode="live" searchParams={await searchParams} />;
}
