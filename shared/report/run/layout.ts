import { isoDateInZone } from '../dataset/dates';

/**
 * The output layout, the same in a local directory and in S3 (relative to the bucket prefix):
 *   <name>/dt=<YYYY-MM-DD>/run=<runId>/<name>.xlsx, <table>.csv, manifest.json
 *   <name>/latest.json
 * and the machine layout, one prefix per table so a downstream table can span runs (docs/downstream.md):
 *   <name>/tables/<table>/dt=<YYYY-MM-DD>/run=<runId>/part-00000.parquet
 *   <name>/tables/<table>/_schema.json
 */
export function runFolderKey(report: string, runDate: Date, timeZone: string, runId: string): string {
  return `${report}/dt=${isoDateInZone(runDate, timeZone)}/run=${runId}`;
}

/** Prefix of one table's files across runs: what a Glue table's location points at. */
export function tablePrefix(report: string, table: string): string {
  return `${report}/tables/${table}`;
}

export function tableFileKey(report: string, table: string, runDate: Date, timeZone: string, runId: string): string {
  return `${tablePrefix(report, table)}/dt=${isoDateInZone(runDate, timeZone)}/run=${runId}/part-00000.parquet`;
}

export function tableSchemaKey(report: string, table: string): string {
  return `${tablePrefix(report, table)}/_schema.json`;
}

export function manifestKey(runFolder: string): string {
  return `${runFolder}/manifest.json`;
}

export function latestKey(report: string): string {
  return `${report}/latest.json`;
}

/** The manifest's and latest.json's; a format's content type is in its registry entry (formats.ts). */
export const JSON_CONTENT_TYPE = 'application/json';
