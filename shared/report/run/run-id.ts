import { randomBytes } from 'node:crypto';

/** A sortable, unique run id: `20261121T073000Z-3f9a1c`. */
export function newRunId(at: Date): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

/** Run ids come from callers (schedules, API requests) and end up in keys: keep them key-safe. */
export const RUN_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
