import * as z from 'zod';

/**
 * Ports of the job layer: the job request and starting a job without waiting for it. The adapter
 * (lambda-launcher.ts) implements the launcher with the AWS SDK; tests pass in-process fakes or
 * adapters pointed at local servers.
 */

/**
 * The payload the export job accepts, from a schedule or from the API through the launcher: the
 * one schema of it; the type is inferred from it. Loose, so a field a newer sender adds does not
 * fail an older function during a deployment.
 */
export const exportJobRequestSchema = z.looseObject({
  /** Name of a configured report definition. */
  report: z.string().optional(),
  /** A full definition (on-demand exports); validated like a configured one. */
  definition: z.unknown().optional(),
  /** Fields that replace those of the named definition (on-demand exports). */
  overrides: z.record(z.string(), z.unknown()).optional(),
  source: z.enum(['schedule', 'api', 'manual']).optional(),
  /** On-demand export id: its status object is updated. */
  exportId: z.string().optional(),
  /** Scheduler context: makes retries of one scheduled run reuse the same run id and keys. */
  scheduledTime: z.string().optional(),
  executionId: z.string().optional(),
  /** The run id chosen by a fan-out's plan, so its workers and assembler name one run. */
  runId: z.string().regex(/^[A-Za-z0-9._-]{1,100}$/).optional(),
  /** Set by the fan-out: this request is a step of the state machine, not a single-path run. */
  via: z.literal('fan-out').optional(),
  /** Why the run was handed to the fan-out, in words (kept in its manifest and the run list). */
  routeReason: z.string().max(500).optional(),
});
export type ExportJobRequest = z.infer<typeof exportJobRequestSchema>;

/** Starts an export job without waiting for it (the Lambda adapter invokes asynchronously). */
export interface JobLauncher {
  launch(request: ExportJobRequest): Promise<void>;
}
