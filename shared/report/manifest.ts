import * as z from 'zod';
import { manifestChangesSchema } from './changes/manifest-changes';

/**
 * manifest.json: written last in a run folder `<name>/dt=<YYYY-MM-DD>/run=<runId>/`, after every file
 * it lists is in place. `latest.json` (at `<name>/latest.json`) points at the newest manifest.
 * Downstream jobs read these; the shape is versioned by `formatVersion`.
 */
export const manifestFileSchema = z.object({
  /** Relative to the manifest's folder. */
  path: z.string(),
  format: z.enum(['xlsx', 'csv']),
  contentType: z.string(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  /** Data rows per table (CSV: one entry; workbook: one per sheet, Summary excluded). */
  rows: z.record(z.string(), z.number().int().nonnegative()),
});

export const manifestSchema = z.object({
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
  files: z.array(manifestFileSchema),
  /** Figures for the Summary sheet and the e-mail (row counts, risks by level, completion). */
  summary: z.record(z.string(), z.unknown()),
  /** The comparison with an earlier run and this run's table snapshots (docs/changes.md). */
  changes: manifestChangesSchema.optional(),
});

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestFile = z.infer<typeof manifestFileSchema>;

export const latestPointerSchema = z.object({
  report: z.string(),
  runId: z.string(),
  generatedAt: z.string(),
  /** Key of the manifest, relative to the storage root. */
  manifest: z.string(),
});
export type LatestPointer = z.infer<typeof latestPointerSchema>;
