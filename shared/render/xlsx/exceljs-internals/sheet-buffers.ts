/**
 * A data sheet's buffering: how many bytes of its XML wait in front of the zip (so the renderer can
 * pace itself) and the reuse of its 64 KiB buffers. Reaches into exceljs's StreamBuf, the
 * PassThrough archiver reads from and readable-stream 2's states (see ./writer.ts for the version
 * check).
 */
import { ExporterError } from '../../../core/errors';
import type { WriterSheet } from './writer';

/** Where a stream keeps what it holds: a public getter (Node, readable-stream 3) or its state (readable-stream 2). */
type BufferedStream = {
  writableLength?: unknown;
  readableLength?: unknown;
  _writableState?: { length?: unknown };
  _readableState?: { length?: unknown };
};

function bufferedBytes(stream: BufferedStream, side: 'writable' | 'readable'): number | undefined {
  const length = side === 'writable' ? stream.writableLength : stream.readableLength;
  if (typeof length === 'number') return length;
  const state = side === 'writable' ? stream._writableState : stream._readableState;
  return typeof state?.length === 'number' ? state.length : undefined;
}

/**
 * How many bytes of this sheet's XML wait in front of the zip. exceljs writes the XML into its own
 * StreamBuf, which passes every 64 KiB to a PassThrough (its `pipes`) that archiver reads when the
 * deflate stream asks for more. StreamBuf ignores the PassThrough's backpressure, so whatever the
 * producer writes faster than deflate compresses piles up in that PassThrough's write buffer —
 * without pacing, ~100 MB at 300,000 rows, released only when the entry ends. archiver 5 builds that
 * PassThrough from readable-stream 2, which has no `writableLength`/`readableLength` getters, so the
 * lengths are read from its stream states. Neither StreamBuf's `pipes` nor those states are public:
 * an unexpected shape is an error here, not a silent 0 that would let memory grow with the sheet.
 */
export function pendingXmlBytes(sheet: WriterSheet): () => number {
  const stream = (sheet as unknown as { stream?: { pipes?: unknown } }).stream;
  const pipes = stream?.pipes;
  const measurable = (pipe: BufferedStream | null): boolean =>
    typeof pipe === 'object' &&
    pipe !== null &&
    bufferedBytes(pipe, 'writable') !== undefined &&
    bufferedBytes(pipe, 'readable') !== undefined;
  if (!Array.isArray(pipes) || pipes.length === 0 || !(pipes as (BufferedStream | null)[]).every(measurable)) {
    throw new ExporterError(
      'exceljs internals changed: the worksheet stream has no measurable pipes (StreamBuf.pipes), so its buffering cannot be bounded',
    );
  }
  const targets = pipes as BufferedStream[];
  return () => {
    let bytes = 0;
    for (const pipe of targets) bytes += (bufferedBytes(pipe, 'writable') ?? 0) + (bufferedBytes(pipe, 'readable') ?? 0);
    return bytes;
  };
}

/** Free 64 KiB sheet buffers kept for reuse: enough for what is in flight under the renderer's pending-XML bound (../workbook.ts). */
const MAX_RECYCLED_BUFFERS = 32;

interface ReadWriteBufShape {
  size: number;
  buffer: Buffer;
  iRead: number;
  iWrite: number;
  readonly full: boolean;
}
interface SheetStreamShape {
  bufSize: unknown;
  batch: unknown;
  buffers: unknown;
  pipes: unknown;
  _getWritableBuffer: unknown;
}
interface PipedStreamShape {
  pipe: (destination: unknown, options?: unknown) => unknown;
  _readableState?: { pipes?: unknown; pipesCount?: unknown };
}
type TransformFn = (chunk: unknown, encoding: unknown, callback: (...args: unknown[]) => void) => void;

