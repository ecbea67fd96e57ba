/**
 * `npm run client:build`: packages/client/dist (ESM + .d.ts) for the package @payments-service/client
 * (packages/client/package.json), the card frame's script for app/embed/card, and the library's
 * minified + gzipped size. `npm pack` of the package runs it first.
 */
import { mkdtemp, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { buildLibrary, bundleFrameScript, CLIENT_DIR, FRAME_SCRIPT_MODULE, frameScriptModule, measureLibrarySize, writeDeclarations, writeIfChanged } from './bundle';

// Built aside and swapped in whole: whatever imports the package meanwhile (a test beside
// `npm pack`) finds the old build or the new one, never an emptied folder.
const dist = path.join(CLIENT_DIR, 'dist');
const fresh = await mkdtemp(path.join(CLIENT_DIR, '.dist-'));
await buildLibrary(path.join(fresh, 'index.js'));
await writeDeclarations(fresh);
const previous = `${fresh}-previous`;
await rename(dist, previous).catch((error: NodeJS.ErrnoException) => {
  if (error.code !== 'ENOENT') throw error;
});
await rename(fresh, dist);
await rm(previous, { recursive: true, force: true });
await writeIfChanged(FRAME_SCRIPT_MODULE, frameScriptModule(await bundleFrameScript()));
const size = await measureLibrarySize();
console.log(`client library: ${(size.minified / 1024).toFixed(1)} KiB minified, ${(size.gzipped / 1024).toFixed(1)} KiB minified + gzipped (react external)`);
