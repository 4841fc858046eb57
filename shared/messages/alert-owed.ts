import * as z from 'zod';
import type { AlertLine } from '../channels/channel';
import type { Ledger } from '../ledger/ledger';
import { ledgerKey } from '../ledger/ledger';
import { ledgerRecord } from '../ledger/ledger-record';
import { daysAfter } from '../core/clock';

/**
 * The alert a recipient or a chat channel did not get (a refused address, a webhook that failed):
 * kept in the ledger per report and target (`alert/<report>/owed/<target>`, beside the rules'
 * crossing states), so the next run sends it again with its own news, until it goes out or the
 * figure came back to the right side of its line. A rule's crossing state is shared by every
 * target; what one target still owes is its own, so one failure silences nobody else.
 */
export interface OwedLine extends AlertLine {
  /** The rule's id (`openRisks-above-29`) and the crossed item's key: what "came back" is judged by. */
  readonly ruleId: string;
  readonly key: string;
}

const owedSchema = z.object({
  /** The run that last failed to deliver these lines. */
  runId: z.string(),
  lines: z.array(z.object({ ruleId: z.string(), key: z.string(), rule: z.string(), text: z.string() })),
});

/** Owed lines outlive the weeks between a report's runs, then expire. */
const OWED_DAYS = 90;

/** What each rule found beyond its line in this run (undefined: no value this run, so nothing came back). */
export type BeyondNow = ReadonlyMap<string, ReadonlySet<string> | undefined>;

const record = (ledger: Ledger, report: string, target: string) =>
  ledgerRecord(ledger, ledgerKey('alert', report, 'owed', target), owedSchema, { what: `the alert owed to ${target} of report "${report}"`, invalid: 'absent' });

/** The lines `target` is owed that are still beyond their line in this run (a rule no longer defined owes nothing). */
export async function owedTo(ledger: Ledger, report: string, target: string, beyond: BeyondNow): Promise<OwedLine[]> {
  const { value } = await record(ledger, report, target).read();
  return (value?.lines ?? []).filter((line) => beyond.has(line.ruleId) && (beyond.get(line.ruleId)?.has(line.key) ?? true));
}

/** Keeps `lines` as what `target` is owed after `runId` (none: it got everything). */
export async function keepOwed(ledger: Ledger, report: string, target: string, runId: string, lines: readonly OwedLine[], now: Date): Promise<void> {
  await record(ledger, report, target).change(() => ({ runId, lines: lines.map(({ ruleId, key, rule, text }) => ({ ruleId, key, rule, text })) }), {
    expiresAt: daysAfter(now, OWED_DAYS),
  });
}

/** What the weekly message tells one alert target: the lines crossed, and how many of them an earlier run owed it. */
export interface TargetNews {
  readonly lines: readonly OwedLine[];
  readonly owed: number;
}

/** The lines crossed a target is told in this run's weekly message (reader-news.ts): this run's news and what it is still owed. */
export async function targetNews(ledger: Ledger, report: string, target: string, news: readonly OwedLine[], beyond: BeyondNow): Promise<TargetNews> {
  const lines = withOwed(news, await owedTo(ledger, report, target, beyond));
  return { lines, owed: lines.length - news.length };
}

/** This run's news with what was owed before it, each line once (by rule and item). */
export function withOwed(news: readonly OwedLine[], owed: readonly OwedLine[]): OwedLine[] {
  const seen = new Set(news.map((l) => `${l.ruleId}\n${l.key}`));
  return [...news, ...owed.filter((l) => !seen.has(`${l.ruleId}\n${l.key}`))];
}
