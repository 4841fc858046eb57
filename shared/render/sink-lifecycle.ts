import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { ExporterError, type StorageError } from '../core/errors';
import { outputWriteError, waitForDrain } from './output-error';

/**
 * The life of a sink that streams into one Writable, the same for every file a run writes row by
 * row (CSV, Parquet, snapshots): a write after close is a programming error; a stream error is
 * remembered (an 'error' event without a listener would crash the process) and reaches the producer
 * at its next write or at close; close ends the stream once and waits until it has finished; every
 * failure becomes a StorageError naming the output.
 */
export class SinkLifecycle {
  private closed = false;
  private failure: Error | undefined;

  /**
   * `what` names the output in messages (`the CSV file of "risks"`). `ended` resolves once
   * everything written has left for good; by default when `out` has finished (its writable side: a
   * Duplex `out`, such as a PassThrough to an uploader, finishes when that side does).
   */
  constructor(
    private readonly out: Writable,
    private readonly what: string,
    private readonly ended: () => Promise<unknown> = () => finished(out, { readable: false }),
  ) {
    out.on('error', (error: Error) => {
      this.failure ??= error;
    });
  }

  /** Call before every write: throws once the sink is closed or its stream has failed. */
  checkWritable(): void {
    if (this.closed) throw this.closedError();
    if (this.failure) throw this.error(this.failure);
  }

  /**
   * Writes a chunk (also while closing: what is still buffered); the promise, when the stream is
   * full, resolves once it drained. Throws once the stream has failed.
   */
  write(chunk: string | Uint8Array): Promise<void> | undefined {
    if (this.failure) throw this.error(this.failure);
    return this.out.write(chunk) ? undefined : waitForDrain(this.out, this.what);
  }

  /** Ends the sink once: `last` writes what is still buffered, then the stream is ended and waited for. */
  async close(last?: () => Promise<void> | void): Promise<void> {
    if (this.closed) throw this.closedError();
    this.closed = true;
    if (this.failure) throw this.error(this.failure);
    try {
      await last?.();
      this.out.end();
      await this.ended();
    } catch (error) {
      throw this.error(error);
    }
  }

  /** A failure of this output as the producer sees it. */
  error(cause: unknown): StorageError {
    return outputWriteError(this.what, cause);
  }

  private closedError(): ExporterError {
    return new ExporterError(`${this.what.charAt(0).toUpperCase()}${this.what.slice(1)} is closed`);
  }
}
