/**
 * How the PDF writes a value: the one place its numbers and dates are formatted, with the functions
 * every other surface uses (shared/core/format.ts), so a figure reads as on the Summary sheet and in
 * the e-mail, in the report's locale and zone (the run's ReaderFormat, passed down whole).
 */
import type { ReaderFormat } from '../../core/format';
import { isLink, isTextList, listText, type CellValue, type ColumnType } from '../../table/table';

export interface PdfValueFormat {
  /** A Summary value, by its column type (inferred from the value when absent). */
  cell(value: CellValue, type: ColumnType | undefined): string;
  /** A Trends figure. */
  figure(value: number | null | undefined, format: 'integer' | 'number' | 'percent'): string;
  /** A label on a chart's value axis: whole numbers, percentages without decimals. */
  axis(value: number, percent: boolean): string;
  /** A message of the report's language (the furniture, a chart's alternative text). */
  readonly t: ReaderFormat['t'];
}

/**
 * A figure that is no number (NaN, or infinite: a ratio over nothing): the e-mail's mark of a missing
 * figure, where Intl would write "NaN" or "∞". The workbook leaves such a cell empty.
 */
const NO_FIGURE = '–';

export function pdfValueFormat(reader: ReaderFormat): PdfValueFormat {
  return {
    cell(value, type) {
      if (value === null || value === undefined || value === '') return '';
      if (isLink(value)) return value.text;
      if (typeof value === 'boolean') return reader.t(value ? 'value.yes' : 'value.no');
      if (typeof value === 'number') {
        if (!Number.isFinite(value)) return NO_FIGURE;
        if (type === 'percent') return reader.percent(value);
        return type === 'integer' ? reader.integer(value) : reader.number(value);
      }
      if (isTextList(value)) return listText(value);
      if (value instanceof Date) return type === 'date' ? reader.calendarDate(value) : reader.dateTime(value);
      return value;
    },
    figure(value, format) {
      if (value === null || value === undefined) return '';
      if (!Number.isFinite(value)) return NO_FIGURE;
      return format === 'percent' ? reader.percent(value) : format === 'integer' ? reader.integer(value) : reader.number(value);
    },
    axis: (value, percent) => (percent ? `${reader.integer(value)} %` : reader.number(value)),
    t: (id, values) => reader.t(id, values),
  };
}
