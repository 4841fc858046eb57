import { errorMessage, StorageError } from '../core/errors';

/**
 * The error of a renderer whose output stream failed. The storage's own error already names the file
 * and the system's reason (ENOTDIR, EEXIST, EACCES...) and is passed on as it is; anything else gets
 * its message appended rather than swallowed behind a generic sentence.
 */
export function outputWriteError(what: string, error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  return new StorageError(`Writing ${what} failed: ${errorMessage(error)}`, { cause: error });
}
