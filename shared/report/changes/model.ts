import type { TableDefinition, TableRow } from '../../table/table';
import type { ManifestSummary } from '../manifest/manifest-summary';
import type { ColumnType } from '../../table/table';
import { severityRank } from '../summary/vocabulary';
import type { ChangeRules } from '../dataset/change-rules';
import { tableEntry } from '../tables/registry';

/**
 * The result of a comparison, in one typed structure read by every place that shows it: the
 * Changes sheet, changes.csv, the Summary's deltas and the e-mail's "What changed since" section.
 */
export type ChangeKind = 'added' | 'removed' | 'changed' | 'scope' | 'note';

export interface ChangeRow {
  /** Table name (`risks`, `board-items`, ...) and its label (`Risks`, `Board items`). */
  readonly table: string;
  readonly tableLabel: string;
  readonly kind: ChangeKind;
  /** The row's key as people know it (risk key, OKR key, item key); null on scope and note rows. */
  readonly key: string | null;
  /** A tracker URL for the key, when the table has one. */
  readonly link: string | null;
  /** The row's line in its data sheet of this run's workbook (header = 1); null for removed rows. */
  readonly sheetRow: number | null;
  readonly title: string | null;
  /**
   * Where the row belongs, for people: its board (ART), register or strategic theme, and its teams
   * where the table has them ("Payments ART · Team Phoenix"); null on scope and note rows.
   */
  readonly context?: string | null;
  /** What changed: a field label (`Status`), `added`, `removed`, or the scope/note text's subject. */
  readonly what: string;
  readonly from: string | null;
  readonly to: string | null;
  /**
   * A changed field's values as compared, with the column's type: a message for people writes them
   * in its reader's locale (`50,1 %`, `26.11.2026`), while `from`/`to` keep the sheet's and CSV's
   * one fixed form. Absent on other kinds of row.
   */
  readonly typed?: { readonly type: ColumnType; readonly from: string | number | null; readonly to: string | number | null };
}

export interface ChangeCounts {
  added: number;
  removed: number;
  /** Rows with at least one changed field (a row with three changed fields counts once). */
  changed: number;
  /** Selection units (registers, themes, boards) added to or removed from the report. */
  scope: number;
}

export interface TableChanges {
  readonly table: string;
  readonly label: string;
  readonly compared: boolean;
  /** Why the table was not compared, in one sentence. */
  readonly note: string | null;
  readonly counts: ChangeCounts;
}

export interface ChangeReport {
  /** The run compared with; null when there was none. */
  readonly baseline: { readonly runId: string; readonly generatedAt: Date; readonly manifestKey: string } | null;
  /** Why nothing at all was compared, in one sentence; null when a baseline was used. */
  readonly note: string | null;
  readonly tables: readonly TableChanges[];
  readonly counts: ChangeCounts;
  /** Every change, grouped by table in export order. */
  readonly rows: readonly ChangeRow[];
  /** The baseline manifest's summary figures (rows per table, risks by level, ...), for deltas. */
  readonly baselineFigures: ManifestSummary | null;
  /** Table name → its sheet name in this run's workbook, for links to a row. */
  readonly sheetNames: Readonly<Record<string, string>>;
}

export function emptyCounts(): ChangeCounts {
  return { added: 0, removed: 0, changed: 0, scope: 0 };
}

export function addCounts(into: ChangeCounts, more: ChangeCounts): void {
  into.added += more.added;
  into.removed += more.removed;
  into.changed += more.changed;
  into.scope += more.scope;
}

