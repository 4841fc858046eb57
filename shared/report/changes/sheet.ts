import { isWebUrl, type Column, type ColumnType, type LeadingSheet, type LinkValue, type TableRow } from '../../table/table';
import { comparedInstant } from './specs';
import { changeRows } from './outputs';
import type { ReaderFormat } from '../../core/format';
import { notComparedText } from '../../core/i18n/not-compared';
import type { MessageId, Messages } from '../../core/i18n/messages';
import { columnLabel, sheetRowUrl } from '../sheet-names';
import { CHANGES_TABLE, KIND_COLORS, type ChangeReport, type ChangeRow } from './model';

/**
 * The Changes sheet's content: a heading, one sentence (why nothing was compared, or the counts),
 * then the change rows under a header, the kind cell coloured by kind and the key linked to the
 * item in its tracker or to its row in this workbook. The renderer only lays it out.
 */
export type ChangesSheetContent = LeadingSheet;

/** The sheet's name in English, the source language (tableTitle's name of the changes). */
export const CHANGES_SHEET_NAME = 'Changes';

/**
 * The sheet shows the link on the key instead of in a column of its own, and where the row belongs
 * right after its title (the CSV keeps that column last, for programs reading by position).
 */
const SHEET_ORDER = ['table', 'kind', 'key', 'title', 'context', 'change', 'from', 'to'] as const;
/** Headers for people in the report's language; the CSV keeps the column names. */
function sheetColumns(messages: Messages): Column[] {
  return SHEET_ORDER.map((key) => CHANGES_TABLE.columns.find((c) => c.key === key)!).map((c) => ({
    ...c,
    label: messages.t(`changes.column.${c.key}` as MessageId),
    ...(c.key === 'key' && { type: 'link' as const }),
  }));
}
const KIND_COLUMN = SHEET_ORDER.indexOf('kind');

/** The heading's date in the run's locale and zone, as the e-mail's "What changed since". */
export function changesSheetContent(report: ChangeReport, format: ReaderFormat): ChangesSheetContent {
  const { messages } = format;
  const since = report.baseline ? format.date(report.baseline.generatedAt) : null;
  // The run compared with by its date alone: its id is the operators' (the manifest's `changes.baseline`).
  const heading = since ? messages.t('changes.sheet.since', { date: since }) : messages.t('sheet.changes');
  return {
    heading,
    sentence: report.note === null ? countsSentence(report.counts, since, format) : notComparedText(report.note, messages),
    columns: sheetColumns(messages),
    rows: changeRows(report).map((change) => sheetRow(change, report.sheetNames, messages)),
  };
}

function countsSentence(c: ChangeReport['counts'], since: string | null, format: ReaderFormat): string {
  const { messages } = format;
  if (c.added + c.removed + c.changed + c.scope === 0) {
    return since ? messages.t('changes.sheet.nothingSince', { date: since }) : messages.t('changes.sheet.nothingEarlier');
  }
  const counts = messages.t('changes.counts', { added: format.integer(c.added), removed: format.integer(c.removed), changed: format.integer(c.changed), addedCount: c.added, removedCount: c.removed, changedCount: c.changed });
  return c.scope ? messages.t('changes.sheet.sentenceScope', { counts, scope: messages.t('changes.scopeCount', { count: c.scope }) }) : messages.t('changes.sheet.sentence', { counts });
}

/** The field changed, as its column is headed in the report's language; an added or removed row says so. */
function fieldOf(change: ChangeRow, messages: Messages): string {
  return change.what === change.kind ? messages.t('changes.kind', { kind: change.kind }) : columnLabel(change.what, messages);
}

const FROM_COLUMN = SHEET_ORDER.indexOf('from');
const TO_COLUMN = SHEET_ORDER.indexOf('to');

function sheetRow(change: ChangeRow, sheets: Readonly<Record<string, string>>, messages: Messages): TableRow {
  const dated = datedPair(change);
  // A field that was emptied (or filled) shows "(none)" on its empty side rather than a blank cell.
  const none = messages.t('changes.none');
  return {
    values: [
      sheets[change.table] ?? change.tableLabel, messages.t('changes.kind', { kind: change.kind }), keyCell(change, sheets), change.title, change.context ?? null, fieldOf(change, messages),
      change.kind === 'changed' ? (dated?.from ?? change.from ?? none) : change.from,
      change.kind === 'changed' ? (dated?.to ?? change.to ?? none) : change.to,
    ],
    fill: { column: KIND_COLUMN, color: KIND_COLORS[change.kind] },
    ...(dated && { types: SHEET_ORDER.map((_, i) => (i === FROM_COLUMN || i === TO_COLUMN ? dated.type : undefined)) }),
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
  const row = change.sheetRow !== null && sheet ? sheetRowUrl(sheet, change.sheetRow) : undefined;
  const web = change.link && isWebUrl(change.link) ? change.link : undefined;
  if (row === undefined) return web === undefined ? undefined : { text: change.key, url: web };
  return { text: change.key, url: row, ...(web !== undefined && { web }) };
}

