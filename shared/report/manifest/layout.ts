import { isoDateInZone } from '../dataset/dates';

/**
 * The output layout, the same in a local directory and in S3 (relative to the bucket prefix):
 *   <name>/dt=<YYYY-MM-DD>/run=<runId>/<name>.xlsx, <table>.csv, manifest.json
 *   <name>/latest.json
 * and the machine layout, one prefix per table so a downstream table can span runs (docs/downstream.md):
 *   <name>/tables/<table>/dt=<YYYY-MM-DD>/run=<runId>/part-00000.parquet
 *   <name>/tables/<table>/_schema.json
 * An attempt writes its table files outside the table prefixes, in its run's staging area:
 *   _staging/<name>/run=<runId>/<table>.parquet (a later attempt's: <table>.g2.parquet)
 * and the run's publishing copies them to the table prefixes (docs/run-atomicity.md, "Publishing
 * into the tables"): a table prefix holds only the files of published runs.
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

/**
 * The staging area of all reports' runs: one prefix, so a bucket lifecycle rule can expire what an
 * abandoned attempt left there (a name no report can have: names start with a letter or digit).
 */
export const STAGING_PREFIX = '_staging';
/**
 * Days the bucket keeps a staged file (infra lifecycle rule): a run's publishing takes seconds, so
 * this only bounds what abandoned attempts leave; a run that died publishing must be finished (its
 * run id rerun) within it, after that its copies have no source and it is exported with a new run id.
 */
export const STAGING_RETENTION_DAYS = 3;

/** Where the attempts of one run stage their table files until the run is published. */
export function stagingFolderKey(report: string, runId: string): string {
  return `${STAGING_PREFIX}/${report}/run=${runId}`;
}

/** The staged file of one table of a run (an attempt adds its generation, run-writer.ts attemptKey). */
export function stagedTableKey(report: string, table: string, runId: string): string {
  return `${stagingFolderKey(report, runId)}/${table}.parquet`;
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
