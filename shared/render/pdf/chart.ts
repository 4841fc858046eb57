/**
 * A Trends block's chart as vector drawing: a line chart (one line per series, a dot per run) or a
 * column chart (a group of columns per run) with a dashed band over it, value axis with gridlines,
 * the runs under it, a legend on top. Colours are the workbook's (Okabe-Ito, colour-blind safe).
 */
import { BAND_COLOR, PALETTE, type ChartBlock } from '../xlsx/chart-sheet';
import { CONTENT_WIDTH, type Doc, INK, MUTED, PAGE, REGULAR, RULE, type Row } from './page';
import type { PdfValueFormat } from './values';
import { cutToLines, oneLineWidth, wrappableText } from './wrap-text';

export const CHART_HEIGHT = 180;
const AXIS_WIDTH = 40;
const LEGEND_HEIGHT = 18;
const LEGEND_LINE = 12;
const CATEGORY_HEIGHT = 16;

interface Series {
  readonly name: string;
  readonly values: readonly (number | null)[];
  readonly color: string;
  readonly dashed: boolean;
}

/** A step of 1, 2, 2.5 or 5 times a power of ten that splits 0…max into at most five parts. */
export function niceStep(max: number): number {
  if (!(max > 0)) return 1;
  const rough = max / 5;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= rough) ?? 10 * power;
  return step;
}

const finiteOrNull = (v: number | null | undefined): number | null => (v !== null && v !== undefined && Number.isFinite(v) ? v : null);

/** What a chart shows, in the report's language: its kind, title, runs and series. */
function chartAlt(kind: string, title: string, categories: readonly string[], series: readonly Series[], overlay: readonly Series[], format: PdfValueFormat): string {
  const names = (list: readonly Series[]) => list.map((s) => s.name).join(', ');
  const values = { kind, title, first: categories[0] ?? '', last: categories.at(-1) ?? '', series: names(series), dashed: names(overlay) };
  return `${format.t(overlay.length > 0 ? 'pdf.chartAltDashed' : 'pdf.chartAlt', values)} ${format.t('pdf.chartAltTable')}`;
}

export function chartRow(doc: Doc, block: ChartBlock, format: PdfValueFormat): Row | undefined {
  const chart = block.chart;
  if (!chart || block.rows.length === 0) return undefined;
  const seriesOf = (index: number, color: string): Series => ({
    name: block.columns[index]?.label ?? '',
    // A figure that is no number is a gap, as a missing one: pdfkit refuses NaN and infinite coordinates.
    values: block.rows.map((r) => finiteOrNull(r.values[index])),
    color,
    dashed: false,
  });
  const series = chart.series.map((i, n) => seriesOf(i, `#${PALETTE[n % PALETTE.length]!}`));
  const overlay = (chart.lines ?? []).map((line): Series => ({ name: line.label, values: block.rows.map(() => line.value), color: `#${BAND_COLOR}`, dashed: true }));
  const percent = chart.series.every((i) => block.columns[i]?.format === 'percent');
  const categories = block.rows.map((r) => r.category);
  const legend = legendPlaces(doc, [...series, ...overlay]);
  const legendHeight = LEGEND_HEIGHT + LEGEND_LINE * Math.max(0, ...legend.map((p) => p.line));
  return {
    height: CHART_HEIGHT + legendHeight - LEGEND_HEIGHT + 8,
    // What the picture shows, for a screen reader; the table under it holds the figures.
    tag: {
      type: 'Figure',
      alt: chartAlt(chart.kind, block.title, categories, series, overlay, format),
    },
    draw(doc, y) {
      const all = [...series, ...overlay].flatMap((s) => s.values).filter((v): v is number => v !== null);
      const step = niceStep(Math.max(0, ...all));
      const top = Math.max(step, Math.ceil(Math.max(0, ...all) / step) * step);
      const plot = { x: PAGE.left + AXIS_WIDTH, y: y + legendHeight, width: CONTENT_WIDTH - AXIS_WIDTH - 8, height: CHART_HEIGHT - LEGEND_HEIGHT - CATEGORY_HEIGHT };
      const yOf = (v: number) => plot.y + plot.height - (v / top) * plot.height;
      drawLegend(doc, legend, y);
      drawValueAxis(doc, plot, top, step, yOf, (v) => format.axis(v, percent));
      const slot = plot.width / categories.length;
      const xOf = (i: number) => plot.x + slot * (i + 0.5);
      drawCategories(doc, categories, plot, slot, xOf);
      if (chart.kind === 'column') drawColumns(doc, series, slot, xOf, yOf, plot.y + plot.height);
      else for (const s of series) drawLine(doc, s, xOf, yOf, true);
      for (const s of overlay) drawLine(doc, s, xOf, yOf, false);
    },
  };
}

