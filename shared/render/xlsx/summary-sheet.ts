/**
 * The Summary sheet: the report for people, top to bottom as composed in shared/report/summary/
 * (headline figures, Needs attention, detail, then the run's metadata in small print). Label/value
 * lines and small tables share one column grid so the sheet prints on one landscape page:
 *
 *   A (16)   B (46)                 C … H (13 each)
 *   label ─────────────────────►    value                 (lines: the label runs into B)
 *   first column ─────────────►     2nd, 3rd, … columns   (tables: theme, board, level …)
 *   What     Item (link)            Why ─────────────►    (Needs attention)
 *
 * Fills come from the figures (the register's colours, the predictability band); percentage
 * columns marked `bar` get a data bar; links starting with `#` jump to a row of the workbook.
 */
import type { CellValue, ColumnType, ReportSummary, SummaryGrid, SummarySection } from '../../table/table';
import type { ZoneClock } from '../time-zone';
import { inferType, Kind, producedKind, type StyleBook, type StyleModel, toExcel } from './cells';
import type { WriterSheet } from './exceljs-internals';

export const SUMMARY_COLUMN_WIDTHS: readonly number[] = [16, 46, 13, 13, 13, 13, 13, 13];
const BAR_COLOUR = 'FF5B8DEF';
const FONT = { name: 'Calibri', family: 2 } as const;

const STYLE = {
  /** Labels run into the empty cell beside them: never wrapped. */
  label: { alignment: { vertical: 'top' }, font: { ...FONT, size: 11 } },
  value: { alignment: { vertical: 'top' }, font: { ...FONT, size: 11, bold: true } },
  gridHeader: {
    alignment: { vertical: 'bottom', wrapText: true },
    font: { ...FONT, size: 10, bold: true, color: { argb: 'FF52606D' } },
    border: { bottom: { style: 'thin', color: { argb: 'FFB0B8C1' } } },
  },
  small: { alignment: { vertical: 'top' }, font: { ...FONT, size: 9, color: { argb: 'FF616E7C' } } },
  smallHeading: { font: { ...FONT, size: 9, bold: true, color: { argb: 'FF616E7C' } } },
} satisfies Record<string, StyleModel>;

/** Characters of a small-print value: it runs over C…H, and a longer one would widen the printed page. */
const SMALL_PRINT_LENGTH = 90;

/** Long metadata (every board of the scope) is cut with "…"; the manifest keeps it whole. */
function smallPrint(value: CellValue): CellValue {
  return typeof value === 'string' && value.length > SMALL_PRINT_LENGTH ? `${value.slice(0, SMALL_PRINT_LENGTH - 1)}…` : value;
}

/** Where column `i` of a section's table goes (1-based sheet columns). */
function placement(section: SummarySection, i: number): number {
  if (section.role === 'attention') return i + 1;
  return i === 0 ? 1 : i + 2;
}

export interface SummarySheetDeps {
  readonly styles: StyleBook;
  readonly clock: ZoneClock;
  /** Called every few rows: the writer's pacing. */
  readonly relieve: () => Promise<void>;
}

/** A data bar over a percentage column, as exceljs models conditional formatting. */
interface DataBar {
  ref: string;
  rules: Record<string, unknown>[];
}

interface Cell {
  readonly column: number;
  readonly value: CellValue;
  readonly type?: ColumnType | undefined;
  readonly style?: StyleModel | undefined;
  readonly fill?: string | null | undefined;
}

export async function writeSummaryRows(sheet: WriterSheet, summary: ReportSummary, deps: SummarySheetDeps): Promise<void> {
  const { styles, clock } = deps;
  let rowNumber = 0;
  const bars: DataBar[] = [];

  /** Numbers and dates in a line keep their format (from the StyleBook) and take the line's font. */
  const variants = new Map<StyleModel, Map<Kind, StyleModel>>();
  const styleOf = (kind: Kind, own: StyleModel | undefined): StyleModel => {
    if (!own || kind === Kind.Link) return styles.of(kind);
    if (kind === Kind.Text) return own;
    let byKind = variants.get(own);
    if (!byKind) variants.set(own, (byKind = new Map<Kind, StyleModel>()));
    let style = byKind.get(kind);
    if (!style) byKind.set(kind, (style = { ...styles.of(kind), ...(own.font && { font: own.font }) }));
    return style;
  };

  const addRow = (cells: readonly Cell[]) => {
    const row = sheet.addRow(undefined);
    row.style = styles.row;
    for (const c of cells) {
      if (c.value === null || c.value === undefined || c.value === '') continue;
      const cell = row.getCell(c.column);
      cell.value = toExcel(c.value, c.type ?? inferType(c.value), clock);
      cell.style = (c.fill ? styles.withFill(producedKind, c.fill) : undefined) ?? styleOf(producedKind, c.style);
    }
    row.commit();
    rowNumber += 1;
  };

  addRow([{ column: 1, value: summary.title, style: styles.title }]);
  for (const section of summary.sections) {
    const about = section.role === 'about';
    addRow([]);
    addRow([{ column: 1, value: section.heading, style: about ? STYLE.smallHeading : styles.sectionHeading }]);
    for (const line of section.lines) {
      addRow([
        { column: 1, value: line.label, style: about ? STYLE.small : STYLE.label },
        { column: 3, value: about ? smallPrint(line.value) : line.value, type: line.type, style: about ? STYLE.small : STYLE.value },
        // The change since the run compared with ("+4 since 16 Nov", docs/changes.md), beside the figure.
        ...(line.delta ? [{ column: 4, value: line.delta, style: STYLE.small }] : []),
      ]);
      if (rowNumber % 32 === 0) await deps.relieve();
    }
    if (section.grid) await writeGrid(section, section.grid);
  }
  for (const bar of bars) sheet.addConditionalFormatting(bar);

  async function writeGrid(section: SummarySection, grid: SummaryGrid): Promise<void> {
    addRow(grid.columns.map((c, i) => ({ column: placement(section, i), value: c.label, style: STYLE.gridHeader })));
    const first = rowNumber + 1;
    for (const row of grid.rows) {
      addRow(
        grid.columns.map((c, i) => ({
          column: placement(section, i),
          value: row.values[i],
          type: c.type === 'link' ? undefined : c.type,
          // Text runs into the empty cells beside it (one line); links and figures take their own style.
          style: c.type === 'text' || c.type === undefined ? STYLE.label : undefined,
          fill: row.fills?.[i],
        })),
      );
      if (rowNumber % 32 === 0) await deps.relieve();
    }
    const last = rowNumber;
    grid.columns.forEach((c, i) => {
      if (!c.bar || last < first) return;
      const letter = String.fromCharCode(64 + placement(section, i));
      bars.push({
        ref: `${letter}${first}:${letter}${last}`,
        rules: [
          {
            type: 'dataBar',
            priority: bars.length + 1,
            gradient: false,
            cfvo: [{ type: 'num', value: 0 }, { type: 'num', value: 1 }],
            color: { argb: BAR_COLOUR },
          },
        ],
      });
    });
  }
}
