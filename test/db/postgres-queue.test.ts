import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * patches/postgres+3.4.9.patch: postgres.js keeps its connections in queues whose `remove`
 * scanned every slot ever shifted, so on a pool that never ran idle (the hot statements' two
 * connections under load, db/client.ts) each query cost more than the last. The patched queue
 * searches only what is still queued and drops shifted slots; it must still behave as a queue.
 */
interface Queue<T> {
  readonly length: number;
  push(item: T): T;
  shift(): T | undefined;
  remove(item: T): T | null;
}

/** The installed package's folder (its main entry is cjs/src/index.js). */
const packageRoot = path.join(path.dirname(createRequire(import.meta.url).resolve('postgres')), '..', '..');

async function loadQueue(): Promise<<T>(initial?: T[]) => Queue<T>> {
  // Not an export of the package: loaded from the installed file that the patch changes.
  const installed = path.join(packageRoot, 'src', 'queue.js');
  return ((await import(pathToFileURL(installed).href)) as { default: <T>(initial?: T[]) => Queue<T> }).default;
}

describe('postgres.js connection queue (patched)', () => {
  it('behaves as a FIFO queue with removal through many thousands of operations that never empty it', async () => {
    const createQueue = await loadQueue();
    const queue = createQueue<number>();
    const model: number[] = [];
    let next = 0;
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let step = 0; step < 20_000; step += 1) {
      const roll = random();
      if (model.length < 2 || roll < 0.45) {
        model.push(next);
        expect(queue.push(next)).toBe(next);
        next += 1;
      } else if (roll < 0.9) {
        expect(queue.shift()).toBe(model.shift());
      } else {
        const target = model[Math.floor(random() * model.length)]!;
        model.splice(model.indexOf(target), 1);
        expect(queue.remove(target)).toBe(target);
        expect(queue.remove(target)).toBeNull();
      }
      expect(queue.length).toBe(model.length);
    }
    // A shifted item is no longer queued: removing it finds nothing.
    const first = model[0]!;
    expect(queue.shift()).toBe(first);
    expect(queue.remove(first)).toBeNull();
  });

  it('is the patched code that is installed (npm install applies patches/ through patch-package)', async () => {
    for (const variant of ['src', 'cjs/src']) {
      const source = await readFile(path.join(packageRoot, variant, 'queue.js'), 'utf8');
      expect(source).toContain('xs.indexOf(x, index)');
      expect(source).toContain('xs = xs.slice(index)');
    }
  });
});