/** The columns of changes.csv and of the Changes sheet (docs/tables.md). */
export const CHANGES_TABLE: TableDefinition = {
  name: 'changes',
  columns: [
    { key: 'table', type: 'text', description: 'Table the change is in, e.g. Risks or Board items', width: 18 },
    { key: 'kind', type: 'text', description: '"added", "removed", "changed", "scope" (selection changed) or "note"', width: 10 },
    { key: 'key', type: 'text', description: 'Key of the row (risk key, OKR key, objective id, item key); linked in the workbook', width: 16 },
    { key: 'title', type: 'text', description: 'Title of the row', width: 44 },
    { key: 'change', type: 'text', description: 'What changed: the field (e.g. Status), or what was added or removed', width: 18 },
    { key: 'from', type: 'text', description: 'Value in the earlier run (statuses as titles)', width: 22 },
    { key: 'to', type: 'text', description: 'Value in this run (statuses as titles)', width: 22 },
    { key: 'link', type: 'text', description: 'Tracker URL of the row, when it has one', width: 30 },
    // Last, so programs that read the columns by position keep working.
    { key: 'context', type: 'text', description: 'Board (ART), register or strategic theme of the row, and its teams', width: 28 },
  ],
};

/** Fill colours of the kind cell on the Changes sheet. */
export const KIND_COLORS: Readonly<Record<ChangeKind, string>> = {
  added: '#c6efce',
  removed: '#ffc7ce',
  changed: '#ffeb9c',
  scope: '#bdd7ee',
  note: '#e7e6e6',
};

/** A change as a CSV row of CHANGES_TABLE. */
export function changeCsvRow(change: ChangeRow): TableRow {
  return {
    values: [change.tableLabel, change.kind, change.key, change.title, change.what, change.from, change.to, change.link, change.context ?? null],
  };
}

/**
 * How much a change matters to a reader, most first: a risk or objective that came or went, or a risk
 * whose level rose; a change of the selection; another row added or removed; a status move; any other
 * field. Notes are not changes (null).
 */
export type ChangeWeight = 'item' | 'raised' | 'scope' | 'added' | 'removed' | 'status' | 'other';
const WEIGHT_ORDER: readonly ChangeWeight[] = ['item', 'raised', 'scope', 'added', 'removed', 'status', 'other'];

/** The change rules of a change row's table, from the tables registry: they say what weighs (ChangeRules.items, a severity field). */
function rulesOf(row: ChangeRow): ChangeRules | undefined {
  return tableEntry(row.table)?.changes;
}

/** A change of a field whose values rank by severity (a risk's level), by its label on the Changes sheet. */
export function isSeverityChange(row: ChangeRow): boolean {
  return row.kind === 'changed' && rulesOf(row)?.fields.some((f) => f.severity === true && f.label === row.what) === true;
}

export function changeWeight(row: ChangeRow): ChangeWeight | null {
  switch (row.kind) {
    case 'note':
      return null;
    case 'scope':
      return 'scope';
    case 'added':
    case 'removed':
      return rulesOf(row)?.items === true ? 'item' : row.kind;
    case 'changed':
      if (isSeverityChange(row)) return severityRank(row.to) < severityRank(row.from) ? 'raised' : 'other';
      return row.what === 'Status' ? 'status' : 'other';
  }
}

/**
 * The changes a reader sees first (the one ranking of the e-mail, the chat messages, the run page,
 * the Summary and the PDF): by weight, then in the report's order; and what the cut left out, per weight.
 */
export function topChanges(rows: readonly ChangeRow[], limit: number): { top: ChangeRow[]; leftOut: Map<ChangeWeight, number> } {
  const ranked = rows
    .map((row, index) => ({ row, index, weight: changeWeight(row) }))
    .filter((r): r is { row: ChangeRow; index: number; weight: ChangeWeight } => r.weight !== null)
    .sort((a, b) => WEIGHT_ORDER.indexOf(a.weight) - WEIGHT_ORDER.indexOf(b.weight) || a.index - b.index);
  const leftOut = new Map<ChangeWeight, number>();
  for (const r of ranked.slice(limit)) leftOut.set(r.weight, (leftOut.get(r.weight) ?? 0) + 1);
  return { top: ranked.slice(0, limit).map((r) => r.row), leftOut: new Map(WEIGHT_ORDER.filter((w) => leftOut.has(w)).map((w) => [w, leftOut.get(w)!])) };
}
