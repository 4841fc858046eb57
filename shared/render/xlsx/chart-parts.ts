/**
 * DrawingML chart and drawing parts (ECMA-376 part 1, §21.2 and §20.5), written by hand because
 * exceljs writes no charts. A chart refers to cell ranges of its sheet and carries a cache of their
 * values, so readers that do not recalculate (LibreOffice's import, previewers) draw it as written.
 * Element order follows the schema's sequences, which Excel enforces.
 */

/** A chart series: its name's cell, its values' range and their cached values. */
export interface ChartSeries {
  readonly name: string;
  readonly nameRef: string;
  readonly valuesRef: string;
  readonly values: readonly (number | null)[];
  /** Hex colour without `#`. */
  readonly color: string;
  /** Drawn dashed and without markers (the band lines of a column chart). */
  readonly dashed?: boolean;
}

/** A category cell holding a date: its serial and the number format it is shown in. */
export interface DatedCategory {
  readonly serial: number;
  readonly format: string;
}

/** The categories' cached values: texts, or dates (the Trends' runs), which label the axis in their cells' formats. */
export type ChartCategories = readonly string[] | readonly DatedCategory[];

export interface ChartPart {
  readonly title: string;
  readonly kind: 'line' | 'column';
  readonly categoriesRef: string;
  readonly categories: ChartCategories;
  readonly series: readonly ChartSeries[];
  /** Line series drawn over a column chart, on the same axes. */
  readonly overlay?: readonly ChartSeries[];
  /** Axis number format, e.g. `0%` or `0`. */
  readonly valueFormat: string;
  /** Some series read hidden cells (a band's edges, which are no column of the table): plot them anyway. */
  readonly hiddenCells?: boolean;
}

/** Where a chart sits: zero-based columns and rows of its top-left and bottom-right cells. */
export interface ChartAnchor {
  readonly fromCol: number;
  readonly fromRow: number;
  readonly toCol: number;
  readonly toRow: number;
}

export const CHART_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.drawingml.chart+xml';
export const DRAWING_CONTENT_TYPE = 'application/vnd.openxmlformats-officedocument.drawing+xml';
export const CHART_REL_TYPE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/chart';
export const DRAWING_REL_TYPE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships/drawing';

const NS_C = 'http://schemas.openxmlformats.org/drawingml/2006/chart';
const NS_A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const NS_R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const CAT_AXIS = 500_001;
const VAL_AXIS = 500_002;

export function xmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** `'Sheet name'!$B$5:$B$16` for a one-column range. */
export function rangeRef(sheet: string, column: string, fromRow: number, toRow: number): string {
  const quoted = `'${sheet.replace(/'/g, "''")}'`;
  return fromRow === toRow ? `${quoted}!$${column}$${fromRow}` : `${quoted}!$${column}$${fromRow}:$${column}$${toRow}`;
}

const strCache = (values: readonly string[]) =>
  `<c:strCache><c:ptCount val="${values.length}"/>${values.map((v, i) => `<c:pt idx="${i}"><c:v>${xmlText(v)}</c:v></c:pt>`).join('')}</c:strCache>`;

const numCache = (values: readonly (number | null)[]) =>
  `<c:numCache><c:formatCode>General</c:formatCode><c:ptCount val="${values.length}"/>${values
    .map((v, i) => (v === null || !Number.isFinite(v) ? '' : `<c:pt idx="${i}"><c:v>${v}</c:v></c:pt>`))
    .join('')}</c:numCache>`;

function isDated(categories: ChartCategories): categories is readonly DatedCategory[] {
  return categories.length > 0 && typeof categories[0] !== 'string';
}

/** Dated categories: a number reference whose points keep their cells' formats (a run's time where two share a day). */
function categoryRef(part: ChartPart): string {
  const ref = `<c:f>${xmlText(part.categoriesRef)}</c:f>`;
  const categories = part.categories;
  if (!isDated(categories)) return `<c:strRef>${ref}${strCache(categories)}</c:strRef>`;
  const first = categories[0]!.format;
  const points = categories.map((c, i) => `<c:pt idx="${i}"${c.format === first ? '' : ` formatCode="${xmlText(c.format)}"`}><c:v>${c.serial}</c:v></c:pt>`);
  return `<c:numRef>${ref}<c:numCache><c:formatCode>${xmlText(first)}</c:formatCode><c:ptCount val="${categories.length}"/>${points.join('')}</c:numCache></c:numRef>`;
}

/**
 * Dated categories label the axis in their cells' formats (`sourceLinked`), on a text axis (`auto` 0
 * where the axis is written): one label per run, evenly spaced, as the table lists them, never a
 * calendar axis that would stack two runs of one day.
 */
function categoryAxisFormat(categories: ChartCategories): string {
  if (!isDated(categories)) return '<c:numFmt formatCode="General" sourceLinked="0"/>';
  return `<c:numFmt formatCode="${xmlText(categories[0]!.format)}" sourceLinked="1"/>`;
}

function series(part: ChartPart, s: ChartSeries, index: number, as: 'line' | 'column'): string {
  const fill = `<a:solidFill><a:srgbClr val="${s.color}"/></a:solidFill>`;
  const shape =
    as === 'column'
      ? `<c:spPr>${fill}</c:spPr><c:invertIfNegative val="0"/>`
      : `<c:spPr><a:ln w="${s.dashed ? 19050 : 28575}" cap="rnd">${fill}${s.dashed ? '<a:prstDash val="dash"/>' : ''}<a:round/></a:ln></c:spPr>` +
        (s.dashed ? '<c:marker><c:symbol val="none"/></c:marker>' : `<c:marker><c:symbol val="circle"/><c:size val="5"/><c:spPr>${fill}</c:spPr></c:marker>`);
  return (
    `<c:ser><c:idx val="${index}"/><c:order val="${index}"/>` +
    `<c:tx><c:strRef><c:f>${xmlText(s.nameRef)}</c:f>${strCache([s.name])}</c:strRef></c:tx>` +
    shape +
    `<c:cat>${categoryRef(part)}</c:cat>` +
    `<c:val><c:numRef><c:f>${xmlText(s.valuesRef)}</c:f>${numCache(s.values)}</c:numRef></c:val>` +
    (as === 'line' ? '<c:smooth val="0"/>' : '') +
    '</c:ser>'
  );
}

