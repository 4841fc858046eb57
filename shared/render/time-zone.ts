/**
 * Wall-clock time of instants in the report's time zone, fast enough for every datetime cell of a
 * 300,000-row table: Intl's formatToParts costs microseconds per call, so offsets are cached per
 * UTC day, and per 15-minute slice on the few days with a transition. A span whose ends (and, for a
 * day, its middle) have different offsets is split further, down to exact per-instant results, so
 * the cache never changes a result unless a zone changed its offset twice within a span.
 */

import { DAY_MS } from '../core/clock';

const SLICE_MS = 15 * 60 * 1000;
/** Bounded: a table spanning decades of distinct instants must not grow a cache without limit. */
const MAX_CACHED = 8192;
/** Marks a span that contains a transition: its instants are looked up in a finer way. */
const MIXED = Number.NaN;

export interface ZoneClock {
  readonly timeZone: string;
  /** Offset of the zone from UTC at `epochMs`, in milliseconds (+01:00 → 3,600,000). */
  offsetMs(epochMs: number): number;
  /** `2026-11-21T08:00:00+01:00` (milliseconds only when not zero). */
  isoWithOffset(instant: Date): string;
}

/** Throws a RangeError naming the zone when Intl does not know it. */
export function createZoneClock(timeZone: string): ZoneClock {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
  } catch (error) {
    throw new RangeError(`Unknown time zone "${timeZone}": use an IANA name such as "Europe/Berlin"`, {
      cause: error,
    });
  }

  const exactOffset = (epochMs: number): number => {
    const wholeSecond = Math.floor(epochMs / 1000) * 1000;
    let year = 0;
    let month = 0;
    let day = 0;
    let hour = 0;
    let minute = 0;
    let second = 0;
    let bc = false;
    for (const part of format.formatToParts(wholeSecond)) {
      switch (part.type) {
        case 'year': year = Number(part.value); break;
        case 'month': month = Number(part.value); break;
        case 'day': day = Number(part.value); break;
        case 'hour': hour = Number(part.value); break;
        case 'minute': minute = Number(part.value); break;
        case 'second': second = Number(part.value); break;
        case 'era': bc = part.value.startsWith('B'); break;
        default: break;
      }
    }
    const wall = new Date(0);
    // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
    wall.setUTCFullYear(bc ? 1 - year : year, month - 1, day);
    wall.setUTCHours(hour, minute, second, 0);
    return wall.getTime() - wholeSecond;
  };

  // A day that is mixed is looked up by its slices, and a mixed slice instant by instant.
  const sliceOffset = spanOffsets(SLICE_MS, [SLICE_MS - 1], exactOffset, exactOffset);
  const offsetMs = spanOffsets(DAY_MS, [DAY_MS / 2, DAY_MS - 1], exactOffset, sliceOffset);

  return {
    timeZone,
    offsetMs,
    isoWithOffset(instant: Date): string {
      const epochMs = instant.getTime();
      const offset = offsetMs(epochMs);
      if (offset % 60_000 !== 0) {
        // Local mean time before standard zones (e.g. +00:19:32): ISO 8601 offsets have no seconds,
        // so the instant is written in UTC rather than with a rounded, wrong offset.
        return `${isoLocal(epochMs)}Z`;
      }
      return isoLocal(epochMs + offset) + formatOffset(offset);
    },
  };
}

/**
 * Offsets cached per span of `spanMs` from the epoch: one offset for a span whose start and `probes`
 * (distances from its start, checked in order) agree; a span where they differ is marked MIXED and
 * its instants are passed to `finer`.
 */
function spanOffsets(
  spanMs: number,
  probes: readonly number[],
  exactOffset: (epochMs: number) => number,
  finer: (epochMs: number) => number,
): (epochMs: number) => number {
  const spans = new Map<number, number>();
  return (epochMs) => {
    const span = Math.floor(epochMs / spanMs);
    let offset = spans.get(span);
    if (offset === undefined) {
      const start = span * spanMs;
      const first = exactOffset(start);
      offset = probes.every((probe) => exactOffset(start + probe) === first) ? first : MIXED;
      if (spans.size >= MAX_CACHED) spans.clear();
      spans.set(span, offset);
    }
    return Number.isNaN(offset) ? finer(epochMs) : offset;
  };
}

/** ISO 8601 of the UTC fields of `epochMs`, without zone designator. */
function isoLocal(epochMs: number): string {
  const iso = new Date(epochMs).toISOString();
  // toISOString always has milliseconds; "…T08:00:00.000Z" → "…T08:00:00".
  const dot = iso.lastIndexOf('.');
  const millis = iso.slice(dot + 1, -1);
  return millis === '000' ? iso.slice(0, dot) : iso.slice(0, -1);
}

function formatOffset(offsetMs: number): string {
  const minutes = Math.abs(offsetMs) / 60_000;
  const hh = String(Math.floor(minutes / 60)).padStart(2, '0');
  const mm = String(minutes % 60).padStart(2, '0');
  return `${offsetMs < 0 ? '-' : '+'}${hh}:${mm}`;
}
