import type { Writable } from 'node:stream';
import { openCsvSink } from '../../render/csv';
import type { Manifest } from '../manifest/manifest';
import type { ManifestChanges } from '../manifest/manifest-changes';
import { CHANGES_TABLE, changeCsvRow, emptyCounts, type ChangeReport, type ChangeRow } from './model';
import { NOT_COMPARED } from '../../core/i18n/not-compared';

export const CHANGES_CSV = 'changes.csv';

/**
 * Every row of the Changes sheet, in order: when nothing could be compared, one note row saying
 * why (so neither the sheet nor changes.csv is ever empty without a reason); otherwise the changes.
 */
export function changeRows(report: ChangeReport): ChangeRow[] {
  if (report.note !== null) {
    return [{ table: '', tableLabel: 'All tables', kind: 'note', key: null, link: null, sheetRow: null, title: report.note, what: 'not compared', from: null, to: null }];
  }
  return [...report.rows];
}

/** Writes changes.csv: the same rows as the Changes sheet. Resolves with the number of rows. */
export async function writeChangesCsv(
  report: ChangeReport,
  out: Writable,
  options: { readonly bom: boolean; readonly timeZone: string },
): Promise<number> {
  const sink = openCsvSink(CHANGES_TABLE, out, options);
  for (const change of changeRows(report)) {
    const pending = sink.writeRow(changeCsvRow(change));
    if (pending) await pending;
  }
  return sink.close();
}

/**
 * The comparison of a completed run, rebuilt from its manifest when a retried run is not exported
 * again: the counts and the note survive, the rows are in its changes.csv.
 */
export function changeReportFromManifest(manifest: Manifest): ChangeReport {
  const changes = (manifest as { changes?: ManifestChanges }).changes;
  return {
    baseline: changes?.baseline
      ? { runId: changes.baseline.runId, generatedAt: new Date(changes.baseline.generatedAt), manifestKey: changes.baseline.manifest }
      : null,
    note: changes ? changes.note : NOT_COMPARED.untracked.text,
    tables: [],
    counts: changes?.counts ?? emptyCounts(),
    rows: [],
    baselineFigures: null,
    sheetNames: {},
  };
}
