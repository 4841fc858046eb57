import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDirectory } from '../../../../shared/core/files/make-directory';

describe('makeDirectory', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'make-directory-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('creates every missing level, and is idempotent, also when racing itself', async () => {
    const deep = path.join(root, 'a', 'b', 'c');
    await Promise.all(Array.from({ length: 5 }, () => makeDirectory(deep)));
    await makeDirectory(deep);
    expect((await stat(deep)).isDirectory()).toBe(true);
  });

  it('refuses a path through a file', async () => {
    await writeFile(path.join(root, 'file'), 'x');
    await expect(makeDirectory(path.join(root, 'file', 'sub'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it.runIf(process.platform === 'linux')('ends with an error naming the directory where a pseudo file system refuses folders', async () => {
    await expect(makeDirectory('/proc/self/.ledger/x')).rejects.toThrow('cannot create folders in /proc/self (not a writable file system)');
  });
});
