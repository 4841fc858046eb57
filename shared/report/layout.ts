import { isoDateInZone } from './dates';

/**
 * The output layout, the same in a local directory and in S3 (relative to the bucket prefix):
 *   <name>/dt=<YYYY-MM-DD>/run=<runId>/<name>.xlsx, <table>.csv, manifest.json
 *   <name>/latest.json
 */
export function runFolderKey(report: string, runDate: Date, timeZone: string, runId: string): string {
  return `${report}/dt=${isoDateInZone(runDate, timeZone)}/run=${runId}`;
}

export function manifestKey(runFolder: string): string {
  return `${runFolder}/manifest.json`;
}

export function latestKey(report: string): string {
  return `${report}/latest.json`;
}

export const CONTENT_TYPES = {
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  csv: 'text/csv; charset=utf-8',
  json: 'application/json',
} as const;
