import type { Log } from '../../core/logger';
import type { Clock } from '../../core/clock';
import type { ProgressEvent } from '../../report/dataset/dataset';
import type { JobStatus, JobStatusStore } from './job-status';

/** At most one progress write per this many milliseconds: a page polls every few seconds anyway. */
export const PROGRESS_WRITE_INTERVAL_MS = 1_000;

export interface JobProgress {
  readonly onProgress: (event: ProgressEvent) => void;
  /** Waits for the last progress write, so the final status is never overwritten by a late one. */
  settle(): Promise<void>;
}

/**
 * Keeps an on-demand job's `progress` (datasets done, rows so far) up to date while the export
 * streams. Writes are throttled by the injected clock, serialised (one in flight), and best effort:
 * a failed progress write is logged and never fails the export.
 */
export function trackJobProgress(
  exportId: string,
  deps: { jobs: JobStatusStore; datasetsTotal: number; clock: Clock; log: Log },
): JobProgress {
  let datasetsStarted = 0;
  let rowsDone = 0;
  let rowsInTable = 0;
  let lastWrite = Number.NEGATIVE_INFINITY;
  let chain: Promise<void> = Promise.resolve();
  let closed = false;

  const snapshot = (): NonNullable<JobStatus['progress']> => ({
    datasetsDone: Math.max(0, datasetsStarted - 1),
    datasetsTotal: deps.datasetsTotal,
    rows: rowsDone + rowsInTable,
  });
  const write = (force: boolean) => {
    const at = deps.clock();
    if (closed || (!force && at.getTime() - lastWrite < PROGRESS_WRITE_INTERVAL_MS)) return;
    lastWrite = at.getTime();
    const progress = snapshot();
    chain = chain
      .then(() => deps.jobs.update(exportId, { progress }, at))
      .then(
        () => undefined,
        (error: unknown) => deps.log.warn('could not record export progress', { exportId, error: String(error) }),
      );
  };

  return {
    onProgress(event) {
      switch (event.type) {
        case 'dataset':
          datasetsStarted++;
          write(true);
          break;
        case 'rows':
          rowsInTable = event.rows;
          write(false);
          break;
        case 'table-done':
          rowsDone += event.rows;
          rowsInTable = 0;
          write(false);
          break;
        case 'file-stored':
          break;
      }
    },
    async settle() {
      closed = true;
      await chain;
    },
  };
}

/** The progress of a finished job: every dataset done, every row counted. */
export function finalProgress(rowsByTable: Readonly<Record<string, number>>, datasetsTotal: number): NonNullable<JobStatus['progress']> {
  return { datasetsDone: datasetsTotal, datasetsTotal, rows: Object.values(rowsByTable).reduce((a, b) => a + b, 0) };
}
