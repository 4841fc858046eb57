import type { ChartBlock, ChartSheetContent } from '../../render/xlsx/chart-sheet';
import { PREDICTABILITY_BAND } from '../summary/vocabulary';
import type { Trends, TrendTable } from './series';
import type { Messages } from '../../core/i18n/messages';

/** The Trends sheet in the report's language: one table per series with its chart beside it (charts from two runs on). */
export function trendsSheetContent(trends: Trends, messages: Messages): ChartSheetContent {
  const charted = trends.runs >= 2;
  return {
    heading: messages.t('term.trends'),
    sentence: trends.note,
    blocks: trends.tables.map((t) => block(t, charted, messages)),
  };
}

function block(table: TrendTable, charted: boolean, messages: Messages): ChartBlock {
  const term = (id: 'run' | 'bandLine' | 'bandNote', values?: Readonly<Record<string, string>>) => messages.t(`term.${id}`, values);
  const format = table.unit === 'percent' ? ('percent' as const) : ('integer' as const);
  // The run's date is a date cell in the workbook; the PDF prints its label.
  const rows = table.rows.map((r) => ({ category: r.run, at: r.at, timed: r.timed, values: r.values }));
  const base = { title: table.title, categoryLabel: term('run') };
  const all = table.columns.map((_, i) => i);
  switch (table.chart) {
    case 'predictability': {
      // The band is the same on every row: drawn in the chart and said once under the table, not a column.
      const { low, high } = PREDICTABILITY_BAND;
      const lines = [low, high].map((value) => ({ label: term('bandLine', { percent: String(value) }), value }));
      return {
        ...base,
        columns: table.columns.map((label) => ({ label, format })),
        rows,
        ...(charted && { chart: { kind: 'column' as const, series: all, lines }, note: term('bandNote', { low: String(low), high: String(high) }) }),
      };
    }
    case 'burn-up': {
      // Estimates when the board has any, otherwise the count of features.
      const byEstimate = table.rows.some((r) => (r.values[2] ?? 0) > 0);
      return {
        ...base,
        columns: table.columns.map((label, i) => ({ label, format: i >= 4 ? ('percent' as const) : i >= 2 ? ('number' as const) : ('integer' as const) })),
        rows,
        ...(charted && { chart: { kind: 'line' as const, series: byEstimate ? [2, 3] : [0, 1] } }),
      };
    }
    case 'line':
      return { ...base, columns: table.columns.map((label) => ({ label, format })), rows, ...(charted && { chart: { kind: 'line' as const, series: all } }) };
    case 'none':
      return { ...base, columns: table.columns.map((label) => ({ label, format })), rows };
  }
}
