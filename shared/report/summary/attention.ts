import type { CellValue, Column, LeadingSheet, SummaryGridRow, SummarySection, TableRow } from '../../table/table';
import type { Messages } from '../../core/i18n/messages';
import { attentionColumns, ATTENTION_LIMIT } from './vocabulary';
import { sheetRowUrl } from '../sheet-names';

/**
 * One item "Needs attention" counts, with what a reader needs to act on it without opening its
 * register: the Summary lists the first ATTENTION_LIMIT of each kind, the "Needs attention" sheet
 * lists every one, and each "n more" row of the Summary links to its first hidden item there.
 */
export interface AttentionItem {
  /** "Risk", "OKR", "PI", "PI objective": the Summary's What column. */
  readonly kind: string;
  /** The item, linked to its row in its sheet and to the tracker where its address is known. */
  readonly item: CellValue;
  /** Why it is listed: "Critical · overdue 5 days · no owner". */
  readonly why: string;
  readonly owner: string | null;
  readonly level: string | null;
  readonly due: Date | null;
  readonly daysOverdue: number | null;
  /** Its register, strategic theme or board. */
  readonly where: string | null;
  readonly linked: readonly string[] | null;
}

/** The sheet's first data row: a heading, a sentence, a blank row and the header come first (render/xlsx/leading-sheet.ts). */
const FIRST_ITEM_ROW = 5;

/**
 * A dataset's "Needs attention" rows: its first ATTENTION_LIMIT items of each kind in the order
 * given, then per kind one "n more …" row that says what the rest are (`more`, the text from
 * `moreText`) and links to the first of them in the sheet (linkMoreRows, once every dataset's items are known).
 */
export function attentionRows(items: readonly AttentionItem[], moreText: (kind: string, count: number) => string, fills?: (item: AttentionItem) => SummaryGridRow['fills']): SummaryGridRow[] {
  const rows: SummaryGridRow[] = [];
  for (const kind of new Set(items.map((i) => i.kind))) {
    const ofKind = items.filter((i) => i.kind === kind);
    for (const item of ofKind.slice(0, ATTENTION_LIMIT)) {
      const fill = fills?.(item);
      rows.push({ values: [item.kind, item.item, item.why], ...(fill && { fills: fill }) });
    }
    const hidden = ofKind.length - ATTENTION_LIMIT;
    if (hidden > 0) rows.push({ values: [null, null, moreText(kind, hidden)], more: { kind, count: hidden } });
  }
  return rows;
}

/** A dataset's "Needs attention" section of its items (merged with the others' by composeSummary). */
export function attentionSection(rows: readonly SummaryGridRow[], messages: Messages): SummarySection {
  return { heading: messages.t('term.needsAttention'), role: 'attention', lines: [], grid: { columns: attentionColumns(messages), rows } };
}

/**
 * Points each "n more" row at its first hidden item in the "Needs attention" sheet (`sheet`, its name in the report's language), which lists the
 * items in the order of these rows (every item of a kind where the Summary shows its first ones).
 */
export function linkMoreRows(rows: readonly SummaryGridRow[], sheet: string): SummaryGridRow[] {
  let listed = 0;
  return rows.map((row) => {
    if (!row.more) {
      listed++;
      return row;
    }
    const first = FIRST_ITEM_ROW + listed;
    listed += row.more.count;
    const text = typeof row.values[2] === 'string' ? row.values[2] : `${row.more.count} more`;
    return { ...row, values: [row.values[0] ?? null, row.values[1] ?? null, { text, url: sheetRowUrl(sheet, first) }] };
  });
}

const column = (key: string, type: Column['type'], label: string, description: string, width?: number): Column => ({
  key, type, label, description, ...(width !== undefined && { width }),
});

/** The sheet's columns in the report's language; their keys are the same in every language. */
function sheetColumns(messages: Messages): readonly Column[] {
  const t = (id: Parameters<Messages['t']>[0]) => messages.t(id);
  return [
    column('what', 'text', t('term.attentionWhat'), 'Kind of item', 12),
    column('item', 'link', t('term.attentionItem'), 'The item, linked to its row', 44),
    column('owner', 'text', t('term.owner'), 'Who is to act on it, empty when nobody', 20),
    column('level', 'text', t('term.level'), 'Risk level', 12),
    column('due', 'date', t('attention.sheet.due'), 'Resolution date'),
    column('days_overdue', 'integer', t('attention.sheet.daysOverdue'), 'Days past the due date', 10),
    column('where', 'text', t('attention.sheet.where'), 'Where the item is kept', 24),
    column('linked', 'list', t('attention.sheet.linked'), 'Keys of the items it is linked to', 20),
    column('why', 'text', t('attention.sheet.why'), 'Why it needs attention', 50),
  ];
}

/** The "Needs attention" sheet: every item the Summary counts, in its order, whatever the Summary's limit. */
export function attentionSheetContent(items: readonly AttentionItem[], messages: Messages): LeadingSheet {
  const sentence = items.length === 0 ? messages.t('term.nothingNeedsAttention') : messages.t('attention.sheet.sentence', { limit: ATTENTION_LIMIT });
  return {
    heading: messages.t('term.needsAttention'),
    sentence,
    columns: sheetColumns(messages),
    rows: items.map((i): TableRow => ({ values: [i.kind, i.item, i.owner, i.level, i.due, i.daysOverdue, i.where, i.linked, i.why] })),
  };
}