type Plot = { x: number; y: number; width: number; height: number };

interface LegendPlace {
  readonly series: Series;
  readonly x: number;
  readonly line: number;
}

/** Where each series' key goes: side by side, on as many lines as it takes. */
function legendPlaces(doc: Doc, series: readonly Series[]): LegendPlace[] {
  doc.font(REGULAR).fontSize(7.5);
  const start = PAGE.left + AXIS_WIDTH;
  let x = start;
  let line = 0;
  return series.map((s) => {
    const width = 12 + oneLineWidth(doc, s.name) + 12;
    if (x > start && x + width > PAGE.left + CONTENT_WIDTH) {
      x = start;
      line += 1;
    }
    const place = { series: s, x, line };
    x += width;
    return place;
  });
}

function drawLegend(doc: Doc, places: readonly LegendPlace[], top: number): void {
  doc.font(REGULAR).fontSize(7.5);
  for (const { series: s, x, line } of places) {
    const y = top + line * LEGEND_LINE;
    if (s.dashed) doc.moveTo(x, y + 5).lineTo(x + 10, y + 5).lineWidth(1.2).dash(2.5, { space: 1.5 }).strokeColor(s.color).stroke().undash();
    else doc.rect(x, y + 1.5, 8, 8).fill(s.color);
    // One line up to the right edge: without a width pdfkit lays out a name with many spaces in time growing with their square.
    const width = PAGE.left + CONTENT_WIDTH - (x + 12);
    doc.fillColor(INK).text(wrappableText(doc, s.name, width), x + 12, y + 1, cutToLines(doc, width));
  }
}

function drawValueAxis(doc: Doc, plot: Plot, top: number, step: number, yOf: (v: number) => number, label: (v: number) => string): void {
  doc.font(REGULAR).fontSize(7.5);
  for (let v = 0; v <= top + step / 1000; v += step) {
    const y = yOf(v);
    doc.moveTo(plot.x, y).lineTo(plot.x + plot.width, y).lineWidth(v === 0 ? 0.8 : 0.4).strokeColor(v === 0 ? MUTED : RULE).stroke();
    doc.fillColor(MUTED).text(label(v), PAGE.left, y - 3.5, { width: AXIS_WIDTH - 4, align: 'right', lineBreak: false });
  }
}

/** Run names under the plot; with many runs only every n-th, so that none overlaps the next. */
function drawCategories(doc: Doc, categories: readonly string[], plot: Plot, slot: number, xOf: (i: number) => number): void {
  doc.font(REGULAR).fontSize(7.5).fillColor(MUTED);
  // A name wider than the plot is cut to one line of it: pdfkit lays out one line with many spaces in time growing with their square.
  const widest = Math.min(Math.max(...categories.map((c) => oneLineWidth(doc, c))) + 6, plot.width);
  const every = Math.max(1, Math.ceil(widest / slot));
  categories.forEach((c, i) => {
    if ((categories.length - 1 - i) % every !== 0) return;
    const width = Math.max(slot * every, widest);
    doc.text(wrappableText(doc, c, width), xOf(i) - width / 2, plot.y + plot.height + 4, { ...cutToLines(doc, width), align: 'center' });
  });
}

function drawColumns(doc: Doc, series: readonly Series[], slot: number, xOf: (i: number) => number, yOf: (v: number) => number, base: number): void {
  const group = slot * 0.7;
  const width = group / Math.max(1, series.length);
  series.forEach((s, n) => {
    s.values.forEach((v, i) => {
      if (v === null || v <= 0) return;
      const x = xOf(i) - group / 2 + n * width;
      doc.rect(x + 0.5, yOf(v), width - 1, base - yOf(v)).fill(s.color);
    });
  });
}

function drawLine(doc: Doc, s: Series, xOf: (i: number) => number, yOf: (v: number) => number, dots: boolean): void {
  let drawing = false;
  s.values.forEach((v, i) => {
    if (v === null) {
      drawing = false;
      return;
    }
    if (drawing) doc.lineTo(xOf(i), yOf(v));
    else doc.moveTo(xOf(i), yOf(v));
    drawing = true;
  });
  if (s.dashed) doc.dash(4, { space: 3 });
  doc.lineWidth(s.dashed ? 1.2 : 1.8).strokeColor(s.color).stroke();
  doc.undash();
  if (!dots) return;
  s.values.forEach((v, i) => {
    if (v !== null) doc.circle(xOf(i), yOf(v), 2.2).fill(s.color);
  });
}
