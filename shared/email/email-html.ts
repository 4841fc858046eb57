import { isLink, webUrlOf, type CellValue, type SummaryGrid, type SummaryGridColumn, type SummaryLine, type SummarySection } from '../table/table';
import type { EmailModel, ReportEmailLink } from './email-model';
import { cellText, escapeHtml, fileDetail } from './email-format';
import { textColourOn } from '../core/contrast';
import type { ReaderFormat } from '../core/format';
import { renderTrendsHtml } from './trends-section';
import { changeOf, changesSince } from './figure-change';

/**
 * The HTML part, built the way mail clients render reliably: layout tables, inline styles and
 * bgcolor attributes (Outlook's Word engine ignores most CSS; Gmail strips <style> in some views),
 * one 640px column that narrows on a phone, and a "bulletproof" button (a table cell, not an image).
 */

const FONT = "font-family:'Segoe UI',Helvetica,Arial,sans-serif;";
const STYLE = {
  body: `margin:0;padding:0;background:#f5f6f8;${FONT}color:#1f2933;`,
  card: 'background:#ffffff;border:1px solid #d9dee4;border-radius:6px;',
  h1: `margin:0 0 4px 0;font-size:20px;line-height:26px;${FONT}`,
  muted: `margin:0;color:#616e7c;font-size:13px;line-height:18px;${FONT}`,
  h2: `margin:22px 0 8px 0;font-size:15px;line-height:20px;${FONT}`,
  table: 'border-collapse:collapse;width:100%;font-size:14px;',
  label: `text-align:left;font-weight:normal;color:#52606d;padding:5px 12px 5px 0;border-bottom:1px solid #eef0f2;${FONT}`,
  value: `text-align:right;font-weight:bold;padding:5px 0;border-bottom:1px solid #eef0f2;${FONT}`,
  /**
   * Headers break only between words: breaking anywhere split "Gefährdet" and "Hors trajectoire" mid-word.
   * A grid's columns carry short headers (`short`) so that a German or French grid still fits a 390-px phone.
   */
  th: `text-align:left;font-weight:600;color:#52606d;font-size:12px;padding:4px 4px 4px 0;border-bottom:2px solid #d9dee4;${FONT}`,
  td: `padding:5px 4px 5px 0;border-bottom:1px solid #eef0f2;vertical-align:top;${FONT}`,
  link: 'color:#0b63c5;text-decoration:underline;',
  delta: `font-weight:normal;color:#616e7c;font-size:12px;${FONT}`,
  /** The change since the compared run, in a column of its own after the figure. */
  change: `text-align:right;white-space:nowrap;font-weight:normal;color:#616e7c;font-size:12px;padding:5px 0 5px 12px;border-bottom:1px solid #eef0f2;${FONT}`,
  changeHead: `text-align:right;font-weight:600;color:#52606d;font-size:12px;padding:4px 0 4px 12px;vertical-align:bottom;${FONT}`,
  button: `display:inline-block;padding:12px 28px;font-size:16px;font-weight:bold;color:#ffffff;text-decoration:none;${FONT}`,
  list: `margin:0;padding-left:20px;font-size:14px;line-height:22px;${FONT}`,
} as const;
const BUTTON_COLOUR = '#0b63c5';
const BAR_COLOUR = '#5b8def';
const BAR_TRACK = '#e4e7eb';

