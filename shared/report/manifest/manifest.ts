import * as z from 'zod';
import { manifestChangesSchema } from './manifest-changes';
import { FORMATS, formatNames, type ReportFormat } from './formats';
import { manifestSummarySchema } from './manifest-summary';

/**
 * manifest.json: written last in a run folder `<name>/dt=<YYYY-MM-DD>/run=<runId>/`, after every file
 * it lists is in place. `latest.json` (at `<name>/latest.json`) points at the newest manifest.
 * Downstream jobs read these; the shape is versioned by `formatVersion`.
 */
const manifestFileSchemaFor = (formats: readonly ReportFormat[]) => z.object({
  /** Relative to the manifest's folder. */
  path: z.string(),
  /** A format whose files are listed here (formats.ts: `listed: 'files'`). */
  format: z.enum(formatNames(formats.filter((f) => f.listed === 'files'))),
  contentType: z.string(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** Data rows per table (CSV: one entry; workbook: one per sheet, Summary excluded). */
  rows: z.record(z.string(), z.number().int().nonnegative()),
});

const schemaColumnSchema = z.object({
  name: z.string(),
  type: z.enum(['string', 'bigint', 'double', 'boolean', 'date', 'timestamp', 'array<string>']),
  nullable: z.boolean(),
  description: z.string(),
});
export const tableSchemaSchema = z.object({ table: z.string(), version: z.string(), columns: z.array(schemaColumnSchema) });

/** A machine table file (Parquet) of the run, outside the run folder: see docs/downstream.md. */
const manifestTableFileSchemaFor = (formats: readonly ReportFormat[]) => z.object({
  table: z.string(),
  /** Relative to the report's folder `<report>/`: `tables/<table>/dt=…/run=…/part-00000.parquet`. */
  path: z.string(),
  /** A format of machine tables (formats.ts: `listed: 'tables'`). */
  format: z.enum(formatNames(formats.filter((f) => f.listed === 'tables'))),
  contentType: z.string(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  rows: z.number().int().nonnegative(),
  schemaVersion: z.string(),
  /** Relative to `<report>/`: `tables/<table>/_schema.json`. */
  schemaPath: z.string(),
  /** Per column: values that did not fit its type (written as null; the CSV has them as text). */
  nulledValues: z.record(z.string(), z.number().int().positive()).optional(),
});

/**
 * A table whose published schema (`_schema.json`) this run replaced with a different one: `minor`
 * (columns added) or `breaking` (columns removed or retyped). The ReportExported event carries these.
 */
export const schemaChangeSchema = z.object({
  table: z.string(),
  kind: z.enum(['minor', 'breaking']),
  from: z.string(),
  to: z.string(),
  added: z.array(z.string()),
  removed: z.array(z.string()),
  retyped: z.array(z.string()),
});

export const runPathSchema = z.object({ via: z.enum(['single', 'fan-out']), reason: z.string().optional() });
export type RunPath = z.infer<typeof runPathSchema>;

/**
 * The manifest of a run that wrote `formats` (a test's registry may add one); the manifests this
 * version writes and reads are `manifestSchema`, of the registry's formats.
 */
export const manifestSchemaFor = (formats: readonly ReportFormat[]) => z.object({
  formatVersion: z.literal(1),
  report: z.string(),
  runId: z.string(),
  generatedAt: z.string(),
  timeZone: z.string(),
  source: z.object({
    baseUrl: z.string(),
    legacyBaseUrl: z.string(),
    companyPrefix: z.string(),
    email: z.string(),
  }),
  /** The selectors of the definition and what they resolved to (board, register, theme ids). */
  selectors: z.record(z.string(), z.unknown()),
  files: z.array(manifestFileSchemaFor(formats)),
  /** Present when the run wrote Parquet: the machine table files and each table's versioned schema. */
  tables: z.array(manifestTableFileSchemaFor(formats)).optional(),
  schemas: z.record(z.string(), tableSchemaSchema).optional(),
  schemaChanges: z.array(schemaChangeSchema).optional(),
  /** Rows per table, the figures later runs read back, and the Summary's sections (manifest-summary.ts). */
  summary: manifestSummarySchema,
  /** The comparison with an earlier run and this run's table snapshots (docs/changes.md). */
  changes: manifestChangesSchema.optional(),
  /**
   * Whether the run's message goes out under the definition's `delivery.when`, and why in words
   * ("not sent: nothing changed since run … and delivery.when is \"changed\""); docs/delivery.md.
   */
  delivery: z.object({ send: z.boolean(), when: z.string(), reason: z.string() }).optional(),
  /**
   * Which path wrote the run: `single` (one function) or `fan-out` (the state machine), and why a run
   * was handed to the fan-out (docs/deploy.md, "Past one Lambda"). Absent in manifests of older runs.
   */
  path: runPathSchema.optional(),
});

export const manifestSchema = manifestSchemaFor(FORMATS);

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestFile = Manifest['files'][number];
export type ManifestTableFile = NonNullable<Manifest['tables']>[number];
export type SchemaChangeEntry = z.infer<typeof schemaChangeSchema>;

export const latestPointerSchema = z.object({
  report: z.string(),
  runId: z.string(),
  generatedAt: z.string(),
  /** Key of the manifest, relative to the storage root. */
  manifest: z.string(),
});
export type LatestPointer = z.infer<typeof latestPointerSchema>;
