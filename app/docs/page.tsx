import type { Metadata } from 'next';
import { loadConfig } from '@/server/config';
import { getOpenApiDocument } from '@/server/openapi/document';
import { ApiReference } from './api-reference';
import './docs.css';

export const metadata: Metadata = {
  title: 'API reference · Payments service',
  description: 'Every operation of the payments service API: parameters, request fields, responses and error codes.',
};

// The base URL shown is PUBLIC_BASE_URL at run time, not at `next build`; the document is cached.
export const dynamic = 'force-dynamic';

/** GET /docs: the API reference, rendered from the same document as /api/v1/openapi.json. */
export default function DocsPage() {
  return <ApiReference document={getOpenApiDocument(loadConfig().publicBaseUrl)} />;
}
