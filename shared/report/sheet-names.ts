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
