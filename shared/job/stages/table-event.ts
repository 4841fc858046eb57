import type { ReportExportedDetail, SchemaChangeSummary } from '../../events/report-events';
import type { Manifest } from '../../report/manifest/manifest';

/**
 * The machine-table part of the ReportExported detail: the Parquet files of the run and, split by
 * kind, the tables whose schema the run changed, so a subscriber can refresh a Glue table on a
 * minor change and stop a pipeline on a breaking one. Empty for a run without Parquet.
 */
export function tableFilesDetail(manifest: Manifest): Pick<ReportExportedDetail, 'tables' | 'schemaChanges'> {
  if (!manifest.tables) return {};
  const changes = manifest.schemaChanges ?? [];
  const summary = (kind: 'minor' | 'breaking'): SchemaChangeSummary[] =>
    changes
      .filter((c) => c.kind === kind)
      .map((c) => ({ table: c.table, from: c.from, to: c.to, columns: [...c.added, ...c.removed, ...c.retyped] }));
  return {
    tables: manifest.tables.map((t) => ({
      table: t.table, path: t.path, rows: t.rows, bytes: t.bytes, sha256: t.sha256, schemaVersion: t.schemaVersion,
    })),
    schemaChanges: { minor: summary('minor'), breaking: summary('breaking') },
  };
}
