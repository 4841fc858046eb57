/**
 * A chart sheet (the Trends) as the workbook has it (chart-sheet.ts): its heading and sentence, then
 * per block its title, its chart and its table of runs, the three kept on one page.
 */
import type { ChartBlock, ChartSheetContent } from '../xlsx/chart-sheet';
import { chartRow } from './chart';
import { BOLD, CONTENT_WIDTH, type Doc, type Flow, INK, MUTED, PAGE, REGULAR, type Row, ruleUnder, tableCell, textRow } from './page';
import type { PdfValueFormat } from './values';
import { wrappableText } from './wrap-text';

const SIZE = 8.5;
const ROW_HEIGHT = 13;

export function drawChartSheet(doc: Doc, flow: Flow, content: ChartSheetContent, format: PdfValueFormat): void {
  // The sheet's heading goes with its first block: a heading alone at a page's foot leads nowhere.
  let heading: Row[] = [
    textRow(doc, content.heading, { font: BOLD, size: 16, after: 4, tag: { type: 'H1' } }),
    textRow(doc, content.sentence, { size: 9.5, color: MUTED, after: 6 }),
  ];
  for (const block of content.blocks) {
    if (heading.length === 0) flow.gap(12);
    const chart = chartRow(doc, block, format);
    const note = block.note === undefined ? [] : [textRow(doc, block.note, { size: SIZE, color: MUTED, before: 3 })];
    const title = textRow(doc, block.title, { font: BOLD, size: 12, before: heading.length === 0 ? 0 : 12, after: 4, tag: { type: 'H2' } });
    flow.keep([...heading, title, ...(chart ? [chart] : []), ...tableRows(doc, block, format), ...note]);
    heading = [];
  }
  if (heading.length > 0) flow.keep(heading);
}

function tableRows(doc: Doc, block: ChartBlock, format: PdfValueFormat): Row[] {
  const n = block.columns.length;
  const first = Math.min(130, CONTENT_WIDTH / (n + 1));
  const other = Math.min(85, (CONTENT_WIDTH - first) / Math.max(1, n));
  const xs = [PAGE.left, ...block.columns.map((_, i) => PAGE.left + first + i * other)];
  const widths = [first, ...block.columns.map(() => other)];
  doc.font(BOLD).fontSize(7.5);
  const labels = [block.categoryLabel, ...block.columns.map((c) => c.label)].map((l, i) => wrappableText(doc, l, widths[i]! - 4));
  const headerHeight = Math.max(...labels.map((l, i) => doc.heightOfString(l, { width: widths[i]! - 4 }))) + 5;
  const header: Row = {
    height: headerHeight,
    tag: { type: 'TR', header: true },
    draw(d, y, tr) {
      labels.forEach((l, i) =>
        tableCell(d, tr, true, () => {
          d.font(BOLD).fontSize(7.5).fillColor(MUTED);
          d.text(l, xs[i]! + 2, y + 1, { width: widths[i]! - 4, align: i === 0 ? 'left' : 'right' });
        }),
      );
      ruleUnder(d, tr !== undefined, xs[n]! + widths[n]!, y + headerHeight - 0.5);
    },
  };
  const rows = block.rows.map(
    (r): Row => ({
      height: ROW_HEIGHT,
      tag: { type: 'TR' },
      draw(d, y, tr) {
        tableCell(d, tr, false, () => {
          d.font(REGULAR).fontSize(SIZE).fillColor(INK);
          d.text(wrappableText(d, r.category, widths[0]! - 4), xs[0]! + 2, y + 2, { width: widths[0]! - 4, lineBreak: false, ellipsis: true });
        });
        block.columns.forEach((c, i) =>
          tableCell(d, tr, false, () => {
            d.font(REGULAR).fontSize(SIZE).fillColor(INK);
            d.text(format.figure(r.values[i], c.format), xs[i + 1]! + 2, y + 2, { width: widths[i + 1]! - 4, align: 'right', lineBreak: false });
          }),
        );
      },
    }),
  );
  return [header, ...rows];
}
