import { buildOpenApiDocument } from './document';

/** The committed copy, for readers, linters and client generators that do not run the service. */
export const OPENAPI_FILE = 'openapi/openapi.json';

/** A fixed origin, so the committed file does not depend on whoever's PUBLIC_BASE_URL wrote it. */
export const OPENAPI_FILE_BASE_URL = 'http://localhost:3000';

/** Two-space JSON with a final newline: stable, so a diff shows only real API changes. */
export function renderOpenApiFile(): string {
  return `${JSON.stringify(buildOpenApiDocument(OPENAPI_FILE_BASE_URL), null, 2)}\n`;
}
