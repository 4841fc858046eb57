/** The Summary of a run: the datasets' sections, then what was exported from where, the scope and the rows. */
import type { ReportSummary, SummarySection } from '../../table/table';
import type { Dataset } from '../dataset/dataset';
import type { ReportDefinition } from '../definition/definition';
import type { Manifest } from '../manifest/manifest';
import { composeSummary } from '../summary/compose';
import type { Messages } from '../../core/i18n/messages';
import type { MessageId } from '../../core/i18n/messages';
import type { TermId } from '../../core/glossary';
import { readerFormat } from '../../core/format';
import { tableTitle } from '../names';

/** Labels of the Summary's Scope lines, in the words of the planning tool rather than the code. */
const SCOPE_LABELS: Readonly<Record<string, MessageId>> = {
  'risks.registers': 'term.riskRegisters',
  'okrs.strategicThemes': 'term.strategicThemes',
  'piObjectives.boards': 'term.piObjectiveBoards',
  'piObjectives.completionType': 'term.piCompletionType',
  'piObjectives.additionalColumns': 'term.piTeamsAndSprints',
  'boardItems.boards': 'term.boardItemBoards',
};

function scopeValue(value: unknown, messages: Messages): string {
  if (Array.isArray(value)) {
    const names = value.map((v: { key?: string | null; title?: string | null; id: string }) => `${v.key ?? v.id} ${v.title ?? ''}`.trim());
    return names.join('; ') || messages.t('scope.noneVisible');
  }
  if (value === null || value === undefined) return messages.t('scope.boardDefault');
  if (typeof value === 'boolean') return messages.t(value ? 'value.yes' : 'value.no');
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

export function buildSummary(
  definition: ReportDefinition,
  startedAt: Date,
  rows: Record<string, number>,
  datasets: readonly Dataset[],
): ReportSummary {
  // For readers: when, in which zone, and (Scope) what was read. Where it was read from and as whom
  // (API addresses, company prefix, the exporting account) are the operators' business: the
  // manifest's `source` and the run list (`npm run reports -- runs`) keep them.
  const messages = readerFormat(definition.locale, definition.timeZone).messages;
  const term = (id: TermId) => messages.t(`term.${id}`);
  const exportSection: SummarySection = {
    heading: term('aboutThisRun'),
    role: 'about',
    lines: [
      { label: term('report'), value: definition.title ?? definition.name },
      { label: term('generatedAt'), value: startedAt, type: 'datetime' },
      { label: term('timeZone'), value: definition.timeZone },
    ],
  };
  const scope: SummarySection = {
    heading: term('scope'),
    role: 'about',
    lines: datasets.flatMap((d) =>
      Object.entries(d.resolvedSelectors()).map(([what, value]) => ({
        label: ((id) => (id ? messages.t(id) : `${d.name} ${what}`))(SCOPE_LABELS[`${d.name}.${what}`]),
        value: scopeValue(value, messages),
      })),
    ),
  };
  const rowSection: SummarySection = {
    heading: term('rows'),
    role: 'about',
    // Tables by their titles, as the sheets name them (docs/tables.md), not by their file names.
    lines: Object.entries(rows).map(([table, n]) => ({ label: tableTitle(table), value: n, type: 'integer' as const })),
  };
  return composeSummary(definition.title ?? definition.name, [
    ...datasets.flatMap((d) => d.summary()),
    exportSection,
    scope,
    rowSection,
  ], messages);
}

/** The summary of a completed run, rebuilt from its manifest (an idempotent re-run returns it). */
export function summaryFromManifest(manifest: Manifest): ReportSummary {
  return { title: manifest.summary.title, sections: manifest.summary.sections };
}

/**
 * The Summary in each other language the run stored (manifest `summary.languages`), by locale, or
 * undefined for a manifest of one language (or an older one): its readers then read the report's.
 */
export function summariesFromManifest(manifest: Manifest): Readonly<Record<string, ReportSummary>> | undefined {
  const languages = manifest.summary.languages;
  if (!languages || Object.keys(languages).length === 0) return undefined;
  return Object.fromEntries(Object.entries(languages).map(([locale, s]) => [locale, { title: s.title, sections: s.sections }]));
}

/** The run's Summary in `locale` when the run stored that language (`summary.languages`), else in the report's own. */
export function summaryInLanguage(manifest: Manifest, locale: string): ReportSummary {
  return summariesFromManifest(manifest)?.[locale] ?? summaryFromManifest(manifest);
}
