/** The Summary of a run: the datasets' sections, then what was exported from where, the scope and the rows. */
import type { ReportSummary, SummarySection } from '../table/table';
import type { Dataset } from './dataset';
import type { ReportDefinition } from './definition';
import type { Manifest } from './manifest';
import { composeSummary } from './summary/compose';

/** Labels of the Summary's Scope lines, in the words of the planning tool rather than the code. */
const SCOPE_LABELS: Readonly<Record<string, string>> = {
  'risks.registers': 'Risk registers',
  'okrs.strategicThemes': 'Strategic themes',
  'piObjectives.boards': 'PI objectives: boards',
  'piObjectives.completionType': 'PI objectives: completion type',
  'piObjectives.additionalColumns': 'PI objectives: teams and sprints',
  'boardItems.boards': 'Board items: boards',
};

function scopeValue(value: unknown): string {
  if (Array.isArray(value)) {
    const names = value.map((v: { key?: string | null; title?: string | null; id: string }) => `${v.key ?? v.id} ${v.title ?? ''}`.trim());
    return names.join('; ') || '(none visible)';
  }
  if (value === null || value === undefined) return 'board default';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
}

export function buildSummary(
  definition: ReportDefinition,
  runId: string,
  startedAt: Date,
  source: Manifest['source'],
  rows: Record<string, number>,
  datasets: readonly Dataset[],
): ReportSummary {
  const exportSection: SummarySection = {
    heading: 'About this report',
    role: 'about',
    lines: [
      { label: 'Report', value: definition.title ?? definition.name },
      { label: 'Run id', value: runId },
      { label: 'Generated at', value: startedAt, type: 'datetime' },
      { label: 'Time zone', value: definition.timeZone },
      { label: 'Planning API', value: source.baseUrl },
      { label: 'Legacy API', value: source.legacyBaseUrl },
      { label: 'Company prefix', value: source.companyPrefix },
      { label: 'Exported as', value: source.email },
    ],
  };
  const scope: SummarySection = {
    heading: 'Scope',
    role: 'about',
    lines: datasets.flatMap((d) =>
      Object.entries(d.resolvedSelectors()).map(([what, value]) => ({
        label: SCOPE_LABELS[`${d.name}.${what}`] ?? `${d.name} ${what}`,
        value: scopeValue(value),
      })),
    ),
  };
  const rowSection: SummarySection = {
    heading: 'Rows',
    role: 'about',
    lines: Object.entries(rows).map(([table, n]) => ({ label: table, value: n, type: 'integer' as const })),
  };
  return composeSummary(definition.title ?? definition.name, [
    ...datasets.flatMap((d) => d.summary()),
    exportSection,
    scope,
    rowSection,
  ]);
}

/** The summary of a completed run, rebuilt from its manifest (an idempotent re-run returns it). */
export function summaryFromManifest(manifest: Manifest): ReportSummary {
  return { title: manifest.summary.title, sections: manifest.summary.sections };
}
