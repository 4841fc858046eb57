import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A temporary directory of the test kit: its root, paths inside it, and its removal. */
export interface TempDir {
  readonly root: string;
  path(name: string): string;
  remove(): void;
}

/** A fresh temporary directory and a function that removes it (call it in afterAll or afterEach). */
export function makeTempDir(prefix: string): TempDir {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return {
    root: dir,
    path: (name: string) => join(dir, name),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
