import * as z from 'zod';

/** Whether a run was started by its schedule or on demand (API, command line); see baseline.ts. */
export type RunTrigger = 'scheduled' | 'on-demand';

/** What the manifest records about the comparison (`changes` in manifest.json). */
export const manifestChangesSchema = z.object({
  trigger: z.enum(['scheduled', 'on-demand']) satisfies z.ZodType<RunTrigger>,
  /** The manifest latest.json pointed at when this run started: the link to walk back through. */
  previous: z.string().nullable(),
  baseline: z.object({ runId: z.string(), generatedAt: z.string(), manifest: z.string() }).nullable(),
  /** Why nothing was compared, in one sentence; null when a baseline was used. */
  note: z.string().nullable(),
  counts: z.object({ added: z.number(), removed: z.number(), changed: z.number(), scope: z.number() }),
  /** One snapshot per compared table, for the next run. */
  snapshots: z.array(
    z.object({
      table: z.string(),
      path: z.string(),
      bytes: z.number().int().nonnegative(),
      sha256: z.string().regex(/^[0-9a-f]{64}$/),
      rows: z.number().int().nonnegative(),
    }),
  ),
});
export type ManifestChanges = z.infer<typeof manifestChangesSchema>;