export function renderEmailHtml(model: EmailModel): string {
  const format = model.format;
  const { aboveButton, belowButton } = phoneOrder(model.sections, model.leading ?? 0);
  const headers = changeHeaders([...aboveButton, ...belowButton], format);
  const html = (list: readonly SummarySection[], from: number) => list.map((s, i) => section(s, format, headers[from + i])).join('');
  const button = model.workbook ? workbookButton(model.workbook, format) : '';
  const files =
    model.otherFiles.length > 0
      ? `<h2 style="${STYLE.h2}">${escapeHtml(format.t('email.otherFiles'))}</h2><ul style="${STYLE.list}">${model.otherFiles.map((l) => fileItem(l, format)).join('')}</ul>`
      : '';
  const smallPrint = model.smallPrint.map((p) => `<p style="${STYLE.muted}">${escapeHtml(p)}</p>`).join('');
  return (
    // The words' language, which is the locale's unless it has no catalogue (then English).
    `<!DOCTYPE html><html lang="${escapeHtml(format.messages.language)}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="x-apple-disable-message-reformatting">' +
    `<title>${escapeHtml(model.title)}</title></head>` +
    `<body style="${STYLE.body}">` +
    // The inbox list's preview line, never shown in the message itself.
    `<div style="display:none;max-height:0;overflow:hidden;mso-hide:all;">${escapeHtml(model.preheader)}</div>` +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="#f5f6f8" style="background:#f5f6f8;"><tr><td align="center" style="padding:16px 8px;">` +
    '<!--[if mso]><table role="presentation" width="640" cellpadding="0" cellspacing="0" border="0"><tr><td><![endif]-->' +
    `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" bgcolor="#ffffff" style="max-width:640px;${STYLE.card}"><tr><td style="padding:24px;">` +
    `<h1 style="${STYLE.h1}">${escapeHtml(model.title)}</h1>` +
    `<p style="${STYLE.muted}">${escapeHtml(format.t('email.generated', { when: model.generated }))}</p>` +
    html(aboveButton, 0) +
    button +
    html(belowButton, aboveButton.length) +
    (model.trends ? renderTrendsHtml(model.trends, escapeHtml, STYLE.h2, model.format) : '') +
    files +
    (model.freshCopyUrl ? `<p style="${STYLE.muted}margin-top:12px;">${anchor(model.freshCopyUrl, format.t('email.freshCopy'))}</p>` : '') +
    `<div style="margin-top:24px;padding-top:12px;border-top:1px solid #eef0f2;">${smallPrint}${
      model.unsubscribeUrl ? `<p style="${STYLE.muted}">${anchor(model.unsubscribeUrl, format.t('email.unsubscribe'))}</p>` : ''
    }</div>` +
    '</td></tr></table>' +
    '<!--[if mso]></td></tr></table><![endif]-->' +
    '</td></tr></table></body></html>'
  );
}

/**
 * The sections in the order a phone reader needs them: what leads (a reader's own lines), the first
 * headline figures, Needs attention, then the button, then What changed; the other headline figures
 * (ROAM, the OKR grid, the PI's details) and the detail after it. At 390 px the button came after
 * 4,000 px of figures otherwise.
 */
function phoneOrder(sections: readonly SummarySection[], leading: number): { aboveButton: SummarySection[]; belowButton: SummarySection[] } {
  const first = sections.findIndex((s, i) => i >= leading && s.role === 'headline');
  if (first < 0) return { aboveButton: [...sections], belowButton: [] };
  const rest = sections.slice(first + 1);
  const attention = rest.filter((s) => s.role === 'attention');
  const changes = rest.filter((s) => s.role === 'changes');
  const others = rest.filter((s) => s.role !== 'attention' && s.role !== 'changes');
  return { aboveButton: [...sections.slice(0, first + 1), ...attention], belowButton: [...changes, ...others] };
}

/**
 * Per section, the header of its change column: the first section with changes says their date
 * ("Change since 22/11/2026"), later ones "Change"; none where a section has no change.
 */
function changeHeaders(sections: readonly SummarySection[], format: ReaderFormat): (string | undefined)[] {
  const since = changesSince(sections);
  let said = false;
  return sections.map((s) => {
    if (since === undefined || !s.lines.some((l) => l.change !== undefined)) return undefined;
    const header = said ? format.t('delta.columnAgain') : format.t('delta.column', { date: since });
    said = true;
    return header;
  });
}

function section(s: SummarySection, format: ReaderFormat, changeHeader: string | undefined): string {
  const lines = s.lines.map((line) => figureRow(line, format, changeHeader !== undefined)).join('');
  const head = changeHeader === undefined ? '' : `<tr><td></td><td></td><th scope="col" style="${STYLE.changeHead}">${escapeHtml(changeHeader)}</th></tr>`;
  const table = lines ? `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="${STYLE.table}">${head}${lines}</table>` : '';
  return `<h2 style="${STYLE.h2}">${escapeHtml(s.heading)}</h2>${table}${s.grid ? grid(s.grid, format) : ''}`;
}

/** A figure's row: its label, its value (and where it stands against the reader's line), its change in its own column. */
function figureRow(line: SummaryLine, format: ReaderFormat, changeColumn: boolean): string {
  const label = `<tr><th scope="row" style="${STYLE.label}">${labelHtml(line)}</th>`;
  const value = cellHtml(line.value, line.type, format);
  if (!changeColumn) {
    // Without a column of changes a line's delta (the reader's line, a dated change) goes under its value.
    const delta = line.delta ? `<br><span style="${STYLE.delta}">${escapeHtml(line.delta)}</span>` : '';
    return `${label}<td style="${STYLE.value}">${value}${delta}</td></tr>`;
  }
  const beyond = line.beyond ? `<br><span style="${STYLE.delta}">${escapeHtml(line.beyond)}</span>` : '';
  const change = changeOf(line);
  return `${label}<td style="${STYLE.value}">${value}${beyond}</td><td style="${STYLE.change}">${change ? escapeHtml(change) : ''}</td></tr>`;
}

