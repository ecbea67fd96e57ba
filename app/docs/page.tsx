import type { Metadata } from 'next';
import { loadConfig } from '@/server/config';
import { getOpenApiDocument } from '@/server/openapi/document';
import { DocsIndex } from './api-reference';
import { referenceOf } from './reference';
import './docs.css';

export const metadata: Metadata = {
  title: 'API reference · Payments service',
  description: 'Every operation of the payments service API, by domain: parameters, request fields, examples, responses and error codes.',
};

// The base URL shown is PUBLIC_BASE_URL at run time, not at `next build`; the document is cached.
export const dynamic = 'force-dynamic';

/** GET /docs (and /docs?q=… to search): the API reference's overview, rendered from the same document as /api/v1/openapi.json. */
export default async function DocsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { q } = await searchParams;
  return <DocsIndex reference={referenceOf(getOpenApiDocument(loadConfig().publicBaseUrl))} query={typeof q === 'string' ? q : ''} />;
}
