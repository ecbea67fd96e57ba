import { measureLibrarySize } from '@/packages/client/scripts/bundle';

/** `npm run bench`: what the browser client library costs a merchant page, React excluded. */
export async function printClientLibrarySize(): Promise<void> {
  const { minified, gzipped } = await measureLibrarySize();
  console.log(`\nBrowser client library (packages/client/index.ts, everything imported, React external): ${minified} bytes minified, ${gzipped} bytes minified + gzipped.`);
}
