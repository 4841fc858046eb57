/**
 * Portrait A4 and how content flows down it: blocks of rows placed one under the other; a block that
 * does not fit in what is left of the page starts the next one (unless it is longer than a page,
 * then it breaks between rows). Every page has the report's title and run date on top and its
 * number at the bottom, drawn once the page count is known.
 */
import type PDFDocument from 'pdfkit';
import { BOLD, REGULAR } from './fonts';
import { cutToLines, wrappableText } from './wrap-text';

export type Doc = InstanceType<typeof PDFDocument>;

/** A4 in points, with 15 mm margins left and right. */
export const PAGE = { width: 595.28, height: 841.89, left: 42, right: 42, top: 62, bottom: 56 } as const;
export const CONTENT_WIDTH = PAGE.width - PAGE.left - PAGE.right;

export const INK = '#1F2933';
export const MUTED = '#616E7C';
export const RULE = '#B0B8C1';
export const LINK = '#0563C1';

export type Structure = PDFKit.PDFStructureElement;

/**
 * What a row is to a screen reader (the PDF is tagged): a heading, a paragraph, a figure with its
 * alternative text, or a table row (`TR`, its cells tagged by the row itself; `header`: its cells
 * are TH). Untagged rows are drawn as artifacts (decoration a reader skips).
 */
export type RowTag =
  | { readonly type: 'H1' | 'H2' | 'H3' | 'P' }
  | { readonly type: 'Figure'; readonly alt: string }
  | { readonly type: 'TR'; readonly header?: boolean };

/** One row of a block: how tall it is and how it is drawn with its top at `y`. */
export interface Row {
  readonly height: number;
  readonly tag?: RowTag | undefined;
  /** `row`: the row's TR element when the row is a table row; each cell goes into it as a TH or TD. */
  draw(doc: Doc, y: number, row?: Structure): void;
}

/** The rule under a table's header, from the left margin to `right`: an artifact in a tagged document. */
export function ruleUnder(doc: Doc, tagged: boolean, right: number, y: number): void {
  if (tagged) doc.markContent('Artifact');
  doc.moveTo(PAGE.left, y).lineTo(right, y).lineWidth(0.5).strokeColor(RULE).stroke();
  if (tagged) doc.endMarkedContent();
}

/** Draws `content` as a cell (TH or TD) of the table row `row`, or plainly when the document is drawn untagged. */
export function tableCell(doc: Doc, row: Structure | undefined, header: boolean, content: () => void): void {
  if (row) row.add(doc.struct(header ? 'TH' : 'TD', {}, content));
  else content();
}

export interface Flow {
  /**
   * Places rows that belong together (a section, a chart and its table) on one page if they fit on one.
   * Rows that do not fit on any page go on over the next pages, each new page starting with `repeat`
   * (a table's header) when the break falls after it.
   */
  keep(rows: readonly Row[], repeat?: Row): void;
  /** Space before the next block, unless it starts a page. */
  gap(points: number): void;
  /** How much of the current page's room is taken, 0 (nothing yet) to 1 (full). */
  filled(): number;
  /** Closes the structure the flow has open (a table), before the document ends. */
  end(): void;
}

/**
 * Draws a row into the document's structure, in reading order (the order rows are placed): table
 * rows in a Table element (one per run of TR rows, `table`), the rest as their tag says.
 */
function drawTagged(doc: Doc, root: Structure, row: Row, y: number, table: { current?: Structure | undefined }): void {
  const tag = row.tag;
  if (tag?.type !== 'TR' && table.current) {
    table.current.end();
    table.current = undefined;
  }
  if (!tag) {
    doc.markContent('Artifact');
    row.draw(doc, y);
    doc.endMarkedContent();
    return;
  }
  if (tag.type === 'TR') {
    if (!table.current) root.add((table.current = doc.struct('Table')));
    const tr = doc.struct('TR');
    table.current.add(tr);
    row.draw(doc, y, tr);
    tr.end();
    return;
  }
  root.add(doc.struct(tag.type, tag.type === 'Figure' ? { alt: tag.alt } : {}, () => row.draw(doc, y)));
}

