import { isWebUrl, type Column, type ColumnType, type LeadingSheet, type LinkValue, type TableRow } from '../../table/table';
import { comparedInstant } from './specs';
import { changeRows } from './outputs';
import type { ReaderFormat } from '../../core/format';
import { CHANGES_TABLE, KIND_COLORS, type ChangeReport, type ChangeRow } from './model';

/**
 * The Changes sheet's content: a heading, one sentence (why nothing was compared, or the counts),
 * then the change rows under a header, the kind cell coloured by kind and the key linked to the
 * item in its tracker or to its row in this workbook. The renderer only lays it out.
 */
export type ChangesSheetContent = LeadingSheet;

export const CHANGES_SHEET_NAME = 'Changes';

/** Headers for people; the CSV keeps the column names. */
const SHEET_LABELS: Readonly<Record<string, string>> = {
  table: 'Table',
  kind: 'Change',
  key: 'Key',
  title: 'Item',
  context: 'Where',
  change: 'Field',
  from: 'Before',
  to: 'After',
};

/** A field that was emptied (or filled) shows "(none)" on its empty side rather than a blank cell. */
export const NONE = '(none)';

/**
 * The sheet shows the link on the key instead of in a column of its own, and where the row belongs
 * right after its title (the CSV keeps that column last, for programs reading by position).
 */
const SHEET_ORDER = ['table', 'kind', 'key', 'title', 'context', 'change', 'from', 'to'] as const;
const SHEET_COLUMNS: readonly Column[] = SHEET_ORDER.map((key) => CHANGES_TABLE.columns.find((c) => c.key === key)!).map((c) => ({
  ...c,
  label: SHEET_LABELS[c.key] ?? c.key,
  ...(c.key === 'key' && { type: 'link' as const }),
}));
const KIND_COLUMN = SHEET_COLUMNS.findIndex((c) => c.key === 'kind');

/** The heading's date in the run's locale and zone, as the e-mail's "What changed since". */
export function changesSheetContent(report: ChangeReport, format: ReaderFormat): ChangesSheetContent {
  const since = report.baseline ? format.date(report.baseline.generatedAt) : null;
  // The run compared with by its date alone: its id is the operators' (the manifest's `changes.baseline`).
  const heading = since ? `Changes since ${since}` : 'Changes';
  const c = report.counts;
  const total = c.added + c.removed + c.changed + c.scope;
  const sentence =
    report.note ??
    (total === 0
      ? `Nothing changed since ${since ?? 'the earlier run'}.`
      : `${c.added} added, ${c.removed} removed, ${c.changed} changed${c.scope ? `, ${c.scope} selection ${c.scope === 1 ? 'change' : 'changes'}` : ''}.`);
  return {
    heading,
    sentence,
    columns: SHEET_COLUMNS,
    rows: changeRows(report).map((change) => sheetRow(change, report.sheetNames)),
  };
}

const FROM_COLUMN = SHEET_COLUMNS.findIndex((c) => c.key === 'from');
const TO_COLUMN = SHEET_COLUMNS.findIndex((c) => c.key === 'to');

function sheetRow(change: ChangeRow, sheets: Readonly<Record<string, string>>): TableRow {
  const dated = datedPair(change);
  return {
    values: [
      change.tableLabel, change.kind, keyCell(change, sheets), change.title, change.context ?? null, change.what,
      change.kind === 'changed' ? (dated?.from ?? change.from ?? NONE) : change.from,
      change.kind === 'changed' ? (dated?.to ?? change.to ?? NONE) : change.to,
    ],
    fill: { column: KIND_COLUMN, color: KIND_COLORS[change.kind] },
    ...(dated && { types: SHEET_COLUMNS.map((_, i) => (i === FROM_COLUMN || i === TO_COLUMN ? dated.type : undefined)) }),
  };
}

/**
 * A changed date field's two values as dates, so the sheet shows them as date cells in the report's
 * locale (`changes.csv` keeps the ISO text); undefined for any other change.
 */
function datedPair(change: ChangeRow): { type: ColumnType; from: Date | null; to: Date | null } | undefined {
  const typed = change.typed;
  if (change.kind !== 'changed' || !typed || (typed.type !== 'date' && typed.type !== 'datetime')) return undefined;
  const from = comparedInstant(typed.from, typed.type);
  const to = comparedInstant(typed.to, typed.type);
  return from || to ? { type: typed.type, from, to } : undefined;
}

function keyCell(change: ChangeRow, sheets: Readonly<Record<string, string>>): LinkValue | string | null {
  if (change.key === null) return null;
  if (change.link) return { text: change.key, url: change.link };
  return changedItemLink(change, sheets) ?? change.key;
}

/**
 * Where a changed row lives, for the surfaces that show it (the Summary's "What changed", the
 * e-mail, chat, run page, PDF): its row in this run's workbook, and its tracker address (`web`)
 * where changes.csv has one; undefined when it has neither (a removed row without a link).
 */
export function changedItemLink(change: ChangeRow, sheets: Readonly<Record<string, string>>): LinkValue | undefined {
  if (change.key === null) return undefined;
  const sheet = sheets[change.table];
  const row = change.sheetRow !== null && sheet ? `#'${sheet.replace(/'/g, "''")}'!A${change.sheetRow}` : undefined;
  const web = change.link && isWebUrl(change.link) ? change.link : undefined;
  if (row === undefined) return web === undefined ? undefined : { text: change.key, url: web };
  return { text: change.key, url: row, ...(web !== undefined && { web }) };
}

