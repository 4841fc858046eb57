import * as z from 'zod';
import { ledgerKey, type Ledger } from '../../ledger/ledger';
import { ledgerRecord } from '../../ledger/ledger-record';
import type { AlertItem } from './alert-events';

/**
 * Once per crossing: per report and rule, the ledger keeps what the last run found beyond the rule's
 * line (`alert/<report>/<rule>`). A run tells of the items the run before did not have, so a figure
 * that stays beyond its line is told of once, and again only after a run found it back on the right
 * side. The step of a run is written once (compare-and-swap, ledger-record.ts); a retry of the same run
 * reads the step its first attempt wrote and tells the same news (the messages themselves are claimed
 * once per run: message-claim.ts), and a run older than the one kept moves nothing.
 */
const itemSchema = z.object({ key: z.string(), text: z.string() });

const crossingSchema = z.object({
  /** The run that wrote this step. */
  runId: z.string(),
  /** When that run read the planning tool (its manifest's generatedAt, ISO). */
  generatedAt: z.string(),
  /** What it found beyond the line. */
  items: z.array(itemSchema),
  /** The keys the run before it had found: its news are the items not among them. */
  before: z.array(z.string()),
});
type Crossing = z.infer<typeof crossingSchema>;

export interface CrossingRun {
  readonly report: string;
  readonly runId: string;
  readonly generatedAt: Date;
}

/** What a run's reading of one rule means: the items to tell of, and why there are none when there are none. */
export interface CrossingStep {
  readonly news: readonly AlertItem[];
  /** `new`: this run's step was written now; `again`: an earlier attempt of this run wrote it; `older`: a later run's step is kept. */
  readonly step: 'new' | 'again' | 'older';
}

export function crossingKey(report: string, rule: string): string {
  return ledgerKey('alert', report, rule);
}

const newsOf = (crossing: Crossing): AlertItem[] => crossing.items.filter((item) => !crossing.before.includes(item.key));

/**
 * Records what `run` found beyond the rule's line (`found`, none when the figure has no value) and
 * returns its news. `hold`: what stays beyond only if the run before had it (a figure inside the
 * rule's clear margin), so it is neither news now nor news again when it next crosses the line.
 */
export async function stepCrossing(
  ledger: Ledger,
  run: CrossingRun,
  rule: string,
  found: readonly AlertItem[],
  hold: readonly AlertItem[] = [],
): Promise<CrossingStep> {
  const record = ledgerRecord(ledger, crossingKey(run.report, rule), crossingSchema, {
    what: `the alert state of rule "${rule}" of report "${run.report}"`,
    // Written by this code alone; an entry of another shape (an older release) starts afresh.
    invalid: 'absent',
  });
  const at = run.generatedAt.toISOString();
  const changed = await record.change((current) => {
    if (current?.runId === run.runId) return undefined;
    if (current && Date.parse(current.generatedAt) > run.generatedAt.getTime()) return undefined;
    const before = current?.items.map((i) => i.key) ?? [];
    const held = hold.filter((item) => before.includes(item.key) && !found.some((f) => f.key === item.key));
    return { runId: run.runId, generatedAt: at, items: [...found, ...held], before };
  });
  if (changed.outcome === 'written') return { news: newsOf(changed.value), step: 'new' };
  const kept = changed.value;
  if (kept?.runId === run.runId) return { news: newsOf(kept), step: 'again' };
  return { news: [], step: 'older' };
}

/** Where a rule stands after the report's last run (the run list): beyond its line or not, and which run said so. */
export async function readCrossing(ledger: Ledger, report: string, rule: string): Promise<{ readonly runId: string; readonly beyond: number } | undefined> {
  const record = ledgerRecord(ledger, crossingKey(report, rule), crossingSchema, { what: `the alert state of rule "${rule}" of report "${report}"`, invalid: 'absent' });
  const { value } = await record.read();
  return value && { runId: value.runId, beyond: value.items.length };
}
