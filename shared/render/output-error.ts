import type { Writable } from 'node:stream';
import { errorMessage, retryableCause, StorageError } from '../core/errors';

/**
 * The error of a renderer whose output stream failed. The storage's own error already names the file
 * and the system's reason (ENOTDIR, EEXIST, EACCES...) and is passed on as it is; anything else gets
 * its message appended rather than swallowed behind a generic sentence.
 */
export function outputWriteError(what: string, error: unknown): StorageError {
  if (error instanceof StorageError) return error;
  return new StorageError(`Writing ${what} failed: ${errorMessage(error)}`, { cause: error, retryable: retryableCause(error) });
}

/**
 * Resolves when `out` drains; rejects when it fails or closes first (a destroyed stream never drains,
 * and without this the producer would wait forever). `what` names the output, e.g. "the CSV file".
 */
export function waitForDrain(out: Writable, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const cleanup = () => {
      out.off('drain', onDrain);
      out.off('error', onError);
      out.off('close', onClose);
    };
    const onDrain = () => {
      cleanup();
      resolve();
    };
    const onError = (error: Error) => {
      cleanup();
      reject(outputWriteError(what, error));
    };
    const onClose = () => {
      cleanup();
      reject(new StorageError(`The output stream of ${what} closed before all rows were written`, { retryable: true }));
    };
    out.on('drain', onDrain);
    out.on('error', onError);
    out.on('close', onClose);
  });
}
