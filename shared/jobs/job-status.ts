import * as z from 'zod';
import type { Storage } from '../storage/storage';
import { CONTENT_TYPES } from '../report/layout';

/**
 * Status of an on-demand export, kept as a small JSON object next to the reports
 * (`_exports/<id>.json` under the storage root): the API writes `queued`, the export job
 * `running` and then `succeeded` or `failed`. S3 gives read-after-write consistency, so a GET right
 * after POST sees the job. No database is needed for a handful of writes per export.
 */
export const EXPORT_ID_PATTERN = /^[a-z0-9][a-z0-9-]{7,63}$/;

export const jobStatusSchema = z.object({
  id: z.string().regex(EXPORT_ID_PATTERN),
  report: z.string(),
  status: z.enum(['queued', 'running', 'succeeded', 'failed']),
  createdAt: z.string(),
  updatedAt: z.string(),
  runId: z.string().optional(),
  manifestKey: z.string().optional(),
  /** Written by the export as it streams (job-progress.ts), for the run page. */
  progress: z
    .object({ datasetsDone: z.number().int().nonnegative(), datasetsTotal: z.number().int().nonnegative(), rows: z.number().int().nonnegative() })
    .optional(),
  /** A reason a user can act on; never a stack trace. */
  error: z.string().optional(),
});
export type JobStatus = z.infer<typeof jobStatusSchema>;

export class JobStatusStore {
  constructor(private readonly storage: Storage) {}

  static key(id: string): string {
    return `_exports/${id}.json`;
  }

  async get(id: string): Promise<JobStatus | undefined> {
    if (!EXPORT_ID_PATTERN.test(id)) return undefined;
    const bytes = await this.storage.getObject(JobStatusStore.key(id));
    if (!bytes) return undefined;
    return jobStatusSchema.parse(JSON.parse(Buffer.from(bytes).toString('utf8')));
  }

  async put(status: JobStatus): Promise<void> {
    await this.storage.putObject(JobStatusStore.key(status.id), JSON.stringify(status), {
      contentType: CONTENT_TYPES.json,
    });
  }

  /** Moves a job to a new state, keeping what it already knew. */
  async update(id: string, change: Partial<Omit<JobStatus, 'id' | 'createdAt'>>, now: Date): Promise<JobStatus | undefined> {
    const current = await this.get(id);
    if (!current) return undefined;
    const next = { ...current, ...change, updatedAt: now.toISOString() };
    await this.put(next);
    return next;
  }
}
