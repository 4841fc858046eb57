import { readerFormat } from '../../shared/core/format';
import { withDeltas } from '../../shared/report/changes/deltas';
import type { ChangeReport } from '../../shared/report/changes/model';
import { parseReportDefinition, type ReportDefinition } from '../../shared/report/definition/definition';
import type { ExportResult } from '../../shared/report/run/result';
import type { ReportSummary } from '../../shared/table/table';

/** The locales the reader-format tests compare, each with what its reader sees (`until`: the links' expiry, 14 days on). */
export const LOCALES = {
  'en-US': { words: { colon: ':', inBrackets: 'In brackets: the change since', changeSince: 'Change since', generated: 'Generated', since: 'since', changedSince: 'What changed since', linksUntil: 'The links work until', nothing: 'nothing needs attention' }, percent: '50.1 %', integer: '2,148', date: '11/26/2026', since: '11/19/2026', points: '+4.9 pp', delta: '+1,148', until: '12/10/2026', generated: '11/26/2026, 07:00 AM GMT+1' },
  'en-GB': { words: { colon: ':', inBrackets: 'In brackets: the change since', changeSince: 'Change since', generated: 'Generated', since: 'since', changedSince: 'What changed since', linksUntil: 'The links work until', nothing: 'nothing needs attention' }, percent: '50.1 %', integer: '2,148', date: '26/11/2026', since: '19/11/2026', points: '+4.9 pp', delta: '+1,148', until: '10/12/2026', generated: '26/11/2026, 07:00 CET' },
  'de-DE': { words: { colon: ':', inBrackets: 'In Klammern: die Veränderung seit', changeSince: 'Veränderung seit', generated: 'Erstellt', since: 'seit', changedSince: 'Änderungen seit', linksUntil: 'Die Links gelten bis', nothing: 'kein Handlungsbedarf' }, percent: '50,1 %', integer: '2.148', date: '26.11.2026', since: '19.11.2026', points: '+4,9 Pp.', delta: '+1.148', until: '10.12.2026', generated: '26.11.2026, 07:00 MEZ' },
  // Intl's French groups with a narrow no-break space (U+202F) and writes no comma before the time.
  'fr-FR': { words: { colon: ' :', inBrackets: 'Entre parenthèses : l’évolution depuis le', changeSince: 'Évolution depuis le', generated: 'Généré le', since: 'depuis le', changedSince: 'Changements depuis le', linksUntil: 'Les liens sont valables jusqu’au', nothing: 'aucun point d’attention' }, percent: '50,1 %', integer: '2\u202f148', date: '26/11/2026', since: '19/11/2026', points: '+4,9 pts', delta: '+1\u202f148', until: '10/12/2026', generated: '26/11/2026 07:00 UTC+1' },
} as const;
export type TestLocale = keyof typeof LOCALES;

export const RUN_AT = new Date('2026-11-26T06:00:00Z');
const BASELINE_AT = new Date('2026-11-19T06:00:00Z');

/** One report in Berlin, as written in `locale`, with e-mail. */
export function localeDefinition(locale: string): ReportDefinition & { email: NonNullable<ReportDefinition['email']> } {
  const definition = parseReportDefinition({
    name: 'acme-weekly',
    title: 'ACME weekly',
    timeZone: 'Europe/Berlin',
    locale,
    datasets: { risks: {} },
    email: { to: ['pm@example.com'] },
  });
  return definition as typeof definition & { email: NonNullable<typeof definition.email> };
}

const changes: ChangeReport = {
  baseline: { runId: 'r0', generatedAt: BASELINE_AT, manifestKey: 'acme-weekly/dt=2026-11-19/run=r0/manifest.json' },
  note: null,
  tables: [],
  counts: { added: 1, removed: 0, changed: 0, scope: 0 },
  rows: [],
  baselineFigures: {
    sections: [
      { heading: 'Headline', role: 'headline', lines: [{ label: 'Predictability', value: 45.2, type: 'percent' }, { label: 'Open risks', value: 1000, type: 'integer' }] },
    ],
  } as unknown as ChangeReport['baselineFigures'],
  sheetNames: {},
};

/**
 * The same run (50.1 % predictability, 2,148 open risks, a PI ending 26 Nov 2026, compared with the
 * run of 19 Nov) as the export gives it in `locale`: the Summary's deltas are written by the export.
 */
export function localeRun(locale: string): ExportResult {
  const summary: ReportSummary = {
    title: 'ACME weekly',
    sections: [
      {
        heading: 'Headline',
        role: 'headline',
        lines: [
          { label: 'Predictability', value: 50.1, type: 'percent' },
          { label: 'Open risks', value: 2148, type: 'integer' },
          { label: 'PI end', value: new Date('2026-11-26T00:00:00Z'), type: 'date' },
        ],
      },
    ],
  };
  return {
    runFolder: 'acme-weekly/dt=2026-11-26/run=r1',
    manifestKey: 'acme-weekly/dt=2026-11-26/run=r1/manifest.json',
    summary: withDeltas(summary, changes, readerFormat(locale, 'Europe/Berlin')),
    written: true,
    latestUpdated: true,
    changes,
    manifest: {
      formatVersion: 1, report: 'acme-weekly', runId: 'r1', generatedAt: RUN_AT.toISOString(), timeZone: 'Europe/Berlin',
      source: { baseUrl: 'x', legacyBaseUrl: 'x', companyPrefix: 'x', email: 'x' }, selectors: {}, summary: {},
      files: [{ path: 'acme-weekly.xlsx', format: 'xlsx', contentType: 'x', bytes: 10, sha256: 'a'.repeat(64), rows: {} }],
    },
  } as unknown as ExportResult;
}
