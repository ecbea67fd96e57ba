import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/** The repository's migrations, as the service applies them. */
export const MIGRATIONS = path.resolve('db/migrations');

/**
 * For a test of one migration on data written before it: returns a function giving a folder of
 * the migrations before `tag` (a copy whose journal stops there), removed when the file ends.
 */
export function useMigrationsBefore(): (tag: string) => string {
  const folder = mkdtempSync(path.join(tmpdir(), 'migrations-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  return (tag) => {
    cpSync(MIGRATIONS, folder, { recursive: true });
    const journalFile = path.join(folder, 'meta/_journal.json');
    const journal = JSON.parse(readFileSync(journalFile, 'utf8'));
    journal.entries = journal.entries.filter((entry: { tag: string }) => entry.tag < tag);
    writeFileSync(journalFile, JSON.stringify(journal));
    return folder;
  };
}
