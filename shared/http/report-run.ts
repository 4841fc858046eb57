import type { JobStatus, JobStatusStore } from '../job/status/job-status';
import type { RunLinkLedger, RunSlot } from './run-link-ledger';

/**
 * One running export per report, for every door that starts one without changing it (a run link's
 * button, `POST /exports` of a configured report): the report's slot in the run ledger names the
 * export that took it last. A request first looks at what holds the slot; if that is worth joining
 * it joins, otherwise it moves the slot to its own export with one compare-and-swap. Of racing
 * requests exactly one wins the swap and starts; the others see its export on the next round.
 */
export interface ReportRunDependencies {
  readonly ledger: Pick<RunLinkLedger, 'currentRun' | 'swapRun'>;
  readonly jobs: Pick<JobStatusStore, 'get'>;
  /** A queued or running job whose status has not changed for this long is dead (export timeout + margin). */
  readonly staleAfterMs: number;
}

/** What holds a report's slot: the slot, its job status (none yet while it is being started), and whether that export is still under way. */
export interface HeldRun {
  readonly slot: RunSlot;
  readonly job: JobStatus | undefined;
  readonly running: boolean;
}

export type RunClaim<T> =
  /** `join` (or `mayStart`) answered: nothing was started. */
  | { readonly kind: 'answered'; readonly answer: T }
  /** The slot now names this new export: the caller writes its job status and launches it. */
  | { readonly kind: 'won'; readonly slot: RunSlot }
  /** Every round lost to another starter: `slot` is theirs (if it is still there). */
  | { readonly kind: 'lost'; readonly slot: RunSlot | undefined };

/** How often a lost race for the report's slot is retried before joining whatever holds it. */
const SLOT_ATTEMPTS = 3;
/**
 * A slot whose job status does not exist yet belongs to a start in progress (the slot is taken
 * first, the job written next); after this long without one, the starter died in between and the
 * slot counts as free.
 */
const STARTING_GRACE_MS = 60_000;

/** Whether a slot without a job status is still being started (else its starter crashed). */
export function isStarting(slot: RunSlot, now: Date): boolean {
  return now.getTime() - Date.parse(slot.startedAt) < STARTING_GRACE_MS;
}

/** What holds the report's slot, if anything. A finished, failed or stale export is not running. */
export async function heldRun(report: string, deps: ReportRunDependencies, now: Date): Promise<HeldRun | undefined> {
  const slot = await deps.ledger.currentRun(report);
  if (!slot) return undefined;
  const job = await deps.jobs.get(slot.exportId);
  if (!job) return { slot, job, running: isStarting(slot, now) };
  const underWay = job.status === 'queued' || job.status === 'running';
  const alive = now.getTime() - Date.parse(job.updatedAt) <= deps.staleAfterMs;
  return { slot, job, running: job.report === report && underWay && alive };
}

/**
 * Joins what holds the report's slot when `join` says so, or takes the slot for a new export
 * (`next` makes it, once, only when one is due: an id is drawn only for a start). `mayStart`
 * may refuse a start (a run link's start limit) after joining was ruled out and before the swap.
 */
export async function claimReportRun<T>(
  report: string,
  next: () => RunSlot,
  deps: ReportRunDependencies,
  now: Date,
  join: (held: HeldRun | undefined) => Promise<T | undefined>,
  mayStart: () => Promise<T | undefined> = () => Promise.resolve(undefined),
): Promise<RunClaim<T>> {
  let slot: RunSlot | undefined;
  for (let attempt = 0; attempt < SLOT_ATTEMPTS; attempt++) {
    const held = await heldRun(report, deps, now);
    const joined = await join(held);
    if (joined !== undefined) return { kind: 'answered', answer: joined };
    const refused = await mayStart();
    if (refused !== undefined) return { kind: 'answered', answer: refused };
    // A lost swap means another request moved the slot first: its export is the one to look at next.
    slot ??= next();
    if (await deps.ledger.swapRun(report, held?.slot.exportId, slot)) return { kind: 'won', slot };
  }
  return { kind: 'lost', slot: await deps.ledger.currentRun(report) };
}
