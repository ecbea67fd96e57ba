/**
 * `npm run client:build`: client/dist (ESM + .d.ts) for the `./client` export, the card frame's
 * script for app/embed/card, and the library's minified + gzipped size.
 */
import { execFileSync } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { buildLibrary, bundleFrameScript, CLIENT_DIR, FRAME_SCRIPT_MODULE, frameScriptModule, measureLibrarySize } from './bundle';

await rm(path.join(CLIENT_DIR, 'dist'), { recursive: true, force: true });
await buildLibrary();
execFileSync(process.execPath, [path.resolve(CLIENT_DIR, '../node_modules/typescript/bin/tsc'), '-p', path.join(CLIENT_DIR, 'tsconfig.json')], { stdio: 'inherit' });
await writeFile(FRAME_SCRIPT_MODULE, frameScriptModule(await bundleFrameScript()));
const size = await measureLibrarySize();
console.log(`client library: ${(size.minified / 1024).toFixed(1)} KiB minified, ${(size.gzipped / 1024).toFixed(1)} KiB minified + gzipped (react external)`);
