import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CARD_FRAME_SCRIPT } from '@/app/embed/card/card-frame-script';
import { bundleFrameScript, CLIENT_DIR } from '@/client/scripts/bundle';

/** The committed build outputs and the package entry (issue 6). Node environment: esbuild runs here. */
describe('client build', () => {
  it('the card frame’s script is the current bundle of client/frame/card-frame.ts (run npm run client:build)', async () => {
    expect(CARD_FRAME_SCRIPT).toBe(await bundleFrameScript());
  });

  it('package.json publishes ./client (types + ESM), tree-shakeable, React as a peer', async () => {
    const manifest = JSON.parse(await readFile(path.join(CLIENT_DIR, '../package.json'), 'utf8'));
    expect(manifest.exports['./client']).toEqual({ types: './client/dist/index.d.ts', import: './client/dist/index.js' });
    // Only stylesheets (imported for their effect by the app's layouts) have side effects.
    expect(manifest.sideEffects).toEqual(['*.css']);
    expect(manifest.peerDependencies.react).toBeDefined();
    expect(manifest.scripts['client:build']).toBe('tsx client/scripts/build.ts');
  });
});
