import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip, createGzip } from 'node:zlib';
import * as z from 'zod';
import { ExporterError } from '../../core/errors';
import { SinkLifecycle } from '../../render/sink-lifecycle';
import { fingerprint, type SnapshotValue } from './specs';

/**
 * A table's snapshot: gzip-compressed NDJSON beside the manifest (`snapshots/<table>.ndjson.gz`).
 * Line 1 is the header (the table's columns, the tracked fields, the selection it was exported
 * with); every further line is one row: `[fingerprint, key, shownKey, title, scopeUnit, [tracked values]]`,
 * the fingerprint first so the first pass over a baseline reads it and the key without parsing the rest.
 * Only the key, what a change row shows, and the tracked fields are kept: at 300,000 board items a
 * snapshot is a few MB, where the CSV is a hundred.
 */
export const SNAPSHOT_FORMAT = 'planning-report-exporter/snapshot';

const scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);

export const snapshotHeaderSchema = z.object({
  format: z.literal(SNAPSHOT_FORMAT),
  version: z.literal(1),
  table: z.string(),
  /** Every column of the table, tracked or not. */
  columns: z.array(z.string()),
  fields: z.array(z.object({ column: z.string(), type: z.string() })),
  scope: z.object({
    /** The registers, strategic themes or boards the table was exported from. */
    units: z.array(z.object({ id: z.string(), label: z.string() })),
    /** Selector settings that change values without changing rows (e.g. PI objectives' completionType). */
    settings: z.record(z.string(), scalar),
  }),
});
export type SnapshotHeader = z.infer<typeof snapshotHeaderSchema>;

export interface SnapshotRow {
  readonly key: string;
  readonly display: string;
  readonly title: string | null;
  readonly scope: string | null;
  readonly values: readonly SnapshotValue[];
}

/**
 * Titles are kept to this many characters (a removed row is shown by its key and the start of its
 * title): board-item summaries run to hundreds of characters, and serialising and compressing them
 * in full was most of the snapshot's cost at 300,000 rows.
 */
export const SNAPSHOT_TITLE_CHARS = 120;

export function snapshotTitle(title: string | null): string | null {
  return title !== null && title.length > SNAPSHOT_TITLE_CHARS ? `${title.slice(0, SNAPSHOT_TITLE_CHARS - 1)}…` : title;
}

/** Rows are joined to about this many characters before a write, as in the CSV renderer. */
const CHUNK_CHARS = 64 * 1024;

export interface SnapshotWriter {
  /** Adds one row; its fingerprint is returned so the caller does not compute it twice. */
  write(row: SnapshotRow): { fingerprint: number; pending: Promise<void> | undefined };
  close(): Promise<void>;
}

export function openSnapshotWriter(out: Writable, header: SnapshotHeader): SnapshotWriter {
  // Level 1: the snapshot is written while the rows stream, and speed matters more than 20 % of a few MB.
  const gzip = createGzip({ level: 1 });
  const done = pipeline(gzip, out);
  // Observed by close(); until then a failure must not be an unhandled rejection.
  done.catch(() => undefined);
  // The rows go into gzip; the snapshot is written once the pipeline has delivered all to `out`.
  const life = new SinkLifecycle(gzip, `the snapshot of "${header.table}"`, () => done);
  let pending = JSON.stringify(header) + '\n';
  const flush = (): Promise<void> | undefined => {
    const chunk = pending;
    pending = '';
    return life.write(chunk);
  };
  return {
    write(row) {
      life.checkWritable();
      const valuesJson = JSON.stringify(row.values);
      const print = fingerprint(valuesJson);
      // The shown key is usually the key itself (or its tail): written as 0 then, to keep snapshots small.
      const display = row.display === row.key ? '0' : JSON.stringify(row.display);
      pending += `[${print},${JSON.stringify(row.key)},${display},${JSON.stringify(snapshotTitle(row.title))},${JSON.stringify(row.scope)},${valuesJson}]\n`;
      return { fingerprint: print, pending: pending.length >= CHUNK_CHARS ? flush() : undefined };
    },
    async close() {
      await life.close(() => {
        // Not waited for: ending the stream flushes it, and close waits until all has gone out.
        gzip.write(pending);
        pending = '';
      });
    },
  };
}

