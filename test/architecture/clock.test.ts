import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Time comes from one place (shared/core/clock.ts): the doors build a clock and pass it down in the
 * run context, so nothing below them reads the wall clock by itself. A stage that did would give a
 * run two times (a link that expires from another "now" than its run, a fixed demo week that is
 * suddenly today) and a test no way to set it. Durations (`performance.now()`) are not times and may
 * be measured anywhere.
 */
const ROOT = join(import.meta.dirname, '..', '..');
const WALL_CLOCK = /\bnew Date\(\)|\bDate\.now\b/;
/** The real clock itself: only doors hand it down, so no default below them falls back on it. */
const SYSTEM_CLOCK = /\bsystemClock\b/;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Code lines that match `pattern` (comments aside), as `file:line`. */
function codeLinesMatching(file: string, pattern: RegExp): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => {
      const code = line.replace(/\/\/.*$/, '').trim();
      if (code.startsWith('*') || code.startsWith('/*')) return [];
      return pattern.test(code) ? [`${relative(ROOT, file)}:${i + 1}`] : [];
    });
}

describe('the clock', () => {
  it('is read from the wall only in shared/core/clock.ts: every other time below the doors comes from a Clock passed down', () => {
    const reads = sources(join(ROOT, 'shared'))
      .filter((file) => !file.endsWith(join('core', 'clock.ts')))
      .flatMap((file) => codeLinesMatching(file, WALL_CLOCK));
    expect(reads).toEqual([]);
  });

  it('is handed down as systemClock only by the doors: nothing under shared/ but clock.ts names it (no `?? systemClock` default)', () => {
    const uses = sources(join(ROOT, 'shared'))
      .filter((file) => !file.endsWith(join('core', 'clock.ts')))
      .flatMap((file) => codeLinesMatching(file, SYSTEM_CLOCK));
    expect(uses).toEqual([]);
  });

  it('finds a wall-clock read where there is one (the check itself works)', () => {
    expect(WALL_CLOCK.test('const at = new Date();')).toBe(true);
    expect(WALL_CLOCK.test('const ms = Date.now();')).toBe(true);
    expect(WALL_CLOCK.test('const at = new Date(run.startedAt);')).toBe(false);
  });

  it('finds a systemClock default where there is one (the check itself works)', () => {
    expect(SYSTEM_CLOCK.test('const now = (options.now ?? systemClock)().getTime();')).toBe(true);
    expect(SYSTEM_CLOCK.test("import { systemClock, type Clock } from '../core/clock';")).toBe(true);
    expect(SYSTEM_CLOCK.test('const now = options.now().getTime();')).toBe(false);
  });
});