/** `root`: the document's structure (a tagged document); content flows into it in the order it is placed. */
export function startFlow(doc: Doc, root?: Structure): Flow {
  // The paper's own height (A4 or Letter, by the report's locale); the content width fits both.
  const bottom = doc.page.height - PAGE.bottom;
  const pageRoom = bottom - PAGE.top;
  let y: number = PAGE.top;
  const table: { current?: Structure | undefined } = {};
  const place = (row: Row, repeated = false) => {
    if (!root) row.draw(doc, y);
    // A table's header repeated on the next page is decoration: a reader has heard it once.
    else if (repeated) drawTagged(doc, root, { height: row.height, draw: (d, at) => row.draw(d, at) }, y, table);
    else drawTagged(doc, root, row, y, table);
  };
  const newPage = () => {
    doc.addPage();
    y = PAGE.top;
  };
  return {
    keep(rows, repeat) {
      const total = rows.reduce((sum, r) => sum + r.height, 0);
      // A block longer than a page starts where it is, if its heading and first rows fit below it.
      const start = total <= pageRoom ? total : rows.slice(0, 4).reduce((sum, r) => sum + r.height, 0);
      if (y + start > bottom && y > PAGE.top) newPage();
      let repeating = false;
      for (const row of rows) {
        if (y + row.height > bottom && y > PAGE.top) {
          newPage();
          if (repeating && repeat) {
            place(repeat, true);
            y += repeat.height;
          }
        }
        place(row);
        y += row.height;
        if (row === repeat) repeating = true;
      }
    },
    gap(points) {
      if (y > PAGE.top) y = Math.min(y + points, bottom);
    },
    filled() {
      return (y - PAGE.top) / pageRoom;
    },
    end() {
      table.current?.end();
      table.current = undefined;
    },
  };
}

const HEADER_Y = 30;

/** The page header (title and run date) and "Page n of m" (`pageOf`, in the report's language) on every page; the document buffers its pages. */
export function drawPageFrames(doc: Doc, header: string, pageOf: (page: number, pages: number) => string): void {
  const range = doc.bufferedPageRange();
  doc.font(REGULAR).fontSize(8);
  const shown = wrappableText(doc, header, CONTENT_WIDTH);
  // A long header takes the lines above the content, no more: a longer one ran on over the page and on to new ones.
  const lines = Math.floor((PAGE.top - HEADER_Y) / doc.currentLineHeight(true));
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    // Running header and page numbers: artifacts, which a screen reader skips.
    doc.markContent('Artifact', { type: 'Pagination' });
    doc.font(REGULAR).fontSize(8).fillColor(MUTED);
    doc.text(shown, PAGE.left, HEADER_Y, cutToLines(doc, CONTENT_WIDTH, lines));
    doc.moveTo(PAGE.left, 44).lineTo(PAGE.width - PAGE.right, 44).lineWidth(0.5).strokeColor(RULE).stroke();
    doc.text(pageOf(i + 1, range.count), PAGE.left, doc.page.height - 36, { width: CONTENT_WIDTH, align: 'center', lineBreak: false });
    doc.endMarkedContent();
  }
}

/** A text row: one piece of text over the content width (a title, a heading, a sentence). */
export function textRow(doc: Doc, text: string, style: { font?: string; size: number; color?: string; before?: number; after?: number; tag?: RowTag }): Row {
  const font = style.font ?? REGULAR;
  doc.font(font).fontSize(style.size);
  const shown = wrappableText(doc, text, CONTENT_WIDTH);
  const before = style.before ?? 0;
  const height = before + doc.heightOfString(shown, { width: CONTENT_WIDTH }) + (style.after ?? 4);
  return {
    height,
    tag: style.tag ?? { type: 'P' },
    draw(d, y) {
      d.font(font).fontSize(style.size).fillColor(style.color ?? INK).text(shown, PAGE.left, y + before, { width: CONTENT_WIDTH });
    },
  };
}

export { BOLD, REGULAR };
