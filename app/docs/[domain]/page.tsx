import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { loadConfig } from '@/server/config';
import { getOpenApiDocument } from '@/server/openapi/document';
import { DocsDomain } from '../api-reference';
import { referenceOf } from '../reference';
import '../docs.css';

// The base URL shown is PUBLIC_BASE_URL at run time, not at `next build`; the document is cached.
export const dynamic = 'force-dynamic';

function domainOf(slug: string) {
  const reference = referenceOf(getOpenApiDocument(loadConfig().publicBaseUrl));
  const domain = reference.domains.find((candidate) => candidate.slug === slug);
  return domain && { reference, domain };
}

export async function generateMetadata({ params }: { params: Promise<{ domain: string }> }): Promise<Metadata> {
  const found = domainOf((await params).domain);
  return { title: `${found?.domain.name ?? 'Not found'} · API reference · Payments service` };
}

/** GET /docs/<domain> (`/docs/checkout-sessions`): one domain's operations, with examples, and its objects. */
export default async function DocsDomainPage({ params }: { params: Promise<{ domain: string }> }) {
  const found = domainOf((await params).domain);
  if (!found) notFound();
  return <DocsDomain reference={found.reference} domain={found.domain} />;
}
