import { createHash } from 'node:crypto';
import { once } from 'node:events';
import type { Writable } from 'node:stream';

/** Deterministic, incompressible-looking bytes (so a part boundary bug changes the hash). */
export function patternBytes(length: number, seed = 1): Buffer {
  const buffer = Buffer.alloc(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    buffer[i] = x & 0xff;
  }
  return buffer;
}

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Writes `data` in chunks honouring backpressure, then ends the stream. */
export async function writeInChunks(stream: Writable, data: Uint8Array, chunkSize = 64 * 1024): Promise<void> {
  for (let offset = 0; offset < data.byteLength; offset += chunkSize) {
    if (!stream.write(data.subarray(offset, offset + chunkSize))) await once(stream, 'drain');
  }
  stream.end();
}