function grid(g: SummaryGrid, format: ReaderFormat): string {
  const shown = g.columns.map((c, i) => ({ c, i })).filter(({ c }) => !c.brief);
  const align = (c: SummaryGridColumn) => (c.type === 'integer' || c.type === 'number' || c.type === 'percent' ? 'right' : 'left');
  const head = shown.map(({ c }) => `<th scope="col" style="${STYLE.th}text-align:${align(c)};">${escapeHtml(c.short ?? c.label)}</th>`).join('');
  const rows = g.rows
    .map((row) => {
      const cells = shown
        .map(({ c, i }) => {
          const fill = row.fills?.[i];
          const bg = fill ? ` bgcolor="${escapeHtml(fill)}"` : '';
          // Text on a fill in black or white, whichever reads (WCAG AA, core/contrast.ts), as the workbook and the PDF write it.
          const style = `${STYLE.td}text-align:${align(c)};${fill ? `background:${escapeHtml(fill)};color:${textColourOn(fill)};` : ''}`;
          const value = row.values[i];
          // An empty grid cell stays empty (the "N more" lines have no item); '–' marks a missing figure.
          const content =
            value === null || value === undefined ? '' : c.bar && typeof value === 'number' ? bar(value, format) : cellHtml(value, c.type, format);
          return `<td${bg} style="${style}">${content}</td>`;
        })
        .join('');
      return `<tr>${cells}</tr>`;
    })
    .join('');
  return `<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="${STYLE.table}"><tr>${head}</tr>${rows}</table>`;
}

/** A percentage with a small bar beside it: two table cells, which every client draws. */
function bar(percent: number, format: ReaderFormat): string {
  const width = Math.max(0, Math.min(100, Math.round(percent)));
  // 48 px: with the figure and the band in words, the row still fits a 375-px phone.
  const track =
    `<table role="presentation" width="48" cellpadding="0" cellspacing="0" border="0" style="display:inline-table;vertical-align:middle;width:48px;"><tr>` +
    (width > 0 ? `<td width="${Math.round(width * 0.48)}" height="8" bgcolor="${BAR_COLOUR}" style="background:${BAR_COLOUR};height:8px;font-size:0;line-height:0;">&nbsp;</td>` : '') +
    (width < 100 ? `<td height="8" bgcolor="${BAR_TRACK}" style="background:${BAR_TRACK};height:8px;font-size:0;line-height:0;">&nbsp;</td>` : '') +
    '</tr></table>';
  return `${track} <span style="display:inline-block;min-width:44px;">${escapeHtml(cellText(percent, 'percent', format, false))}</span>`;
}

function cellHtml(value: CellValue, type: SummaryGridColumn['type'], format: ReaderFormat): string {
  // An item's address in the planning tool, when known; a link into the workbook is only text here.
  const target = isLink(value) ? webUrlOf(value) : undefined;
  if (isLink(value) && target !== undefined) return anchor(target, value.text);
  return escapeHtml(cellText(value, type, format, false));
}

/** A line's label, linked to the item's tracker page where the line names one ("What changed"). */
function labelHtml(line: SummaryLine): string {
  const target = line.link && webUrlOf(line.link);
  return target === undefined ? escapeHtml(line.label) : anchor(target, line.label);
}

function anchor(url: string, text: string): string {
  return `<a href="${escapeHtml(url)}" style="${STYLE.link}">${escapeHtml(text)}</a>`;
}

function workbookButton(link: ReportEmailLink, format: ReaderFormat): string {
  return (
    '<table role="presentation" cellpadding="0" cellspacing="0" border="0" style="margin:28px 0 4px 0;"><tr>' +
    `<td align="center" bgcolor="${BUTTON_COLOUR}" style="border-radius:6px;background:${BUTTON_COLOUR};">` +
    `<a href="${escapeHtml(link.url)}" style="${STYLE.button}">${escapeHtml(format.t('email.openWorkbook'))}</a></td></tr></table>` +
    `<p style="${STYLE.muted}">${escapeHtml(`${link.label} (${fileDetail(link, format)})`)}</p>`
  );
}

function fileItem(link: ReportEmailLink, format: ReaderFormat): string {
  return `<li>${anchor(link.url, link.label)} <span style="color:#616e7c;">(${escapeHtml(fileDetail(link, format))})</span></li>`;
}
