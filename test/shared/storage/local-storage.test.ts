import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StorageError } from '../../../shared/core/errors';
import { LocalDirectoryStorage } from '../../../shared/storage/local-storage';
import { patternBytes, sha256, writeInChunks } from '../../support/stream-helpers';

const meta = { contentType: 'text/csv', downloadName: 'risks.csv', metadata: { report: 'acme' } };

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)))
    .sort();
}

describe('LocalDirectoryStorage', () => {
  let root: string;
  let storage: LocalDirectoryStorage;

  beforeEach(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'local-storage-'));
    storage = new LocalDirectoryStorage(root);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('streams an object, reports bytes and sha256, and reads it back', async () => {
    const data = patternBytes(3 * 1024 * 1024 + 17);
    const upload = storage.openUpload('acme/dt=2024-05-06/run=r1/risks.csv', meta);
    await writeInChunks(upload.stream, data);
    const stored = await upload.done;
    expect(stored).toEqual({ key: 'acme/dt=2024-05-06/run=r1/risks.csv', bytes: data.byteLength, sha256: sha256(data) });
    const back = await storage.getObject('acme/dt=2024-05-06/run=r1/risks.csv');
    expect(Buffer.from(back!).equals(data)).toBe(true);
  });

  it('shows nothing under the key until the upload is done (temp file next to it)', async () => {
    const upload = storage.openUpload('a/b.csv', meta);
    // Written to the temp file once the write's callback has run.
    await new Promise((resolve) => upload.stream.write('partial', resolve));
    expect(await storage.getObject('a/b.csv')).toBeUndefined();
    expect(await storage.listKeys('')).toEqual([]);
    const files = await filesUnder(root);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/^a[/\\]\.b\.csv\.[0-9a-f]+\.partial$/);
    upload.stream.end();
    await upload.done;
    expect(await filesUnder(root)).toEqual([path.join('a', 'b.csv')]);
  });

  it('abort removes the temp file and rejects done', async () => {
    const upload = storage.openUpload('a/b.csv', meta);
    upload.stream.write(patternBytes(100_000));
    await upload.abort(new Error('render failed'));
    await expect(upload.done).rejects.toThrow(StorageError);
    await expect(upload.done).rejects.toThrow(/aborted: render failed/);
    expect(await filesUnder(root)).toEqual([]);
  });

  it('abort right after open (before the file exists) leaves nothing', async () => {
    const upload = storage.openUpload('x/y/z.csv', meta);
    await upload.abort(new Error('no'));
    await expect(upload.done).rejects.toThrow(StorageError);
    expect(await filesUnder(root)).toEqual([]);
  });

  it('abort after completion removes the stored object', async () => {
    const upload = storage.openUpload('a/done.csv', meta);
    upload.stream.end('x,y\n');
    await upload.done;
    await upload.abort(new Error('manifest failed'));
    expect(await storage.getObject('a/done.csv')).toBeUndefined();
  });

  it('a writer error rejects done and removes the temp file', async () => {
    const upload = storage.openUpload('a/err.csv', meta);
    upload.stream.write('abc');
    upload.stream.destroy(new Error('producer broke'));
    // done rejects only after the temp file is removed.
    await expect(upload.done).rejects.toThrow(/producer broke/);
    expect(await filesUnder(root)).toEqual([]);
  });

  it('putObject writes atomically and reports sha256; overwrites replace', async () => {
    const first = await storage.putObject('acme/latest.json', '{"a":1}', { contentType: 'application/json' });
    expect(first).toEqual({ key: 'acme/latest.json', bytes: 7, sha256: sha256(Buffer.from('{"a":1}')) });
    await storage.putObject('acme/latest.json', new Uint8Array([1, 2, 3]), { contentType: 'application/json' });
    expect(Array.from((await storage.getObject('acme/latest.json'))!)).toEqual([1, 2, 3]);
    expect(await filesUnder(root)).toEqual([path.join('acme', 'latest.json')]);
  });

  it('getObject returns undefined for missing keys and directories', async () => {
    await storage.putObject('d/f.txt', 'x', { contentType: 'text/plain' });
    expect(await storage.getObject('missing.txt')).toBeUndefined();
    expect(await storage.getObject('d')).toBeUndefined();
    expect(await storage.getObject('d/f.txt/g')).toBeUndefined();
  });

  it('listKeys uses string prefixes like S3 and skips temp files', async () => {
    for (const key of ['r/a.csv', 'r/ab/c.csv', 'r/b.csv', 's/a.csv']) {
      await storage.putObject(key, key, { contentType: 'text/csv' });
    }
    const pending = storage.openUpload('r/pending.csv', meta);
    pending.stream.write('x');
    expect(await storage.listKeys('r/')).toEqual(['r/a.csv', 'r/ab/c.csv', 'r/b.csv']);
    expect(await storage.listKeys('r/a')).toEqual(['r/a.csv', 'r/ab/c.csv']);
    expect(await storage.listKeys('')).toEqual(['r/a.csv', 'r/ab/c.csv', 'r/b.csv', 's/a.csv']);
    expect(await storage.listKeys('nothing/here')).toEqual([]);
    await pending.abort(new Error('test over'));
  });

  it('deleteObjects removes files and empty folders, ignores missing keys', async () => {
    await storage.putObject('r/1/a.csv', 'a', { contentType: 'text/csv' });
    await storage.putObject('r/2/b.csv', 'b', { contentType: 'text/csv' });
    await storage.deleteObjects(['r/1/a.csv', 'r/missing.csv']);
    expect(await storage.listKeys('')).toEqual(['r/2/b.csv']);
    await expect(stat(path.join(root, 'r', '1'))).rejects.toThrow();
    await expect(stat(root)).resolves.toBeDefined();
  });

  it.each(['../escape.csv', 'a/../../b', '/etc/passwd', 'a//b', 'a/./b', '', 'a\\b', 'C:/x', 'a/'])(
    'rejects the key %j',
    async (key) => {
      expect(() => storage.openUpload(key, meta)).toThrow(StorageError);
      await expect(storage.putObject(key, 'x', meta)).rejects.toThrow(StorageError);
      await expect(storage.getObject(key)).rejects.toThrow(StorageError);
      await expect(storage.deleteObjects([key])).rejects.toThrow(StorageError);
    },
  );

  it('rejects metadata S3 could not store unchanged', async () => {
    await expect(
      storage.putObject('a.txt', 'x', { contentType: 'text/plain', metadata: { report: 'Zürich' } }),
    ).rejects.toThrow(/printable ASCII/);
    expect(() => storage.openUpload('a.txt', { contentType: 'text/plain', metadata: { 'bad name': 'x' } })).toThrow(
      StorageError,
    );
  });

  it('hashObject re-reads what is stored; removeIncomplete removes a killed writer\'s temp files only', async () => {
    const data = patternBytes(300_000);
    const stored = await storage.putObject('run/a.csv', data, { contentType: 'text/csv' });
    expect(await storage.hashObject('run/a.csv')).toEqual(stored);
    expect(await storage.hashObject('run/none.csv')).toBeUndefined();
    // What a SIGKILLed upload leaves: a hidden temp file next to its target.
    await mkdir(path.join(root, 'run', 'sub'), { recursive: true });
    await writeFile(path.join(root, 'run', '.b.csv.0a1b2c3d4e5f.partial'), 'half');
    await writeFile(path.join(root, 'run', 'sub', '.c.csv.0a1b2c3d4e5f.partial'), 'half');
    await writeFile(path.join(root, '.other.csv.0a1b2c3d4e5f.partial'), 'not under the prefix');
    await storage.removeIncomplete('run/');
    expect((await readdir(path.join(root, 'run'), { recursive: true })).sort()).toEqual(['a.csv', 'sub']);
    expect(await readdir(root)).toContain('.other.csv.0a1b2c3d4e5f.partial');
  });

  it('readObject streams what is stored in chunks, and answers undefined for no object or a directory', async () => {
    const data = patternBytes(300_000);
    await storage.putObject('run/big.bin', data, { contentType: 'application/octet-stream' });
    const chunks: Uint8Array[] = [];
    for await (const chunk of (await storage.readObject('run/big.bin'))!) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.concat(chunks).equals(Buffer.from(data))).toBe(true);
    expect(await storage.readObject('run/none.bin')).toBeUndefined();
    await mkdir(path.join(root, 'run', 'folder'), { recursive: true });
    expect(await storage.readObject('run/folder')).toBeUndefined();
  });

  it('copyObject copies whole (temp file renamed into place) and replaces; a missing source is a StorageError and leaves nothing', async () => {
    const data = patternBytes(200_000, 5);
    await storage.putObject('_staging/acme/run=r1/risks.parquet', data, meta);
    await storage.copyObject('_staging/acme/run=r1/risks.parquet', 'acme/tables/risks/dt=2024-05-06/run=r1/part-00000.parquet', { rows: '3' });
    expect(await storage.hashObject('acme/tables/risks/dt=2024-05-06/run=r1/part-00000.parquet')).toMatchObject({ bytes: data.byteLength, sha256: sha256(data) });
    await storage.copyObject('_staging/acme/run=r1/risks.parquet', 'acme/tables/risks/dt=2024-05-06/run=r1/part-00000.parquet');
    expect(await storage.listKeys('acme/tables/')).toEqual(['acme/tables/risks/dt=2024-05-06/run=r1/part-00000.parquet']);
    const missing = storage.copyObject('_staging/acme/run=r1/none.parquet', 'acme/tables/x/part-00000.parquet');
    await expect(missing).rejects.toBeInstanceOf(StorageError);
    await expect(missing).rejects.toThrow(/could not copy .*none\.parquet to .*part-00000\.parquet \(the source is missing\)/);
    expect(await readdir(path.join(root, 'acme/tables/x'))).toEqual([]);
  });

  it('describe names the root and keys', () => {
    expect(storage.describe()).toBe(root);
    expect(storage.describe('a/b.csv')).toBe(path.join(root, 'a', 'b.csv'));
  });
});
