import * as z from 'zod';
import { ledgerKey, type Ledger } from '../../ledger/ledger';
import { ledgerRecord, type LedgerRecord } from '../../ledger/ledger-record';
import { daysAfter } from '../../core/clock';

/**
 * Status of an on-demand export, kept in the run ledger (`job/<id>`): the API records `queued`, the
 * export job moves it to `running` and then to `succeeded` or `failed`. Every move is a
 * compare-and-swap from the states it may come from, so `queued → running` happens once: a
 * duplicate delivery of the same job finds it running (or finished) and does nothing.
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
  /** Whether the run's message was sent, and why (`delivery.when`). */
  delivery: z.string().optional(),
  /** A reason a user can act on; never a stack trace. */
  error: z.string().optional(),
});
export type JobStatus = z.infer<typeof jobStatusSchema>;
type JobState = JobStatus['status'];

/** The states each state may be entered from; a finished job never changes again. */
const ENTERED_FROM: Readonly<Record<JobState, readonly JobState[]>> = {
  queued: [],
  running: ['queued'],
  succeeded: ['running'],
  failed: ['queued', 'running'],
};

/** Job entries outlive their download links (one hour) by far, then expire (ledger TTL). */
const JOB_DAYS = 30;

/** The status of on-demand export jobs, kept in the ledger with compare-and-swap updates; jobs expire after 30 days. */
export class JobStatusStore {
  constructor(private readonly ledger: Ledger) {}

  async get(id: string): Promise<JobStatus | undefined> {
    if (!EXPORT_ID_PATTERN.test(id)) return undefined;
    return (await this.record(id).read()).value;
  }

  /** Records a new job; false when a job with this id exists already (it is left as it is). */
  put(status: JobStatus): Promise<boolean> {
    return this.record(status.id).put(status, 0, { expiresAt: expiry(status) });
  }

  /**
   * Moves a job to a new state, keeping what it already knew, if its current state allows it.
   * Undefined when there is no such job or the move is not allowed (e.g. a second `running`).
   */
  async update(id: string, change: Partial<Omit<JobStatus, 'id' | 'createdAt'>>, now: Date): Promise<JobStatus | undefined> {
    const changed = await this.record(id).change(
      (current) => {
        if (!current) return undefined;
        if (change.status !== undefined && !ENTERED_FROM[change.status].includes(current.status)) return undefined;
        return { ...current, ...change, updatedAt: now.toISOString() };
      },
      { expiresAt: expiry },
    );
    return changed.outcome === 'written' ? changed.value : undefined;
  }

  private record(id: string): LedgerRecord<JobStatus> {
    return ledgerRecord(this.ledger, ledgerKey('job', id), jobStatusSchema, { what: `the status of export job ${id}` });
  }
}

/** When the ledger forgets a job: JOB_DAYS after it was created (the schema checks `createdAt` is a date-time). */
function expiry(status: Pick<JobStatus, 'createdAt'>): Date {
  return daysAfter(new Date(status.createdAt), JOB_DAYS);
}
