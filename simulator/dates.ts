/** Date helpers (UTC only, so output never depends on the machine's time zone). */
import type { TenantStory } from './types';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

/** Milliseconds in a day. */
export const DAY_MS = 86_400_000;

/** Epoch ms of 2025-01-06T00:00:00Z, the anchor of generated dates. */
export const DATE_ANCHOR_MS = Date.UTC(2025, 0, 6);

/** The test flavour: fixed dates whatever the day the tests run. */
export const TEST_STORY: TenantStory = { flavour: 'test', todayMs: DATE_ANCHOR_MS };

/**
 * Where a span of generated dates starts: the fixed anchor for tests; for a demo, `daysBack` days
 * before today, so a date drawn within the span lies in the past (raised, created) and "today" is
 * the end of it.
 */
export function dateBase(story: TenantStory, daysBack: number): number {
  return story.flavour === 'demo' ? story.todayMs - daysBack * DAY_MS : DATE_ANCHOR_MS;
}

function parts(ms: number): { dd: string; mon: string; yyyy: string } {
  const d = new Date(ms);
  return {
    dd: String(d.getUTCDate()).padStart(2, '0'),
    mon: MONTHS[d.getUTCMonth()] ?? 'Jan',
    yyyy: String(d.getUTCFullYear()),
  };
}

/** `DD-Mon-YYYY`, e.g. 05-Mar-2026 (risk dates). */
export function formatRiskDate(ms: number): string {
  const p = parts(ms);
  return `${p.dd}-${p.mon}-${p.yyyy}`;
}

/** `DD Mon, YY`, e.g. `05 Mar, 26` (board item dates). */
export function formatItemDate(ms: number): string {
  const p = parts(ms);
  return `${p.dd} ${p.mon}, ${p.yyyy.slice(2)}`;
}

/** `YYYY-MM-DD` (date custom fields). */
export function formatIsoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
