/**
 * The report's runs publishing into its tables (`publishing/<report>`; docs/run-atomicity.md,
 * "Publishing into the tables"): an attempt notes itself here before the compare-and-swap that makes
 * its run `publishing` (its lease does, run-lease.ts) and is taken off once its run is complete, so
 * the report's next run finds a run cut off between its copies and finishes it (roll-forward.ts).
 */
import * as z from 'zod';
import type { Clock } from '../../core/clock';
import { errorMessage } from '../../core/errors';
import type { Log } from '../../core/logger';
import { ledgerKey, type Ledger } from '../../ledger/ledger';
import { ledgerRecord, type LedgerRecord } from '../../ledger/ledger-record';
import { entryExpiry, type RunName } from './run-entry';

const MAX_ROUNDS = 20;

/** One attempt that is about to choose its run's manifest (or did: then its lease says `publishing`). */
const notedSchema = z.object({ runId: z.string(), attempt: z.string() });
const publishingSchema = z.object({ runs: z.array(notedSchema) });
export type Noted = z.infer<typeof notedSchema>;
type Publishing = z.infer<typeof publishingSchema>;

/** What a note is kept with, named as the run context names it. */
interface NoteTerms {
  readonly ledger: Ledger;
  readonly clock: Clock;
}

/** The attempts noted as publishing runs of `report`. */
export async function notedRuns(ledger: Ledger, report: string): Promise<readonly Noted[]> {
  return (await record(ledger, report).read()).value?.runs ?? [];
}

/**
 * Notes the attempt in its report's entry, before the compare-and-swap that makes its run
 * `publishing`: a run can only reach that state noted, so the report's next run finds it.
 */
export async function notePublishing(terms: NoteTerms, { report, runId }: RunName, attempt: string): Promise<void> {
  const noted = { runId, attempt };
  await change(terms, report, (runs) => (runs.some((r) => same(r, noted)) ? undefined : [...runs, noted]));
}

/**
 * Takes a complete run off its report's entry (every attempt of it), or only the attempt `noted`
 * that can no longer publish (its run's other attempts note themselves). A failure is only logged:
 * the next run of the report lets it go.
 */
export async function notePublished(terms: NoteTerms & { readonly log: Log }, done: RunName & { readonly attempt?: string }): Promise<void> {
  const gone = (r: Noted) => r.runId === done.runId && (done.attempt === undefined || r.attempt === done.attempt);
  try {
    await change(terms, done.report, (runs) => (runs.some(gone) ? runs.filter((r) => !gone(r)) : undefined));
  } catch (error) {
    const { runId } = done;
    terms.log.warn('the run is published but could not be taken off the runs publishing; the next run does it', { runId, error: errorMessage(error) });
  }
}

function same(a: Noted, b: Noted): boolean {
  return a.runId === b.runId && a.attempt === b.attempt;
}

async function change(terms: NoteTerms, report: string, next: (runs: readonly Noted[]) => Noted[] | undefined): Promise<void> {
  const now = terms.clock();
  // As long as a run's lease entry: a noted run whose lease entry is gone is let go.
  const expiresAt = () => entryExpiry(now);
  await record(terms.ledger, report).change((current) => {
    const runs = next(current?.runs ?? []);
    return runs && { runs };
  }, { rounds: MAX_ROUNDS, expiresAt });
}

function record(ledger: Ledger, report: string): LedgerRecord<Publishing> {
  return ledgerRecord(ledger, ledgerKey('publishing', report), publishingSchema, { what: `the runs of "${report}" publishing into its tables`, invalid: 'absent' });
}