/**
 * Reuses the sheet stream's 64 KiB buffers instead of allocating one per 64 KiB of XML. exceljs's
 * StreamBuf fills a fresh `Buffer.alloc(65536)` at a time and hands it on to the zip; the bytes are
 * gone as soon as deflate has read them, but the buffer usually outlives two scavenges on its way
 * (filling, waiting in front of deflate), so V8 moves it to the old generation, where it is freed
 * only by a full GC — which V8 starts for external memory only after ~64 MB of it has piled up.
 * That garbage (up to ~1.1 KB a row, 60+ MB, measured with a FinalizationRegistry on the
 * allocations) was the difference between a 140 MB and a 195 MB peak. Here a buffer goes back to a
 * small pool the moment deflate's `_transform` has finished with it (Node's zlib drops its
 * reference before the callback; deflate keeps its own window), and StreamBuf takes its next buffer
 * from that pool. Any difference in the internals it relies on is an error, not a silent fallback.
 */
export function recycleSheetBuffers(sheet: WriterSheet): void {
  const changed = (what: string) => new ExporterError(`exceljs internals changed: ${what}; cannot recycle sheet buffers`);
  const stream = (sheet as unknown as { stream?: SheetStreamShape }).stream;
  if (!stream || typeof stream._getWritableBuffer !== 'function' || stream.batch !== true) {
    throw changed('the worksheet stream is not a batching StreamBuf');
  }
  const size = stream.bufSize;
  const buffers = stream.buffers;
  if (typeof size !== 'number' || !Array.isArray(buffers) || buffers.length === 0) {
    throw changed('StreamBuf has no bufSize or current buffer');
  }
  const sample = buffers[buffers.length - 1] as Partial<ReadWriteBufShape>;
  const fields = Object.keys(sample).sort().join(',');
  if (fields !== 'buffer,iRead,iWrite,size' || !Buffer.isBuffer(sample.buffer) || !('full' in sample)) {
    throw changed(`a StreamBuf ReadWriteBuf has the fields ${fields}`);
  }
  const ReadWriteBuf = (sample as object).constructor as { prototype: ReadWriteBufShape };
  const pipes = stream.pipes;
  if (!Array.isArray(pipes) || pipes.length !== 1 || typeof (pipes[0] as PipedStreamShape).pipe !== 'function') {
    throw changed('the worksheet stream does not feed one PassThrough');
  }

  const free: Buffer[] = [];
  const owned = new WeakSet<Buffer>();
  stream._getWritableBuffer = function getWritableBuffer(this: { buffers: ReadWriteBufShape[] }): ReadWriteBufShape {
    const last = this.buffers[this.buffers.length - 1];
    if (last && !last.full) return last;
    let buffer = free.pop();
    if (!buffer) {
      buffer = Buffer.allocUnsafeSlow(size);
      owned.add(buffer);
    }
    // Every byte is written before the buffer is read: StreamBuf hands on only full buffers
    // (batch mode) and copies the filled part of the last one when the sheet ends.
    const next = Object.create(ReadWriteBuf.prototype) as ReadWriteBufShape;
    next.size = size;
    next.buffer = buffer;
    next.iRead = 0;
    next.iWrite = 0;
    this.buffers.push(next);
    return next;
  };

  const hookDeflate = (destination: unknown) => {
    const target = destination as { _transform?: unknown } | null;
    if (!target || typeof target._transform !== 'function') throw changed('the zip entry stream has no _transform');
    const transform = target._transform as TransformFn;
    target._transform = function recyclingTransform(this: unknown, chunk, encoding, callback) {
      transform.call(this, chunk, encoding, (...args: unknown[]) => {
        callback(...args);
        if (Buffer.isBuffer(chunk) && owned.has(chunk) && free.length < MAX_RECYCLED_BUFFERS) free.push(chunk);
      });
    } satisfies TransformFn;
  };
  const passThrough = pipes[0] as PipedStreamShape;
  const state = passThrough._readableState;
  if (typeof state?.pipesCount !== 'number') throw changed('the PassThrough in front of the zip has no pipesCount');
  if (state.pipesCount === 0) {
    // archiver starts the entry (pipes it into deflate) once the entries before it are written.
    const pipe = passThrough.pipe;
    passThrough.pipe = function hookedPipe(this: unknown, destination, options) {
      hookDeflate(destination);
      passThrough.pipe = pipe;
      return pipe.call(this, destination, options);
    };
  } else if (state.pipesCount === 1) {
    hookDeflate(state.pipes);
  } else {
    throw changed('the PassThrough in front of the zip feeds several streams');
  }
}
