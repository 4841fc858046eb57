import type { Messages } from '../core/i18n/messages';

/**
 * The workbook's own sheets by their names in the report's language ("Needs attention",
 * "Handlungsbedarf"): the workbook names them so, and every link into them (`#'Handlungsbedarf'!A5`)
 * is built from the same names. The data sheets are named by their tables' titles (tables/titles.ts).
 */
export interface SheetNames {
  readonly summary: string;
  readonly attention: string;
  readonly changes: string;
  readonly trends: string;
}

export function sheetNames(messages: Messages): SheetNames {
  return {
    summary: messages.t('sheet.summary'),
    attention: messages.t('term.needsAttention'),
    changes: messages.t('sheet.changes'),
    trends: messages.t('term.trends'),
  };
}

/** A jump to a row of a sheet of this workbook, `#'Risks'!A12` (a `'` in the name doubled). */
export function sheetRowUrl(sheet: string, row: number): string {
  return `#'${sheet.replace(/'/g, "''")}'!A${row}`;
}

/**
 * A table's sheet name in the report's language: the catalogue's `table.<name>` ("Risiken" for
 * `risks`), else `title` (a table the catalogue does not know keeps its own).
 */
export function tableSheetName(name: string, title: string, messages: Messages): string {
  const id = `table.${name}`;
  return messages.has(id) ? messages.t(id) : title;
}

/**
 * A column's header in the report's language: the catalogue's `column.<its English label in
 * snake_case>` ("Risk level" → `column.risk_level`), else the label as it is (a custom field's
 * title is data, and stays as served).
 */
export function columnLabel(label: string, messages: Messages): string {
  const id = `column.${label.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '')}`;
  return messages.has(id) ? messages.t(id) : label;
}
