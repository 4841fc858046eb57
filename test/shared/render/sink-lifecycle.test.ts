import { once } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ExporterError, StorageError } from '../../../shared/core/errors';
import { SinkLifecycle } from '../../../shared/render/sink-lifecycle';

/** A stream that collects what it is given and finishes when ended. */
function collector(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

describe('SinkLifecycle', () => {
  it('writes what is still buffered at close, ends the stream and resolves once it has finished', async () => {
    const out = collector();
    const life = new SinkLifecycle(out.stream, 'the test file');
    await life.write('a,');
    await life.close(() => life.write('b\r\n'));
    expect(out.text()).toBe('a,b\r\n');
    expect(out.stream.writableFinished).toBe(true);
  });

  it('refuses a write or a second close after close, naming the output', async () => {
    const life = new SinkLifecycle(collector().stream, 'the CSV file of "risks"');
    await life.close();
    expect(() => life.checkWritable()).toThrow(new ExporterError('The CSV file of "risks" is closed'));
    await expect(life.close()).rejects.toThrow('The CSV file of "risks" is closed');
  });

  it('remembers a stream error and gives it to the producer at its next write, as a StorageError with the reason', async () => {
    const out = new PassThrough();
    const life = new SinkLifecycle(out, 'the Parquet file of "okrs"');
    const closed = new Promise((resolve) => out.on('close', resolve));
    out.destroy(new Error('EPIPE: the uploader went away'));
    await closed;
    const error = (() => {
      try {
        life.checkWritable();
        return undefined;
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toBe('Writing the Parquet file of "okrs" failed: EPIPE: the uploader went away');
    await expect(life.close()).rejects.toThrow(/Writing the Parquet file of "okrs" failed: EPIPE/);
  });

  it('passes a StorageError of the store on as it is (it already names the file)', async () => {
    const stored = new StorageError('./out/x.csv: ENOSPC');
    const life = new SinkLifecycle(collector().stream, 'the CSV file of "x"');
    await expect(life.close(() => Promise.reject(stored))).rejects.toBe(stored);
  });

  it('waits for what its `ended` says, not only for the stream it writes into', async () => {
    const out = collector();
    let delivered!: () => void;
    const downstream = new Promise<void>((resolve) => (delivered = resolve));
    const life = new SinkLifecycle(out.stream, 'the snapshot of "risks"', () => downstream);
    let closed = false;
    const closing = life.close().then(() => (closed = true));
    await once(out.stream, 'finish');
    expect(closed).toBe(false);
    delivered();
    await closing;
    expect(closed).toBe(true);
  });
});
