import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh temporary directory and a function that removes it (call it in afterAll). */
export function makeTempDir(prefix: string): { path(name: string): string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  return {
    path: (name: string) => join(dir, name),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