/** A snapshot that cannot be read: the comparison of that table is skipped with this reason. */
export class SnapshotReadError extends ExporterError {
  static override readonly kind: string = 'snapshot-read';
}

/**
 * Reads a stored snapshot line by line: the header, then each row, either in full (`onRow`) or only
 * its key and fingerprint (`onKey`, the first pass: no JSON parsing for keys without escapes). `want`
 * and `onRow` get the row's ordinal too (0 for the first row after the header), whether or not earlier
 * rows were wanted: the comparison's key map knows baseline rows by it (spilled-key-prints.ts). The
 * stored bytes arrive and are decompressed as a stream, so only one chunk of text is held at a time. Anything
 * malformed is a SnapshotReadError.
 */
export async function readSnapshot(
  source: AsyncIterable<Uint8Array>,
  onHeader: (header: SnapshotHeader) => void,
  on:
    | { readonly onRow: (row: SnapshotRow, ordinal: number) => void; readonly want?: (key: string, ordinal: number) => boolean }
    | { readonly onKey: (key: string, fingerprint: number) => void },
): Promise<void> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let header: SnapshotHeader | undefined;
  let lineNo = 0;
  /** Rows read so far: the next row's ordinal. */
  let rows = 0;
  const take = (line: string) => {
    lineNo++;
    if (line === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      throw new SnapshotReadError(`line ${lineNo} is not JSON`, { cause: error });
    }
    if (!header) {
      const result = snapshotHeaderSchema.safeParse(parsed);
      if (!result.success) throw new SnapshotReadError('its header is not a snapshot header of this version');
      header = result.data;
      onHeader(header);
      return;
    }
    if (!Array.isArray(parsed) || parsed.length !== 6 || typeof parsed[0] !== 'number' || typeof parsed[1] !== 'string' || !Array.isArray(parsed[5])) {
      throw new SnapshotReadError(`line ${lineNo} is not a snapshot row`);
    }
    const [print, key, display, title, scope, values] = parsed as [number, string, unknown, unknown, unknown, SnapshotValue[]];
    const ordinal = rows++;
    if ('onKey' in on) on.onKey(key, print);
    else on.onRow({ key, display: typeof display === 'string' ? display : key, title: textOrNull(title), scope: textOrNull(scope), values }, ordinal);
  };
  /**
   * `[<fingerprint>,"<key>",` read with indexOf when the key has no escapes: the first pass needs
   * nothing else, and the second parses only the rows it wants.
   */
  const quick = 'onKey' in on ? on.onKey : undefined;
  const want = 'want' in on ? on.want : undefined;
  const takeQuick = (line: string): boolean => {
    if ((!quick && !want) || !header || line.charCodeAt(0) !== 91 /* [ */) return false;
    const comma = line.indexOf(',');
    if (comma < 0 || line.charCodeAt(comma + 1) !== 34 /* " */) return false;
    const close = line.indexOf('"', comma + 2);
    const key = line.slice(comma + 2, close);
    const print = Number(line.slice(1, comma));
    if (close < 0 || key.includes('\\') || !Number.isSafeInteger(print)) return false;
    // A wanted row is parsed in full by `take`, which counts it then.
    if (want && want(key, rows)) return false;
    lineNo++;
    rows++;
    quick?.(key, print);
    return true;
  };
  try {
    for await (const chunk of Readable.from(source).pipe(createGunzip())) {
      rest += decoder.write(chunk as Buffer);
      let newline = rest.indexOf('\n');
      let start = 0;
      while (newline >= 0) {
        const line = rest.slice(start, newline);
        if (!takeQuick(line)) take(line);
        start = newline + 1;
        newline = rest.indexOf('\n', start);
      }
      rest = rest.slice(start);
    }
    take(rest + decoder.end());
  } catch (error) {
    // zlib's errors carry a Z_ code; anything else came from a callback and is the caller's.
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('Z_')) throw new SnapshotReadError('it is not valid gzip', { cause: error });
    throw error;
  }
  if (!header) throw new SnapshotReadError('it is empty');
}

function textOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}
