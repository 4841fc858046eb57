import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, CredentialsError } from '../../../shared/core/errors';
import { fileCredentialsSource, MAX_CREDENTIALS_FILE_BYTES, readCredentialsFile } from '../../../shared/secrets/credentials-file';
import { withCredentialRefresh } from '../../../shared/secrets/credential-refresh';
import { testCredentials } from '../../support/credentials';

const API_KEY = 'file-secret-key-abcdef';
const credentials = testCredentials(API_KEY);

describe('readCredentialsFile', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'creds-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const write = async (name: string, text: string) => {
    const file = path.join(dir, name);
    await writeFile(file, text);
    return file;
  };

  it('reads a valid file', async () => {
    const file = await write('ok.json', JSON.stringify(credentials));
    expect(await readCredentialsFile(file)).toEqual(credentials);
  });

  it('names the file and the problem, never the value', async () => {
    const missing = path.join(dir, 'nope.json');
    await expect(readCredentialsFile(missing)).rejects.toThrow(`credentials file "${missing}" was not found`);

    const notJson = await write('bad.json', `{ "apiKey": "${API_KEY}" `);
    const error = await readCredentialsFile(notJson).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(CredentialsError);
    expect((error as Error).message).toBe(`credentials file "${notJson}" is not JSON (the first error at line 1, column ${`{ "apiKey": "${API_KEY}" `.length + 1})`);
    expect((error as Error).cause).toBeUndefined();
    expect(String((error as Error).stack)).not.toContain(API_KEY);

    const noKey = await write('nokey.json', JSON.stringify({ ...credentials, apiKey: undefined }));
    await expect(readCredentialsFile(noKey)).rejects.toThrow(`credentials file "${noKey}" is missing field apiKey`);

    const badPrefix = await write('prefix.json', JSON.stringify({ ...credentials, companyPrefix: 'a b' }));
    await expect(readCredentialsFile(badPrefix)).rejects.toThrow(
      'has invalid field companyPrefix: companyPrefix must be the company prefix',
    );
  });

  it('reports an unreadable file', async () => {
    if (process.getuid?.() === 0) return; // root reads everything
    const file = await write('locked.json', JSON.stringify(credentials));
    await chmod(file, 0o000);
    await expect(readCredentialsFile(file)).rejects.toThrow('is not readable (permission denied)');
  });

  // Before: a FIFO with no writer made `--credentials` hang for ever (the open waits for a writer).
  it.skipIf(process.platform === 'win32')('refuses a named pipe with no writer at once, naming the path', async () => {
    const fifo = path.join(dir, 'credentials.fifo');
    execFileSync('mkfifo', [fifo]);
    const error = await readCredentialsFile(fifo).then(() => undefined, (e: unknown) => e as Error);
    expect(error).toBeInstanceOf(CredentialsError);
    expect(error?.message).toBe(`credentials file "${fifo}" is a named pipe (FIFO), not a regular file; give the path of the JSON document itself`);
    expect((error as CredentialsError).retryable).toBe(false);
  });

  it('refuses a directory and a file larger than a credentials document could be', async () => {
    const folder = path.join(dir, 'a-folder');
    await mkdir(folder);
    await expect(readCredentialsFile(folder)).rejects.toThrow(`credentials file "${folder}" is a directory, not a regular file`);

    // Valid JSON past the limit: refused for its size, not parsed.
    const huge = await write('huge.json', JSON.stringify({ ...credentials, padding: 'x'.repeat(MAX_CREDENTIALS_FILE_BYTES) }));
    await expect(readCredentialsFile(huge)).rejects.toThrow(`credentials file "${huge}" is larger than 64.0 KiB`);
    const justUnder = await write('padded.json', JSON.stringify({ ...credentials, padding: 'x'.repeat(MAX_CREDENTIALS_FILE_BYTES - 1000) }));
    expect((await readCredentialsFile(justUnder)).apiKey).toBe(API_KEY);
  });

  it('fileCredentialsSource re-reads the file, so withCredentialRefresh picks up an edit', async () => {
    const file = await write('rotating.json', JSON.stringify(credentials));
    const source = fileCredentialsSource(file);
    let calls = 0;
    const result = await withCredentialRefresh(source, async (c) => {
      calls += 1;
      if (calls === 1) {
        await writeFile(file, JSON.stringify({ ...c, apiKey: 'new-key' }));
        throw new AuthenticationError('401', { operation: 'x', status: 401 });
      }
      return c.apiKey;
    });
    expect(result).toBe('new-key');
  });
});
