import { DEFAULT_LOCALE, readerFormat, type ReaderFormat } from '../../core/format';
import type { RunFigures } from './figures';
import type { SkippedRun } from './history';
import type { TermId } from '../../core/glossary';
import type { Messages } from '../../core/i18n/messages';

/** How a series' values read: counts, or percentages 0-100. */
export type TrendUnit = 'count' | 'percent';

/** One table of the Trends sheet: a row per run, a column per figure, and how it is charted. */
export interface TrendTable {
  readonly id: string;
  readonly title: string;
  readonly unit: TrendUnit;
  /** The figures' names (the first column, the run date, is implied). */
  readonly columns: readonly string[];
  readonly rows: readonly TrendRow[];
  readonly chart: 'line' | 'predictability' | 'burn-up' | 'none';
}

/** One run's row: its label (the run's date in the locale, with its time when two runs share a day), when it ran, its figures. */
export interface TrendRow {
  readonly run: string;
  readonly at: Date;
  /** The label carries the time: another run of the same day is on the trends. */
  readonly timed: boolean;
  readonly values: readonly (number | null)[];
}

export interface Trends {
  /** Runs on the trends, this run included. */
  readonly runs: number;
  /** Each run's label, when it ran (ISO) and its figures, oldest first (the e-mail draws its own series from them). */
  readonly points: readonly { readonly run: string; readonly at: string; readonly figures: RunFigures }[];
  readonly tables: readonly TrendTable[];
  readonly skipped: readonly SkippedRun[];
  /** What a reader is told above the tables: why there is little to see, or which runs were left out. */
  readonly note: string;
}

/** Boards charted one by one (a burn-up each); more would bury the sheet. */
export const MAX_BURN_UP_BOARDS = 8;

/**
 * The trend tables over `runs` (oldest first, this run last): risks, OKR progress per strategic
 * theme, predictability per PI board, a burn-up per board and the counts of changes. A figure a run
 * did not record is empty in its row; a board or theme appears once any run has it.
 */
export function buildTrends(runs: readonly RunFigures[], skipped: readonly SkippedRun[], timeZone: string, locale: string = DEFAULT_LOCALE): Trends {
  const format = readerFormat(locale, timeZone);
  const labels = runLabels(runs, format);
  const term = (id: TermId, values?: Readonly<Record<string, string>>) => format.t(`term.${id}`, values);
  const rowsOf = (values: (f: RunFigures) => (number | null)[]): TrendRow[] =>
    runs.map((f, i) => ({ ...labels[i]!, at: new Date(f.generatedAt), values: values(f) }));
  const tables: TrendTable[] = [];
  if (runs.some((f) => f.risks)) {
    tables.push({
      id: 'risks', title: term('risks'), unit: 'count', chart: 'line',
      columns: [term('openRisks'), term('severeRisks'), term('overdueRisks'), term('unownedRisks')],
      rows: rowsOf((f) => (f.risks ? [f.risks.open, f.risks.highOrCritical, f.risks.overdue, f.risks.withoutOwner] : [null, null, null, null])),
    });
  }
  const themes = unionOf(runs, (f) => f.okrThemes);
  if (themes.size > 0) {
    tables.push({
      id: 'okrs', title: term('okrProgressByTheme'), unit: 'percent', chart: 'line',
      columns: [...themes.values()],
      rows: rowsOf((f) => [...themes.keys()].map((k) => f.okrThemes[k]?.progress ?? null)),
    });
  }
  const pis = unionOf(runs, (f) => f.predictability);
  if (pis.size > 0) {
    tables.push({
      id: 'predictability', title: term('predictabilityByBoard'), unit: 'percent', chart: 'predictability',
      columns: [...pis.values()],
      rows: rowsOf((f) => [...pis.keys()].map((k) => f.predictability[k]?.percent ?? null)),
    });
  }
  const boards = unionOf(runs, (f) => f.features);
  for (const [id, title] of [...boards].slice(0, MAX_BURN_UP_BOARDS)) {
    tables.push({
      id: `burn-up-${id}`, title: term('featureBurnUp', { board: title }), unit: 'count', chart: 'burn-up',
      columns: [term('features'), term('featuresDone'), term('estimate'), term('estimateDone'), term('doneByStatus'), term('doneByEstimate')],
      rows: rowsOf((f) => {
        const b = f.features[id];
        if (!b) return [null, null, null, null, null, null];
        return [b.features, b.done, b.estimate, b.estimateDone, percent(b.done, b.features), percent(b.estimateDone, b.estimate)];
      }),
    });
  }
  if (runs.some((f) => f.changes)) {
    tables.push({
      id: 'changes', title: term('changesSinceRunBefore'), unit: 'count', chart: 'none',
      columns: [term('added'), term('removed'), term('changed')],
      rows: rowsOf((f) => (f.changes ? [f.changes.added, f.changes.removed, f.changes.changed] : [null, null, null])),
    });
  }
  return { runs: runs.length, points: runs.map((f, i) => ({ run: labels[i]!.run, at: f.generatedAt, figures: f })), tables, skipped, note: noteFor(runs.length, skipped, format.messages) };
}

function noteFor(runs: number, skipped: readonly SkippedRun[], messages: Messages): string {
  const head = runs <= 1 ? messages.t('trends.note.first') : messages.t(runs < 4 ? 'trends.note.few' : 'trends.note.last', { runs });
  if (skipped.length === 0) return head;
  const named = skipped.map((s) => `${s.run} (${s.reason})`).join('; ');
  return messages.t('trends.note.skipped', { head, named });
}

/** Percent 0-100 with one decimal, or null when there is nothing to divide by. */
export function percent(part: number, whole: number): number | null {
  return whole > 0 ? Math.round((part / whole) * 1000) / 10 : null;
}

/** Key → title over every run, in the order they first appear (the newest title wins). */
function unionOf(runs: readonly RunFigures[], pick: (f: RunFigures) => Readonly<Record<string, { readonly title: string }>>): Map<string, string> {
  const all = new Map<string, string>();
  for (const f of runs) for (const [key, v] of Object.entries(pick(f))) all.set(key, v.title);
  return all;
}

/** The run's date in the report's locale and zone; runs on the same day also get their time. */
function runLabels(runs: readonly RunFigures[], format: ReaderFormat): { run: string; timed: boolean }[] {
  const days = runs.map((f) => format.date(new Date(f.generatedAt)));
  return runs.map((f, i) => {
    const day = days[i]!;
    if (days.filter((d) => d === day).length === 1) return { run: day, timed: false };
    return { run: `${day} ${format.time(new Date(f.generatedAt))}`, timed: true };
  });
}