const axisIds = `<c:axId val="${CAT_AXIS}"/><c:axId val="${VAL_AXIS}"/>`;

function lineChart(part: ChartPart, list: readonly ChartSeries[], first: number): string {
  return `<c:lineChart><c:grouping val="standard"/><c:varyColors val="0"/>${list.map((s, i) => series(part, s, first + i, 'line')).join('')}<c:marker val="1"/>${axisIds}</c:lineChart>`;
}

function columnChart(part: ChartPart): string {
  return `<c:barChart><c:barDir val="col"/><c:grouping val="clustered"/><c:varyColors val="0"/>${part.series
    .map((s, i) => series(part, s, i, 'column'))
    .join('')}<c:gapWidth val="80"/>${axisIds}</c:barChart>`;
}

const TICKS = '<c:majorTickMark val="out"/><c:minorTickMark val="none"/><c:tickLblPos val="nextTo"/>';

/** chartN.xml: a titled line or clustered-column chart with a legend below. */
export function chartXml(part: ChartPart): string {
  const plot =
    part.kind === 'line'
      ? lineChart(part, part.series, 0)
      : columnChart(part) + (part.overlay && part.overlay.length > 0 ? lineChart(part, part.overlay, part.series.length) : '');
  const title =
    `<c:title><c:tx><c:rich><a:bodyPr/><a:lstStyle/><a:p><a:pPr><a:defRPr sz="1200" b="1"/></a:pPr>` +
    `<a:r><a:rPr lang="en-GB" sz="1200" b="1"/><a:t>${xmlText(part.title)}</a:t></a:r></a:p></c:rich></c:tx><c:overlay val="0"/></c:title>`;
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    `<c:chartSpace xmlns:c="${NS_C}" xmlns:a="${NS_A}" xmlns:r="${NS_R}"><c:roundedCorners val="0"/><c:chart>` +
    `${title}<c:autoTitleDeleted val="0"/><c:plotArea><c:layout/>${plot}` +
    `<c:catAx><c:axId val="${CAT_AXIS}"/><c:scaling><c:orientation val="minMax"/></c:scaling><c:delete val="0"/><c:axPos val="b"/>` +
    `${categoryAxisFormat(part.categories)}${TICKS}<c:crossAx val="${VAL_AXIS}"/><c:crosses val="autoZero"/>` +
    `<c:auto val="${isDated(part.categories) ? 0 : 1}"/><c:lblAlgn val="ctr"/><c:lblOffset val="100"/><c:noMultiLvlLbl val="0"/></c:catAx>` +
    `<c:valAx><c:axId val="${VAL_AXIS}"/><c:scaling><c:orientation val="minMax"/><c:min val="0"/></c:scaling><c:delete val="0"/><c:axPos val="l"/>` +
    `<c:majorGridlines/><c:numFmt formatCode="${xmlText(part.valueFormat)}" sourceLinked="0"/>${TICKS}<c:crossAx val="${CAT_AXIS}"/>` +
    '<c:crosses val="autoZero"/><c:crossBetween val="between"/></c:valAx></c:plotArea>' +
    `<c:legend><c:legendPos val="b"/><c:overlay val="0"/></c:legend><c:plotVisOnly val="${part.hiddenCells ? 0 : 1}"/><c:dispBlanksAs val="gap"/></c:chart></c:chartSpace>`
  );
}

/** drawingN.xml: one two-cell anchor per chart; chart i is the drawing's relationship `rId<i+1>`. */
export function drawingXml(anchors: readonly ChartAnchor[], titles: readonly string[]): string {
  const anchor = (a: ChartAnchor, i: number) =>
    '<xdr:twoCellAnchor editAs="oneCell">' +
    `<xdr:from><xdr:col>${a.fromCol}</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>${a.fromRow}</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:from>` +
    `<xdr:to><xdr:col>${a.toCol}</xdr:col><xdr:colOff>0</xdr:colOff><xdr:row>${a.toRow}</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:to>` +
    `<xdr:graphicFrame macro=""><xdr:nvGraphicFramePr><xdr:cNvPr id="${i + 2}" name="${xmlText(titles[i] ?? `Chart ${i + 1}`)}"/><xdr:cNvGraphicFramePr/></xdr:nvGraphicFramePr>` +
    '<xdr:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/></xdr:xfrm>' +
    `<a:graphic><a:graphicData uri="${NS_C}"><c:chart xmlns:c="${NS_C}" xmlns:r="${NS_R}" r:id="rId${i + 1}"/></a:graphicData></a:graphic>` +
    '</xdr:graphicFrame><xdr:clientData/></xdr:twoCellAnchor>';
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    `<xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/spreadsheetDrawing" xmlns:a="${NS_A}">` +
    anchors.map(anchor).join('') +
    '</xdr:wsDr>'
  );
}

/** drawingN.xml.rels: the drawing's charts, by their numbers in xl/charts/. */
export function drawingRelsXml(chartNumbers: readonly number[]): string {
  return (
    '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
    '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
    chartNumbers.map((n, i) => `<Relationship Id="rId${i + 1}" Type="${CHART_REL_TYPE}" Target="../charts/chart${n}.xml"/>`).join('') +
    '</Relationships>'
  );
}
