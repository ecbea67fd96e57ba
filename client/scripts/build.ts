/**
 * `npm run client:build`: client/dist (ESM + .d.ts) for the package @payments-service/client
 * (client/package.json), the card frame's script for app/embed/card, and the library's
 * minified + gzipped size. `npm pack` in client/ runs it first.
 */
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { buildLibrary, bundleFrameScript, CLIENT_DIR, FRAME_SCRIPT_MODULE, frameScriptModule, measureLibrarySize, writeDeclarations, writeIfChanged } from './bundle';

await rm(path.join(CLIENT_DIR, 'dist'), { recursive: true, force: true });
await buildLibrary();
await writeDeclarations();
await writeIfChanged(FRAME_SCRIPT_MODULE, frameScriptModule(await bundleFrameScript()));
const size = await measureLibrarySize();
console.log(`client library: ${(size.minified / 1024).toFixed(1)} KiB minified, ${(size.gzipped / 1024).toFixed(1)} KiB minified + gzipped (react external)`);
