import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Files that start `npm start` and often Chromium: tens of seconds to two minutes each. */
const PROCESS_TESTS = /[\\/]test[\\/](browser|e2e)[\\/]/;

/**
 * Vitest runs the files that took longest last time first, and on a clean clone (no such record)
 * the largest files first, which put a two-minute browser file of a few lines last, alone on one
 * worker. Here the files that start processes alternate with the others from the start, so the
 * last of them starts about halfway through, beside in-process files rather than another browser,
 * and short files fill both workers to the end.
 */
export default class ProcessTestsEarly extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const starting = sorted.filter((file) => PROCESS_TESTS.test(file.moduleId));
    const inProcess = sorted.filter((file) => !PROCESS_TESTS.test(file.moduleId));
    const order: TestSpecification[] = [];
    while (starting.length > 0 || inProcess.length > 0) {
      for (const file of [starting.shift(), inProcess.shift()]) if (file) order.push(file);
    }
    return order;
  }
}
