/** `npm run openapi:write`: regenerates openapi/openapi.json from the routers. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { OPENAPI_FILE, renderOpenApiFile } from '@/server/openapi/file';

const target = path.resolve(import.meta.dirname, '..', OPENAPI_FILE);
writeFileSync(target, renderOpenApiFile());
console.log(`Wrote ${OPENAPI_FILE}`);
